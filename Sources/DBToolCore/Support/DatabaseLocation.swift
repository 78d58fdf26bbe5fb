import Crypto
import DatabaseKit
import FoundationEssentials

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
    /// The name of the database file inside a directory (`--file-name`).
    public let fileName: String

    /// The name of this database among others: the folder of its archives
    /// and snapshots when a command runs over a fleet. Its directory's path
    /// with the slashes made dashes (`/srv/tenants/acme/db` is
    /// `srv-tenants-acme-db`), and the file's name when the path named a file.
    ///
    /// Distinct databases get distinct names: a path that holds a `-` or a
    /// `~` (`/x/a-b/db` and `/x/a/b/db` would both read `x-a-b-db`), or
    /// whose name would pass 200 bytes, is followed by `~` and 12 hex digits
    /// of the SHA-256 of its path; names without `~` come from paths
    /// without `-`, whose dashes are their slashes.
    public var fleetName: String {
        let source = namesDirectory ? directoryPath : filePath
        let readable = String(source.drop { $0 == "/" }.map { $0 == "/" ? "-" : $0 })
        let limit = 200
        guard source.contains("-") || source.contains("~") || readable.utf8.count > limit else { return readable }
        let digest = String(SHA256.hash(data: Data(source.utf8)).hexString.prefix(12))
        var kept = ""
        for character in readable where kept.utf8.count + character.utf8.count <= limit { kept.append(character) }
        return kept + "~" + digest
    }

    /// Resolves `path`: a directory means the file inside it; anything else
    /// is the file itself.
    ///
    /// - throws: ``DBToolError`` 64 for an empty path, or a `fileName` that
    ///   is not one file name.
    /// The file this location may have named in earlier runs when nothing is
    /// at its path now: a database directory that is gone named the file
    /// inside it. Metrics keep the label the database had.
    public var formerFilePaths: [String] {
        namesDirectory || FileSystem.exists(filePath) ? [] : [filePath + "/" + fileName]
    }

    public init(path: String, fileName: String = DatabaseLocation.defaultFileName) throws {
        let path = try LocalPath.resolve(path, what: "--database")
        try LocalPath.checkFileName(fileName, what: "--file-name")
        self.fileName = fileName
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

    /// Throws unless the database file exists and is a regular file, as are
    /// its WAL, WAL index and journal when they exist: a connection would
    /// create a missing file, and SQLite's `open(2)` of a FIFO planted
    /// there would block forever (SQLite retries it through signals).
    ///
    /// - throws: ``DBToolError`` 66 when there is no database; 65 when it,
    ///   or a companion, is a FIFO, a device, a socket or a directory; 77
    ///   when a directory on the way may not be entered.
    public func checkExists() throws {
        let info: FileStatus?
        do {
            info = try FileSystem.status(filePath)
        } catch {
            throw error.errno.isPermissionDenied ? Self.deniedEntry(to: filePath) : error.reported()
        }
        guard let info else {
            throw DBToolError(.noInput, "no database at \(filePath)", hint: "Create it with `dbtool init DIR`, or check --database.")
        }
        if info.kind == .directory {
            throw DBToolError(.noInput, "\(filePath) is a directory, not a database file", hint: "Check --database and --file-name.")
        }
        for suffix in DatabaseFiles.suffixes {
            let path = filePath + suffix
            guard let found = (try? FileSystem.status(path)) ?? nil, found.kind != .regular else { continue }
            throw DBToolError(
                .dataError,
                "\(path) is \(found.kind.description), not \(suffix.isEmpty ? "a database file" : "the database's \(suffix.dropFirst()) file"); nothing was opened",
                hint: "Check what put it there.")
        }
    }

    /// The error for a path under a directory this user may not enter: 77,
    /// naming the directory and the user.
    static func deniedEntry(to path: String) -> DBToolError {
        // The first directory from the root that may not be looked into.
        var directory = LocalPath.parent(of: path)
        var reached = ""
        for component in path.split(separator: "/").dropLast() {
            reached += "/" + component
            if FileSystem.isSearchable(reached) == false {
                directory = reached
                break
            }
        }
        let user = SystemProcess.userName
        return DBToolError(
            .noPermission, "permission denied: user \(user) may not enter the directory \(directory), which holds \(path)",
            hint: "Run dbtool as the database's owner, or give \(user) access to \(directory) (dbtool creates directories 0700).")
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
