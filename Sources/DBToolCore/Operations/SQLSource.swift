/// Where `dbtool exec` reads its SQL: the argument, a file, or the standard input.
public enum SQLSource: Sendable, Equatable {
    /// SQL given on the command line.
    case text(String)
    /// A file of SQL (`--file`), which must be UTF-8.
    case file(String)
    /// The standard input, read to its end.
    case standardInput

    /// The SQL.
    ///
    /// - throws: ``DBToolError``: 66 when the file is missing or is a
    ///   directory, 77 when it can not be read, 65 when it is not UTF-8 or
    ///   holds a NUL byte (see `SQLText`).
    public func read() throws -> String {
        switch self {
        case .text(let sql):
            return sql
        case .standardInput:
            return try SQLText.decode(try FileDescriptor.standardInput.readToEnd(), source: "the standard input") {
                DBToolError(.dataError, "the standard input is not UTF-8 text")
            }
        case .file(let path):
            guard let info = try FileSystem.status(path) else { throw DBToolError(.noInput, "no SQL file at \(path)") }
            guard info.kind != .directory else {
                throw DBToolError(.noInput, "\(path) is a directory, not a SQL file", hint: "Check --file.")
            }
            return try SQLText.read(file: path) { DBToolError(.dataError, "\(path) is not readable UTF-8 text") }
        }
    }
}
