import DatabaseKit
import Foundation

/// Where a database is: `--database PATH` names the dedicated directory that
/// `dbtool init` creates (the file inside it is `db.sqlite`, or `--file-name`),
/// or a database file directly.
public struct DatabaseLocation: Sendable, Equatable {
    /// The default name of the database file inside its directory.
    public static let defaultFileName = "db.sqlite"

    /// The longest `--timeout` dbtool accepts: one day, in seconds. Waits
    /// are computed with it, so it must stay far from the limits of the
    /// integer types (SQLite's busy timeout is an `Int32` of milliseconds).
    public static let maximumTimeout: TimeInterval = 86_400

    /// The database file.
    public let filePath: String
    /// The directory that holds the file.
    public let directoryPath: String
    /// True when the path named the directory (the layout of `dbtool init`),
    /// false when it named the file.
    public let namesDirectory: Bool

    /// Resolves `path`: a directory means the file inside it; anything else
    /// is the file itself.
    public init(path: String, fileName: String = DatabaseLocation.defaultFileName) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if FileSystem.isDirectory(url.path) {
            directoryPath = url.path
            filePath = url.appendingPathComponent(fileName).path
            namesDirectory = true
        } else {
            filePath = url.path
            directoryPath = url.deletingLastPathComponent().path
            namesDirectory = false
        }
    }

    /// Throws when the database file does not exist (a connection would create it).
    public func checkExists() throws {
        guard let info = try? FileSystem.status(filePath) else {
            throw DBToolError(.noInput, "no database at \(filePath)", hint: "Create it with `dbtool init DIR`, or check --database.")
        }
        if info.kind == .directory {
            throw DBToolError(.noInput, "\(filePath) is a directory, not a database file", hint: "Check --database and --file-name.")
        }
    }

    /// Runs `body`, turning database errors into dbtool errors about this
    /// database; a lock error names `timeout`, the wait that ran out.
    public func reportingErrors<T>(timeout: TimeInterval? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw DBToolError.database(error, path: filePath, timeout: timeout)
        }
    }
}
