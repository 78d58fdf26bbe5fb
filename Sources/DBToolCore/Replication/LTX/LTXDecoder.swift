/// Reads one LTX file from a byte source, page by page, in memory
/// proportional to one page, and checks it whole: every frame decompresses
/// to one page, the page index matches the frames, and the file checksum
/// matches. Nothing read is trustworthy until ``nextPage(into:)`` has
/// returned nil without throwing.
struct LTXDecoder {
    /// Fills the buffer from the start and returns how many bytes it read; 0 at the end.
    typealias Source = (UnsafeMutableRawBufferPointer) throws -> Int

    /// The file's header.
    let header: LTXHeader
    /// The database checksum once the file is applied (after the last page).
    private(set) var postApplyChecksum = LTXChecksum.zero
    /// The file checksum the trailer records (after the last page).
    private(set) var fileChecksum = LTXChecksum.zero
    /// The XOR of the read pages' checksums: a snapshot's database checksum.
    private(set) var pagesChecksum = LTXChecksum.zero
    /// The checksum of the page ``nextPage(into:)`` returned last.
    private(set) var pageChecksum = LTXChecksum.zero

    private var reader: BufferedReader
    private var checksum = CRC64()
    private var offset = 0
    private var expectedIndex: [UInt8] = []
    private var lastPage: UInt32 = 0
    private var compressed: [UInt8]
    private var ended = false
    /// A page of zeros for the checksums: see ``CRC64/register(of:)``.
    private let pageRun: CRC64ZeroRun

    /// Reads and validates the header.
    init(from source: @escaping Source) throws {
        reader = BufferedReader(source: source)
        let bytes = try reader.read(LTXHeader.size)
        header = try bytes.withUnsafeBytes { try LTXHeader(decoding: $0) }
        checksum.update(bytes)
        offset = bytes.count
        compressed = [UInt8](repeating: 0, count: LZ4Block.maximumCompressedSize(of: Int(header.pageSize)))
        pageRun = CRC64ZeroRun.page(header.pageSize)
    }

    /// Decompresses the next page into `page` (the header's page size) and
    /// returns its number; nil after the last page, once the index, the
    /// trailer and the file checksum are checked.
    mutating func nextPage(into page: UnsafeMutableRawBufferPointer) throws -> UInt32? {
        guard !ended else { return nil }
        let frameHeader = try reader.read(6)
        let number: UInt32 = frameHeader.withUnsafeBytes { $0.bigEndian(at: 0) }
        let flags: UInt16 = frameHeader.withUnsafeBytes { $0.bigEndian(at: 4) }
        checksum.update(frameHeader)
        if number == 0 {
            guard flags == 0 else { throw LTXError.malformed("the end of the pages has flags \(flags)") }
            try finish()
            return nil
        }
        guard flags == 1 else {
            throw LTXError.malformed("page \(number) has frame flags \(flags), not a sized LZ4 block")
        }
        guard number > lastPage, number <= header.commit, number != header.lockPage else {
            throw LTXError.malformed("page \(number) is out of order, past the database's \(header.commit) pages, or the lock page")
        }
        if header.isSnapshot {
            let expected = lastPage + 1 == header.lockPage ? lastPage + 2 : lastPage + 1
            guard number == expected else { throw LTXError.malformed("the snapshot lacks page \(expected)") }
        }
        guard page.count == Int(header.pageSize) else { throw LTXError.misuse("a page buffer of \(page.count) bytes") }
        let sizeField = try reader.read(4)
        checksum.update(sizeField)
        let size = Int(sizeField.withUnsafeBytes { $0.bigEndian(at: 0) as UInt32 })
        guard size > 0, size <= compressed.count else { throw LTXError.malformed("page \(number) has a block of \(size) bytes") }
        try reader.read(size, into: &compressed)
        do {
            try compressed.withUnsafeBytes { try LZ4Block.decompress(UnsafeRawBufferPointer(rebasing: $0[..<size]), into: page) }
        } catch let failure as LZ4Block.Failure {
            throw LTXError.malformed("page \(number): \(failure.reason)")
        }
        // One pass over the page serves the file's checksum and the page's.
        let dataRegister = CRC64.register(of: UnsafeRawBufferPointer(page))
        checksum.append(register: dataRegister, after: pageRun)
        pageChecksum = .page(number, dataRegister: dataRegister, run: pageRun)
        pagesChecksum = pagesChecksum.toggling(pageChecksum)
        let frameSize = 10 + size
        expectedIndex.appendVarint(UInt64(number))
        expectedIndex.appendVarint(UInt64(offset))
        expectedIndex.appendVarint(UInt64(frameSize))
        offset += frameSize
        lastPage = number
        return number
    }

    /// Checks the index, the trailer and the file checksum.
    private mutating func finish() throws {
        ended = true
        if header.isSnapshot {
            let expected = lastPage + 1 == header.lockPage ? lastPage + 2 : lastPage + 1
            guard expected > header.commit else { throw LTXError.malformed("the snapshot lacks pages from \(expected)") }
        }
        expectedIndex.append(0)
        let index = try reader.read(expectedIndex.count + 8)
        guard Array(index[..<expectedIndex.count]) == expectedIndex,
            index.withUnsafeBytes({ $0.bigEndian(at: expectedIndex.count) as UInt64 }) == UInt64(expectedIndex.count)
        else {
            throw LTXError.malformed("the page index does not match the pages")
        }
        checksum.update(index)
        let trailer = try reader.read(16)
        checksum.update(Array(trailer[..<8]))
        postApplyChecksum = LTXChecksum(rawValue: trailer.withUnsafeBytes { $0.bigEndian(at: 0) })
        fileChecksum = LTXChecksum(rawValue: trailer.withUnsafeBytes { $0.bigEndian(at: 8) })
        let computed = LTXChecksum(rawValue: LTXChecksum.flag | checksum.value)
        guard computed == fileChecksum else { throw LTXError.checksumMismatch(stored: fileChecksum, computed: computed) }
        guard header.tracksChecksum ? postApplyChecksum.isFlagged : postApplyChecksum == .zero else {
            throw LTXError.malformed("the post-apply checksum \(postApplyChecksum) does not match the header's checksum tracking")
        }
        if header.isSnapshot, header.tracksChecksum, postApplyChecksum != pagesChecksum {
            throw LTXError.malformed("the snapshot's database checksum is \(postApplyChecksum), its pages make \(pagesChecksum)")
        }
        var extra = [UInt8](repeating: 0, count: 1)
        guard try reader.readAvailable(into: &extra) == 0 else { throw LTXError.malformed("bytes follow the trailer") }
    }
}

/// Reads exact counts of bytes from a source through one buffer.
private struct BufferedReader {
    let source: LTXDecoder.Source
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0

    init(source: @escaping LTXDecoder.Source) {
        self.source = source
    }

    /// The next `count` bytes; throws ``LTXError/truncated`` at an early end.
    mutating func read(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try read(count, into: &bytes)
        return bytes
    }

    /// Reads the next `count` bytes into the start of `bytes`.
    mutating func read(_ count: Int, into bytes: inout [UInt8]) throws {
        var filled = 0
        while filled < count {
            if start == end {
                guard try refill() > 0 else { throw LTXError.truncated }
            }
            let chunk = min(count - filled, end - start)
            bytes.withUnsafeMutableBytes { destination in
                buffer.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: destination[filled..<(filled + chunk)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + chunk)]))
                }
            }
            start += chunk
            filled += chunk
        }
    }

    /// Reads what is left, up to `bytes.count`; 0 at the end.
    mutating func readAvailable(into bytes: inout [UInt8]) throws -> Int {
        if start == end, try refill() == 0 { return 0 }
        let chunk = min(bytes.count, end - start)
        for index in 0..<chunk { bytes[index] = buffer[start + index] }
        start += chunk
        return chunk
    }

    private mutating func refill() throws -> Int {
        let count = try buffer.withUnsafeMutableBytes { try source($0) }
        start = 0
        end = count
        return count
    }
}
