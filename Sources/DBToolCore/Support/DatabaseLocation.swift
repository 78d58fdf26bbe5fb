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

    /// The name of this database among others: the folder of its archives
    /// and snapshots when a command runs over a fleet. Its directory's path
    /// with the slashes made dashes (`/srv/tenants/acme/db` is
    /// `srv-tenants-acme-db`), and the file's name when the path named a file.
    public var fleetName: String {
        let directory = String(directoryPath.drop { $0 == "/" }.map { $0 == "/" ? "-" : $0 })
        return namesDirectory ? directory : directory + "-" + LocalPath.name(of: filePath)
    }

    /// Resolves `path`: a directory means the file inside it; anything else
    /// is the file itself.
    ///
    /// - throws: ``DBToolError`` 64 for an empty path, or a `fileName` that
    ///   is not one file name.
    public init(path: String, fileName: String = DatabaseLocation.defaultFileName) throws {
        let path = try LocalPath.resolve(path, what: "--database")
        try LocalPath.checkFileName(fileName, what: "--file-name")
        if FileSystem.isDirectory(path) {
            directoryPath = path
            filePath = path == "/" ? "/" + fileName : path + "/" + fileName
            namesDirectory = true
        } else {
            filePath = path
            directoryPath = LocalPath.parent(of: path)
            namesDirectory = false
        }
    }

    /// The file of this database (the database, its WAL, SHM or journal)
    /// that `path` names, links resolved, or that `path` is a hard link of;
    /// nil when it names none of them. How outputs are kept off the
    /// database: a copy written there would destroy it.
    public func ownFile(matching path: String) -> String? {
        let own = DatabaseFiles.suffixes.map { filePath + $0 }
        let resolved = Self.resolved(path)
        if let match = own.first(where: { Self.resolved($0) == resolved }) { return match }
        guard let target = (try? FileSystem.status(path)) ?? nil else { return nil }
        return own.first { ((try? FileSystem.status($0)) ?? nil)?.identity == target.identity }
    }

    /// `path` with its links resolved: the whole path when it exists, else
    /// its folder's, and its name.
    private static func resolved(_ path: String) -> String {
        LocalPath.resolvingLinks(path)
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
