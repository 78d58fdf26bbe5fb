#if canImport(Glibc)
    import Glibc
#endif

/// The command line and the environment as bytes, before Swift makes them
/// strings: a byte sequence that is not UTF-8 would become U+FFFD, and a
/// path made of it would address another file (`$'\xff'prod` would be
/// `\u{FFFD}prod`). dbtool refuses such an argument (64, its bytes shown
/// escaped) rather than use another path than the one given.
public enum ArgumentBytes {
    /// The variables dbtool reads paths from.
    static let pathVariables = ["DBTOOL_DATABASE", "DBTOOL_MIGRATIONS", "DBTOOL_MIGRATE_SNAPSHOT"]

    /// The arguments after the program's name, each as given.
    ///
    /// - throws: ``DBToolError`` 64 for an argument, or a variable dbtool
    ///   reads a path from, that is not UTF-8.
    public static func arguments() throws -> [String] {
        var arguments: [String] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw notText("argument \(index) (\(escapedFileName(bytes)))")
            }
            arguments.append(text)
        }
        for name in pathVariables {
            guard let pointer = getenv(name) else { continue }
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            if String(validating: bytes, as: UTF8.self) == nil { throw notText("$\(name) (\(escapedFileName(bytes)))") }
        }
        return arguments
    }

    private static func notText(_ what: String) -> DBToolError {
        DBToolError(
            .usage, "\(what) is not UTF-8 text: dbtool would not address the path as given; nothing was done",
            hint: "Rename the file or directory to a UTF-8 name (convmv does it), or give another path.")
    }
}
