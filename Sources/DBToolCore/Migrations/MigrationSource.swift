import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a migration's text is: its file, read again in chunks each time it
/// is needed (a migration may be hundreds of megabytes, and is never held
/// whole), or text given in memory.
enum MigrationSource: Sendable, Equatable {
    case file(String)
    case text([UInt8])

    /// The size of the chunks read from a file.
    static let chunkSize = 1 << 20

    /// Calls `body` with the text in order, in chunks of at most about
    /// `chunkSize` bytes: CRLF and CR line endings made LF, checked to be
    /// UTF-8 without a NUL byte (SQLite would stop reading at a NUL).
    ///
    /// - throws: ``DBToolError`` 65 naming `path`: not UTF-8, or a NUL byte
    ///   (with its offset and line); the errors of reading the file.
    func forEachChunk(
        path: String, chunkSize: Int = MigrationSource.chunkSize, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        var carry: [UInt8] = []  // an incomplete UTF-8 sequence at the end of the previous chunk
        var endsWithCR = false
        var offset = 0
        var normalized: [UInt8] = []
        // Reads the text of a chunk, up to the last whole UTF-8 sequence.
        func read(_ all: UnsafeBufferPointer<UInt8>, isLast: Bool) throws {
            let cut = isLast ? all.count : Self.completeUTF8Prefix(all)
            carry = Array(all[cut...])
            let text = UnsafeBufferPointer(rebasing: all[..<cut])
            guard String(validating: text, as: UTF8.self) != nil else {
                throw DBToolError(.dataError, "\(path) is not UTF-8 text", hint: "Save the file as UTF-8.")
            }
            if let base = text.baseAddress, let nul = memchr(base, 0, text.count) {
                try throwNUL(at: offset + (UnsafeRawPointer(nul) - UnsafeRawPointer(base)), path: path)
            }
            offset += cut
            guard let base = text.baseAddress, endsWithCR || memchr(base, Int32(UInt8(ascii: "\r")), text.count) != nil else {
                try body(text)
                return
            }
            normalized.removeAll(keepingCapacity: true)
            for byte in text {
                if byte == UInt8(ascii: "\n") && endsWithCR {
                    endsWithCR = false
                    continue
                }
                endsWithCR = byte == UInt8(ascii: "\r")
                normalized.append(endsWithCR ? UInt8(ascii: "\n") : byte)
            }
            try normalized.withUnsafeBufferPointer { try body($0) }
        }
        try forEachRawChunk(chunkSize: chunkSize) { raw, isLast in
            // A sequence cut by the end of the last chunk is rare: only then
            // is a chunk copied, to join its start.
            guard !carry.isEmpty else { return try read(raw, isLast: isLast) }
            try (carry + raw).withUnsafeBufferPointer { try read($0, isLast: isLast) }
        }
    }

    /// The length of the longest prefix of `bytes` that does not end inside
    /// a UTF-8 sequence (the rest comes with the next chunk).
    private static func completeUTF8Prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = bytes.count
        while index > max(0, bytes.count - 3) {
            index -= 1
            let byte = bytes[index]
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return index + length > bytes.count ? index : bytes.count
        }
        return bytes.count
    }

    /// Throws the NUL byte's error, with its line (counted again from the
    /// start: only on this error).
    private func throwNUL(at offset: Int, path: String) throws -> Never {
        var line = 1
        var seen = 0
        try forEachRawChunk(chunkSize: Self.chunkSize) { raw, _ in
            for byte in raw.prefix(max(0, offset - seen)) where byte == UInt8(ascii: "\n") { line += 1 }
            seen += raw.count
        }
        throw DBToolError(
            .dataError,
            "\(path) holds a NUL byte at byte offset \(offset) (line \(line)): SQLite would stop reading the SQL there; nothing was run",
            hint: "Remove the NUL byte (is it a binary file?).")
    }

    /// The bytes as stored, in chunks; `isLast` is true for the last one
    /// (which may be empty).
    private func forEachRawChunk(chunkSize: Int, _ body: (UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws -> Void) throws {
        switch self {
        case .text(let bytes):
            try bytes.withUnsafeBufferPointer { all in
                var start = 0
                repeat {
                    let end = min(start + chunkSize, all.count)
                    try body(UnsafeBufferPointer(rebasing: all[start..<end]), end == all.count)
                    start = end
                } while start < all.count
            }
        case .file(let path):
            let descriptor: FileDescriptor
            do {
                (descriptor, _) = try FileDescriptor.openRegularFile(path)
            } catch let error as FileSystemError {
                throw error.reported(hint: error.errno.isPermissionDenied ? "Check its permissions." : nil)
            }
            defer { descriptor.close() }
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
            defer { buffer.deallocate() }
            while true {
                let count: Int
                do {
                    count = try descriptor.read(into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    throw error.reported(hint: nil)
                }
                try body(UnsafeBufferPointer(rebasing: buffer[..<count]), count == 0)
                if count == 0 { return }
            }
        }
    }
}
