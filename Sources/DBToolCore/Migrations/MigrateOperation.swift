import DatabaseKit
import Foundation

/// `dbtool migrate`: applies pending migrations (or moves to `--to VERSION`),
/// one transaction each, under a cross-process lock.
public struct MigrateOperation: Sendable {
    public var location: DatabaseLocation
    public var migrationsPath: String
    public var timeout: TimeInterval = 5
    /// Migrate up or down to this version.
    public var target: UInt64?
    /// Print what would run; change nothing.
    public var dryRun = false
    public var allowOutOfOrder = false
    /// Take a snapshot before the first migration that changes something.
    public var takesSnapshot = false

    public init(location: DatabaseLocation, migrationsPath: String) {
        self.location = location
        self.migrationsPath = migrationsPath
    }

    /// One migration that ran (or would run, in a dry run).
    public struct Step: Codable, Sendable, Equatable {
        public var version: UInt64
        public var name: String
        /// The file's name, as written in the migrations directory (`0001_log.sql`).
        public var file: String
        public var direction: String
        public var durationMs: Int64?
        /// The SQL, in a dry run.
        public var sql: String?
    }

    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var dryRun: Bool
        public var steps: [Step]
        /// The newest applied version afterwards (nil: none).
        public var version: UInt64?
        /// The snapshot taken before migrating, with `--snapshot`.
        public var snapshot: String? = nil
    }

    public func run() throws -> Report {
        let directory = try MigrationDirectory(path: migrationsPath)
        try directory.requireMigrations()
        try location.checkExists()
        // A dry run only reads: it takes no lock, so it leaves no lock file.
        let lock = dryRun ? nil : try ExclusiveLock(directory: location.directoryPath, purpose: .migrate, timeout: timeout)
        defer { withExtendedLifetime(lock) {} }
        let dbQueue = try location.openQueue(timeout: timeout)
        return try location.reportingErrors(timeout: timeout) {
            // Read under the lock: a run that waited sees what the other one did.
            let state = try dbQueue.read { db in try MigrationState.load(db, directory: directory) }
            try state.checkSafety(allowOutOfOrder: allowOutOfOrder)
            let (ups, downs) = try plan(state)
            var snapshot: String?
            if takesSnapshot && !dryRun && !(ups.isEmpty && downs.isEmpty) {
                snapshot = try MigrationSnapshots.take(location, timeout: timeout)
            }
            var report = try dbQueue.writeWithoutTransaction { db in try migrate(db, state, ups: ups, downs: downs) }
            report.snapshot = snapshot
            return report
        }
    }

    private func migrate(_ db: Database, _ state: MigrationState, ups: [MigrationFile], downs: [MigrationFile]) throws -> Report {
        var steps: [Step] = []
        if dryRun {
            steps += downs.map { Step(version: $0.version, name: $0.name, file: $0.fileName, direction: "down", sql: $0.down) }
            steps += ups.map { Step(version: $0.version, name: $0.name, file: $0.fileName, direction: "up", sql: $0.up) }
            return Report(database: location.filePath, dryRun: true, steps: steps, version: state.newestApplied)
        }
        for file in downs {
            let start = Date()
            try revert(file, in: db)
            steps.append(Step(version: file.version, name: file.name, file: file.fileName, direction: "down", durationMs: milliseconds(since: start)))
        }
        let runner = MigrationRunner(recorder: MigrationsTable(files: ups))
        for file in ups {
            let start = Date()
            let step = MigrationStep(
                identifier: String(file.version), foreignKeyChecks: .deferred,
                runsInTransaction: !file.runsOutsideTransaction
            ) { db in try file.run(file.up, firstLine: file.upFirstLine, in: db) }
            if try applyNamingViolations(step, of: file, with: runner, in: db) {
                steps.append(Step(version: file.version, name: file.name, file: file.fileName, direction: "up", durationMs: milliseconds(since: start)))
            }
        }
        let newest = try MigrationsTable.records(db).map(\.version).max()
        return Report(database: location.filePath, dryRun: false, steps: steps, version: newest)
    }

    /// Applies one file; a foreign key violation found after it names the file.
    private func applyNamingViolations(
        _ step: MigrationStep, of file: MigrationFile, with runner: MigrationRunner<MigrationsTable>, in db: Database
    ) throws -> Bool {
        do {
            return try runner.apply(step, in: db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw DBToolError(
                .dataError, "\(file.path): \(error.message ?? "foreign key violation")",
                hint: "Fix the migration: nothing of it was applied (earlier migrations stay applied).")
        }
    }

    /// The migrations to apply (ascending) and to revert (descending).
    private func plan(_ state: MigrationState) throws -> (up: [MigrationFile], down: [MigrationFile]) {
        guard let target else { return (state.pending, []) }
        if target != 0 && !state.files.contains(where: { $0.version == target }) {
            throw DBToolError(
                .usage, "no migration has the version \(target) in \(migrationsPath)",
                hint: "Use a version listed by `dbtool migrate status`, or 0 for none.")
        }
        let ups = state.pending.filter { $0.version <= target }
        let appliedAbove = Set(state.records.filter { $0.version > target }.map(\.version))
        let downs = state.files.filter { appliedAbove.contains($0.version) }.sorted { $0.version > $1.version }
        try checkReversible(downs)
        return (ups, downs)
    }
}

/// Throws before anything runs when a migration to revert has no down section.
func checkReversible(_ files: [MigrationFile]) throws {
    if let file = files.first(where: { $0.down == nil }) {
        throw DBToolError(
            .dataError, "migration \(file.version) (\(file.path)) has no `-- migrate:down` section: it can not be rolled back",
            hint: "Add a down section, or restore a snapshot taken before it.")
    }
}

func milliseconds(since start: Date) -> Int64 {
    Int64((Date().timeIntervalSince(start) * 1000).rounded())
}

/// Runs a migration's down section and deletes its record, in one IMMEDIATE
/// transaction, with foreign keys handled as for migrations: disabled during
/// the section, fully checked before commit.
func revert(_ file: MigrationFile, in db: Database) throws {
    let disablesForeignKeys = db.configuration.foreignKeysEnabled
    if disablesForeignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
    defer { if disablesForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
    try db.inTransaction(.immediate) {
        try file.run(file.down ?? "", firstLine: file.downFirstLine ?? 1, in: db)
        if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
            let table: String = violation["table"]
            throw DBToolError(
                .dataError, "rolling back migration \(file.version) (\(file.path)) leaves rows of \(table) referencing missing rows",
                hint: "Fix the down section so that it keeps foreign keys valid.")
        }
        try db.execute(sql: "DELETE FROM \(MigrationsTable.name) WHERE version = ?", arguments: [Int64(file.version)])
        return .commit
    }
}
