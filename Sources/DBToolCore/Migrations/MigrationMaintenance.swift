import DatabaseKit
import FoundationEssentials

/// The other `dbtool migrate` operations: status, rollback, repair, baseline, new.
public struct MigrationMaintenance: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    public var migrationsPath: String

    public init(database: DatabaseHandle, migrationsPath: String) {
        self.database = database
        self.migrationsPath = migrationsPath
    }

    /// Receives notices as they arise (skipped files, foreign key
    /// violations that were there before).
    public var notice: @Sendable (String) -> Void = { _ in }

    public struct StatusReport: Codable, Sendable, Equatable {
        public var database: String
        public var migrations: [MigrationState.Entry]
        /// Pending migrations, out-of-order ones included.
        public var pendingCount: Int
        /// Applied migrations whose file changed since.
        public var modifiedCount: Int
        /// Applied migrations whose file is gone.
        public var missingCount: Int
        /// Pending migrations older than the newest applied one.
        public var outOfOrderCount: Int
        /// Another tool's history, when dbtool has none yet (`migrate adopt` records it).
        public var otherTool: ForeignMigrationHistory?
        /// Entries of the migrations directory that are not migrations.
        public var skippedFiles: [String]

        /// What `migrate status --exit-code` exits with: 0 when there is
        /// nothing to do, 1 when `migrate` would apply pending migrations,
        /// 3 when it would refuse (drift: a modified or missing file, a
        /// pending file out of order, another tool's history not adopted).
        public func exitCode(allowOutOfOrder: Bool) -> Int32 {
            if modifiedCount > 0 || missingCount > 0 || otherTool != nil || (outOfOrderCount > 0 && !allowOutOfOrder) {
                return MigrationMaintenance.driftExitCode
            }
            return pendingCount > 0 ? 1 : 0
        }
    }

    /// The exit status of `migrate status --exit-code` when `migrate` would refuse.
    public static let driftExitCode: Int32 = 3

    /// `migrate status`: every version with its state. Changes nothing.
    ///
    /// Not a read-only connection: one on a WAL database leaves `-wal` and
    /// `-shm` files behind; a read access on a read-write connection writes
    /// nothing and the files go when it closes. Where dbtool may not write,
    /// the database is read as it is (``DatabaseHandle/openForReading(readonly:)``).
    public func status() throws -> StatusReport {
        let directory = try loadDirectory()
        let dbQueue = try database.openForReading(readonly: false)
        let state = try database.reportingErrors {
            try dbQueue.read { db in try MigrationState.load(db, directory: directory) }
        }
        let entries = state.entries
        func count(_ statuses: MigrationState.Status...) -> Int { entries.filter { statuses.contains($0.status) }.count }
        return StatusReport(
            database: database.location.filePath, migrations: entries, pendingCount: count(.pending, .outOfOrder),
            modifiedCount: count(.modified), missingCount: count(.missing), outOfOrderCount: count(.outOfOrder),
            otherTool: state.foreignHistory, skippedFiles: directory.skipped)
    }

    /// `migrate rollback --steps N`: reverts the newest N applied migrations,
    /// refusing before anything runs when one has no down section.
    ///
    /// - throws: ``MigrationFailure`` when one fails after others were rolled back.
    public func rollback(steps: Int) throws -> MigrateOperation.Report {
        try underLock { db, state, directory in
            let newest = Array(state.records.map(\.version).sorted(by: >).prefix(steps))
            let fileByVersion = Dictionary(state.files.map { ($0.version, $0) }) { first, _ in first }
            let files = try newest.map { version -> MigrationFile in
                guard let file = fileByVersion[version] else {
                    throw DBToolError(
                        .dataError, "migration \(version) is applied, but its file is missing: it can not be rolled back",
                        hint: "Restore the file.")
                }
                return file
            }
            try checkReversible(files)
            var execution = MigrationExecution(database: database, notice: notice)
            execution.warnings = directory.skippedNotice.map { [$0] } ?? []
            return try execution.run(files.map { ($0, .down) }, in: db)
        }
    }

    /// `migrate adopt`: records the history of the tool that migrated the
    /// database before (goose, golang-migrate, dbmate) as dbtool's, with the
    /// checksums of the files, running nothing. The other tool's table is
    /// left as it was.
    public func adopt() throws -> [MigrationsTable.Record] {
        try underLock { db, state in
            guard state.records.isEmpty else {
                throw DBToolError(
                    .dataError, "the database already has dbtool's migration history: there is nothing to adopt",
                    hint: "See `dbtool migrate status`.")
            }
            guard let history = state.foreignHistory else {
                throw DBToolError(
                    .dataError,
                    "the database has no history of goose (goose_db_version), golang-migrate or dbmate (schema_migrations) to adopt",
                    hint: "For a database migrated some other way, record it with `dbtool migrate baseline VERSION`.")
            }
            if history.dirty {
                throw DBToolError(
                    .dataError,
                    "\(history.description) marks version \(history.version.map(String.init) ?? "?") dirty: it failed midway, and the database may be half-migrated",
                    hint: "Check that migration's changes by hand, fix the database, clear the flag (`UPDATE schema_migrations SET dirty = 0`), then adopt.")
            }
            let fileByVersion = Dictionary(state.files.map { ($0.version, $0) }) { first, _ in first }
            let withoutFile = history.appliedVersions.filter { fileByVersion[$0] == nil }
            guard withoutFile.isEmpty else {
                throw DBToolError(
                    .dataError,
                    "\(history.description) records versions that have no file in \(migrationsPath): \(withoutFile.map(String.init).joined(separator: ", "))",
                    hint: "Restore those files (migrations that ran must stay), then adopt.")
            }
            try db.inTransaction(.immediate) {
                try MigrationsTable(files: []).prepare(db)
                for version in history.appliedVersions {
                    if let file = fileByVersion[version] { try MigrationsTable.insert(file, durationMs: 0, baseline: true, in: db) }
                }
                return .commit
            }
            return try MigrationsTable.records(db)
        }
    }

    /// `migrate repair VERSION`: records the current checksum of an edited,
    /// applied file, keeping the previous one and the time (audit).
    public func repair(version: UInt64) throws -> MigrationsTable.Record {
        try underLock { db, state in
            guard state.records.contains(where: { $0.version == version }) else {
                throw DBToolError(
                    .dataError, "migration \(version) is not applied: there is nothing to repair", hint: "See `dbtool migrate status`.")
            }
            guard let file = state.files.first(where: { $0.version == version }) else {
                throw DBToolError(.noInput, "migration \(version) has no file in \(migrationsPath)", hint: "Restore the file first.")
            }
            try db.inTransaction(.immediate) {
                try db.execute(
                    sql: "UPDATE \(MigrationsTable.name) SET previous_checksum = checksum, checksum = ?, repaired_at = ? WHERE version = ?",
                    arguments: [file.checksum, Date(), Int64(version)])
                return .commit
            }
            guard let record = try MigrationsTable.records(db).first(where: { $0.version == version }) else {
                throw DBToolError(.software, "migration \(version) vanished from \(MigrationsTable.name) during its repair")
            }
            return record
        }
    }

    /// `migrate baseline VERSION`: marks an existing database as migrated up
    /// to VERSION without running anything.
    public func baseline(version: UInt64) throws -> [MigrationsTable.Record] {
        try underLock { db, state in
            guard state.records.isEmpty else {
                throw DBToolError(
                    .dataError, "the database already has applied migrations: a baseline is only for a database that has none",
                    hint: "See `dbtool migrate status`.")
            }
            guard state.files.contains(where: { $0.version == version }) else {
                throw DBToolError(.usage, "no migration has the version \(version) in \(migrationsPath)")
            }
            try db.inTransaction(.immediate) {
                try MigrationsTable(files: []).prepare(db)
                for file in state.files where file.version <= version {
                    try MigrationsTable.insert(file, durationMs: 0, baseline: true, in: db)
                }
                return .commit
            }
            return try MigrationsTable.records(db)
        }
    }

    /// `migrate new NAME`: creates the next file, with up and down markers.
    /// Versions continue the directory's style: a UTC timestamp when the
    /// newest version is one, the next number with the same width otherwise.
    public static func newFile(in migrationsPath: String, name: String, now: Date = Date()) throws -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw DBToolError(.usage, "the name \(String(reflecting: name)) must be letters, digits and underscores, such as add_users")
        }
        let directory = try MigrationDirectory(path: migrationsPath)
        let versionText: String
        if let newest = directory.migrations.last, newest.versionText.count < 14 {
            let next = String(newest.version + 1)
            versionText = String(repeating: "0", count: max(0, newest.versionText.count - next.count)) + next
        } else if directory.migrations.isEmpty {
            versionText = "0001"
        } else {
            versionText = ISOTime.compact(now)
        }
        let path = URL(fileURLWithPath: migrationsPath).appendingPathComponent("\(versionText)_\(name).sql").path
        guard !FileSystem.exists(path) else {
            throw DBToolError(.cantCreate, "\(path) already exists")
        }
        let template = "-- migrate:up\n\n\n-- migrate:down\n\n"
        // Source code for the project's repository: readable by others, as
        // the files around it (never writable by them, whatever the umask).
        let descriptor = try createNewFile(path, mode: 0o644, what: "the migration file")
        defer { descriptor.close() }
        do {
            try descriptor.writeAll(Array(template.utf8))
        } catch {
            _ = try? FileSystem.remove(path)
            throw DBToolError(writeFailureStatus(error.errno), "can not write \(path): \(error.errno)")
        }
        return path
    }

    /// Loads the migrations directory, passing on its skipped-files notice.
    private func loadDirectory() throws -> MigrationDirectory {
        let directory = try MigrationDirectory(path: migrationsPath)
        if let skipped = directory.skippedNotice { notice(skipped) }
        return directory
    }

    private func underLock<T>(_ body: (Database, MigrationState) throws -> T) throws -> T {
        try underLock { db, state, _ in try body(db, state) }
    }

    private func underLock<T>(_ body: (Database, MigrationState, MigrationDirectory) throws -> T) throws -> T {
        let directory = try loadDirectory()
        return try database.withExclusiveLock(.migrate) { dbQueue in
            try dbQueue.writeWithoutTransaction { db in try body(db, try MigrationState.load(db, directory: directory), directory) }
        }
    }
}
