/// The fields of an SQLite database file's 100-byte header that `check`
/// compares with the file itself, read from the file before SQLite opens it:
/// a file cut short makes SQLite fail before it can say why.
struct DatabaseFileHeader {
    /// Bytes per page (the header's 1 means 65536).
    var pageSize: Int
    /// The "in-header database size" in pages, when valid: SQLite 3.7.0 and
    /// later keep it, and mark it valid by the version-valid-for number
    /// matching the change counter.
    var pageCount: Int?

    /// The header of the file at `path`; nil when it is shorter than a
    /// header or does not start with "SQLite format 3".
    static func read(_ path: String) -> DatabaseFileHeader? {
        guard let (file, _) = try? FileDescriptor.openRegularFile(path) else { return nil }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: 100)
        var filled = 0
        while filled < bytes.count {
            let count =
                (try? bytes.withUnsafeMutableBytes { buffer in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }) ?? 0
            if count == 0 { break }
            filled += count
        }
        guard filled == bytes.count, bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        func integer(_ offset: Int, _ length: Int) -> Int { bytes[offset..<offset + length].reduce(0) { $0 << 8 | Int($1) } }
        let rawPageSize = integer(16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let valid = integer(92, 4) == integer(24, 4) && integer(28, 4) > 0
        return DatabaseFileHeader(pageSize: pageSize, pageCount: valid ? integer(28, 4) : nil)
    }

    /// What is wrong between this header and a file of `fileSize` bytes whose
    /// WAL is empty (a WAL may hold pages past the file's end): nothing, or
    /// one sentence.
    func problem(fileSize: Int64) -> String? {
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            return "the header's page size \(pageSize) is not a power of two from 512 to 65536: the header is damaged"
        }
        if let pageCount, fileSize < Int64(pageCount) * Int64(pageSize) {
            return
                "the file holds \(fileSize) bytes where its header counts \(pageCount) pages of \(pageSize) bytes: it was truncated, or its header is wrong"
        }
        if fileSize % Int64(pageSize) != 0 {
            return "the file holds \(fileSize) bytes, not a whole number of \(pageSize)-byte pages: it was truncated or extended"
        }
        return nil
    }
}
