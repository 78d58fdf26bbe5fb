import DatabaseKit
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `dbtool init DIR`: a dedicated directory and an empty database in it.
public struct InitOperation: Sendable {
    /// The journal modes `init` can set.
    public enum JournalMode: String, Sendable, CaseIterable {
        case wal, delete
    }

    public var directory: String
    public var fileName = DatabaseLocation.defaultFileName
    public var journalMode: JournalMode = .wal
    /// The permissions of a created directory (default 0700: it holds the data).
    public var directoryMode: mode_t = 0o700
    /// A migrations directory to apply right after (`init --migrations`).
    public var migrationsPath: String?
    /// Receives the notices of those migrations as they arise.
    public var notice: @Sendable (String) -> Void = { _ in }

    public init(directory: String) {
        self.directory = directory
    }

    /// What `init` did.
    public struct Report: Codable, Sendable, Equatable {
        /// The directory.
        public var directory: String
        /// The database file.
        public var database: String
        /// False when the directory was already initialized (nothing changed).
        public var created: Bool
        /// The journal mode of the database.
        public var journalMode: String
        /// The migrations applied right after, with `migrationsPath`.
        public var migrate: MigrateOperation.Report?
    }

    /// Init succeeded, then a migration failed: what was done stays done.
    public struct Failure: PartialFailure {
        /// The init report, with the migrations done before the failure.
        public let report: Report
        public let error: DBToolError
        public var partialReport: any Encodable { report }
    }

    /// Creates the directory (and missing parents) and the database, or
    /// reports that they exist, then applies `migrationsPath`'s migrations.
    /// Refuses, changing nothing, when the path is a file, or holds a file of
    /// that name that is not a database, or when the migrations directory is
    /// missing or empty (checked first: a bad one must not leave a new
    /// database behind).
    ///
    /// - throws: ``DBToolError``, or ``Failure`` when a migration fails.
    public func run() throws -> Report {
        if let migrationsPath { try MigrationDirectory(path: migrationsPath).requireMigrations() }
        var report = try initialize()
        guard let migrationsPath else { return report }
        var migrate = MigrateOperation(database: DatabaseHandle(location: try DatabaseLocation(path: report.database)), migrationsPath: migrationsPath)
        migrate.notice = notice
        do {
            report.migrate = try migrate.run()
        } catch let failure as MigrationFailure {
            report.migrate = failure.report
            throw Failure(report: report, error: failure.error)
        }
        return report
    }

    private func initialize() throws -> Report {
        let directoryURL = URL(fileURLWithPath: directory).standardizedFileURL
        let databasePath = directoryURL.appendingPathComponent(fileName).path
        let directoryStatus = try FileSystem.status(directoryURL.path)
        let directoryExists = directoryStatus != nil
        if let directoryStatus, directoryStatus.kind != .directory {
            throw DBToolError(
                .cantCreate, "\(directoryURL.path) is a file, not a directory", hint: "Choose another path for the database directory.")
        }
        if directoryExists && FileSystem.exists(databasePath) {
            return try existingDatabase(directory: directoryURL.path, database: databasePath)
        }

        // Create what is missing, and remove it again if anything fails.
        var createdDirectories: [String] = []
        var createdDatabase = false
        do {
            if !directoryExists {
                createdDirectories = try createDirectories(directoryURL)
            }
            // Created here, empty: private whatever the umask (SQLite would
            // use 0644), never through a link; its WAL and SHM take its mode.
            try createNewFile(databasePath, what: "the database").close()
            createdDatabase = true
            let mode = try createDatabase(at: databasePath)
            // Created with the database: its backup series and replicas are attributed by it.
            _ = DatabaseIdentity.establish(try DatabaseLocation(path: databasePath))
            return Report(directory: directoryURL.path, database: databasePath, created: true, journalMode: mode)
        } catch {
            // Only what this run created: a file found in the way stays.
            if createdDatabase {
                removeDatabaseFiles(databasePath)
                _ = try? FileSystem.remove(DatabaseIdentity.path(for: try DatabaseLocation(path: databasePath)))
            }
            for path in createdDirectories.reversed() {
                FileSystem.removeTree(path)
            }
            throw error
        }
    }

    /// An initialized directory: check that its file is a database, and change
    /// nothing. The check reads the file's header instead of opening a
    /// connection, which would create -wal and -shm files beside a WAL database.
    private func existingDatabase(directory: String, database: String) throws -> Report {
        guard let header = sqliteHeader(database) else {
            throw DBToolError(
                .dataError, "\(database) exists and is not a SQLite database",
                hint: "Move it away, or choose another directory or --file-name.")
        }
        // Bytes 18 and 19 hold 2 in WAL mode, 1 with a rollback journal.
        let mode = header.count >= 20 && header[18] == 2 ? "wal" : "delete"
        // A database made before identities gets one, as a new database does.
        _ = DatabaseIdentity.establish(try DatabaseLocation(path: database))
        return Report(directory: directory, database: database, created: false, journalMode: mode)
    }

    /// Creates the directory and its missing parents; returns the created ones.
    private func createDirectories(_ url: URL) throws -> [String] {
        var missing: [URL] = []
        var current = url
        while !FileSystem.exists(current.path) {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        var created: [String] = []
        for directory in missing.reversed() {
            // chmod: the umask must not narrow (or widen) --mode.
            do {
                try FileSystem.createDirectory(directory.path, permissions: directoryMode)
            } catch where error.errno == .fileExists && (try? FileSystem.status(directory.path, followingLinks: false))??.kind == .directory {
                // Another init of the same fleet made it meanwhile (a shared
                // parent): it is a directory, not ours to remove on failure.
                continue
            } catch {
                for path in created.reversed() { FileSystem.removeTree(path) }
                throw DBToolError(
                    error.errno.isPermissionDenied ? .noPermission : .cantCreate,
                    "can not create the directory \(directory.path): \(error.errno)",
                    hint: "Check the permissions of \(directory.deletingLastPathComponent().path).")
            }
            created.append(directory.path)
        }
        return created
    }

    private func createDatabase(at path: String) throws -> String {
        try DatabaseLocation(path: path).reportingErrors {
            let dbQueue = try DatabaseQueue(path: path)
            let mode = try dbQueue.writeWithoutTransaction { db -> String in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = \(journalMode.rawValue.uppercased())") ?? "unknown"
                // Write the header now: a zero-byte file would not remember its mode.
                try db.execute(sql: "VACUUM")
                return mode
            }
            try dbQueue.close()
            return mode
        }
    }
}

/// The first 100 bytes of a SQLite database file (empty for an empty file,
/// which is a valid empty database), or nil when the file is not one (a
/// FIFO or a device is not read: it would hang).
/// See <https://www.sqlite.org/fileformat.html>.
func sqliteHeader(_ path: String) -> [UInt8]? {
    guard let (descriptor, _) = try? FileDescriptor.openRegularFile(path) else { return nil }
    defer { descriptor.close() }
    guard let header = try? descriptor.read(fromAbsoluteOffset: 0, count: 100) else { return nil }
    if header.isEmpty { return header }
    return header.starts(with: Array("SQLite format 3\u{0}".utf8)) ? header : nil
}
