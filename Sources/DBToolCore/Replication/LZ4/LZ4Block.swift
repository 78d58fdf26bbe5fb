internal import DBToolLZ4

/// LZ4's block format, in which LTX files store page data: the only code
/// that calls liblz4. Blocks carry no size of their own; an LTX frame
/// stores the compressed size before the block, and a page's size is the
/// file's page size.
enum LZ4Block {
    /// A block liblz4 could not compress or decompress.
    struct Failure: Error, Equatable {
        /// What failed, for messages.
        let reason: String
    }

    /// The largest size a compressed block of `count` bytes can have.
    static func maximumCompressedSize(of count: Int) -> Int {
        Int(LZ4_compressBound(Int32(clamping: count)))
    }

    /// Compresses `source` into `destination`, which holds at least
    /// ``maximumCompressedSize(of:)`` bytes, and returns the compressed size.
    static func compress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        guard source.count <= Int(LZ4_MAX_INPUT_SIZE), let input = source.baseAddress, let output = destination.baseAddress else {
            if source.isEmpty { return 0 }
            throw Failure(reason: "an input of \(source.count) bytes can not be compressed")
        }
        let written = LZ4_compress_default(
            input.assumingMemoryBound(to: CChar.self), output.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(clamping: destination.count))
        guard written > 0 else { throw Failure(reason: "the output buffer of \(destination.count) bytes is too small") }
        return Int(written)
    }

    /// Decompresses `source` into `destination`, which it must fill exactly:
    /// a block that decodes to another size, or that is malformed, throws.
    /// liblz4's safe decoder never reads or writes out of either buffer,
    /// whatever the input.
    static func decompress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) throws(Failure) {
        guard let input = source.baseAddress, let output = destination.baseAddress, source.count <= Int(Int32.max),
            destination.count <= Int(Int32.max)
        else {
            throw Failure(reason: "an empty or oversized block")
        }
        let decoded = LZ4_decompress_safe(
            input.assumingMemoryBound(to: CChar.self), output.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(destination.count))
        guard decoded >= 0 else { throw Failure(reason: "a malformed LZ4 block") }
        guard Int(decoded) == destination.count else {
            throw Failure(reason: "a block of \(decoded) bytes where \(destination.count) were expected")
        }
    }
}
