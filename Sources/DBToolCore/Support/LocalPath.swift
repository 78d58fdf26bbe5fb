import FoundationEssentials

/// A path given by a user (an argument, an option, a variable), made
/// absolute: the one place where dbtool turns what was typed into a path.
///
/// An empty path is refused: Foundation reads it as the working directory,
/// so that `restore ARCHIVE ""` would replace the directory the operator
/// stands in.
public enum LocalPath {
    /// `path`, absolute (relative to the working directory) and standardized
    /// (`.`, `..` and repeated `/` removed; links are not resolved).
    ///
    /// - parameters:
    ///   - path: The path as given.
    ///   - what: What the path is, for the error: `--database`, `DIR`.
    /// - throws: ``DBToolError`` 64 for an empty path, or one with a NUL byte.
    public static func resolve(_ path: String, what: String) throws -> String {
        try check(path, what: what)
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Throws 64 for an empty path, or one with a NUL byte (which the system
    /// would cut short).
    public static func check(_ path: String, what: String) throws {
        if path.isEmpty {
            throw DBToolError(.usage, "\(what) is an empty path", hint: "Give a path; write . for the working directory.")
        }
        if path.utf8.contains(0) {
            throw DBToolError(.usage, "\(what) holds a NUL byte: \(String(reflecting: path))")
        }
    }

    /// Throws 64 unless `name` is one file name: not empty, no `/`, not `.`
    /// or `..` (`--file-name`).
    public static func checkFileName(_ name: String, what: String) throws {
        guard DirectoryDescriptor.isPlainName(name) else {
            throw DBToolError(
                .usage, "\(what) must be a file name, without a directory (got \(String(reflecting: name)))",
                hint: "Give the directory with --database, and the file's name here.")
        }
    }

    /// `path` with the links of its existing part resolved: the longest
    /// existing ancestor through `realpath`, then the rest as written.
    static func resolvingLinks(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while existing != "/" {
            if let resolved = FileSystem.resolvingLinks(existing) {
                return rest.isEmpty ? resolved : (resolved == "/" ? "" : resolved) + "/" + rest.reversed().joined(separator: "/")
            }
            rest.append(name(of: existing))
            existing = parent(of: existing)
        }
        return path
    }

    /// The directory that holds `path` (an absolute, standardized path).
    static func parent(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }
}
