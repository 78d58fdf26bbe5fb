import FoundationEssentials

/// SQL read from a file or a stream (`exec --file`, stdin, migration
/// files): UTF-8 text without a NUL byte. SQLite reads SQL up to its first
/// NUL byte and ignores the rest without a word, so a NUL would silently
/// cut a script (and a migration would be recorded as applied with half
/// of it run): it is refused before anything runs.
enum SQLText {
    /// The text of `bytes`, read from `source` (a path, "the standard input").
    ///
    /// - throws: ``DBToolError`` 65 naming the source, and the offset and
    ///   line of a NUL byte; `notUTF8` for another encoding.
    static func decode(_ bytes: [UInt8], source: String, notUTF8: () -> DBToolError) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw notUTF8() }
        if let offset = bytes.firstIndex(of: 0) {
            let line = bytes[..<offset].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw DBToolError(
                .dataError, "\(source) holds a NUL byte at byte offset \(offset) (line \(line)): SQLite would stop reading the SQL there; nothing was run",
                hint: "Remove the NUL byte (is it a binary file?).")
        }
        return text
    }

    /// The SQL of the regular file at `path`.
    ///
    /// - throws: ``DBToolError``: 66 missing, 77 unreadable, 65 a FIFO or a
    ///   device, not UTF-8, or with a NUL byte.
    static func read(file path: String, notUTF8: () -> DBToolError) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.contents(path)
        } catch let error as FileSystemError {
            throw error.reported(hint: error.errno.isPermissionDenied ? "Check its permissions." : nil)
        }
        return try decode(bytes, source: path, notUTF8: notUTF8)
    }
}
