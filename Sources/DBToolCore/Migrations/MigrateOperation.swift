import DatabaseKit
import FoundationEssentials

/// Where `dbtool migrate --to` goes.
public enum MigrationTarget: Sendable, Equatable {
    /// Roll back every applied migration (`--to none`).
    case none
    /// Apply or roll back up to this version, included (`--to VERSION`).
    /// Version 0 is a migration like any other.
    case version(UInt64)

    /// Parses `none` or a version.
    public init?(_ text: String) {
        if text.lowercased() == "none" {
            self = .none
        } else if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let version = UInt64(text) {
            self = .version(version)
        } else {
            return nil
        }
    }
}

/// `dbtool migrate`: applies pending migrations (or moves to `--to`), one
/// transaction each, under a cross-process lock.
public struct MigrateOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    public var migrationsPath: String
    /// Migrate up or down to this target; nil: apply every pending migration.
    public var target: MigrationTarget?
    /// Print what would run; change nothing.
    public var dryRun = false
    public var allowOutOfOrder = false
    /// Take a snapshot before the first migration that changes something.
    public var takesSnapshot = false
    /// Receives notices as they arise (skipped files, foreign key
    /// violations that were there before): the report lists them too.
    public var notice: @Sendable (String) -> Void = { _ in }
    /// The migrations, read already (a fleet reads them once); nil: read
    /// from ``migrationsPath``.
    public var directory: MigrationDirectory?

    public init(database: DatabaseHandle, migrationsPath: String) {
        self.database = database
        self.migrationsPath = migrationsPath
    }

    /// One migration that ran (or would run, in a dry run, or failed).
    public struct Step: Codable, Sendable, Equatable {
        public var version: UInt64
        public var name: String
        /// The file's name, as written in the migrations directory (`0001_log.sql`).
        public var file: String
        public var direction: String
        public var durationMs: Int64?
        /// The SQL, in a dry run.
        public var sql: String?

        init(_ file: MigrationFile, _ direction: MigrationDirection, durationMs: Int64? = nil, sql: String? = nil) {
            version = file.version
            name = file.name
            self.file = direction == .down ? URL(fileURLWithPath: file.downFile).lastPathComponent : file.fileName
            self.direction = direction.rawValue
            self.durationMs = durationMs
            self.sql = sql
        }
    }

    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var dryRun: Bool
        /// The migrations applied or rolled back (before the failure, if any).
        public var steps: [Step]
        /// The newest applied version afterwards (nil: none).
        public var version: UInt64?
        /// The snapshot taken before migrating, with `--snapshot`.
        public var snapshot: String? = nil
        /// Notices: skipped files, foreign key violations that were there before.
        public var warnings: [String] = []
        /// The migration that failed; the steps before it stay done.
        public var failed: Step? = nil
        /// Why it failed.
        public var error: DBToolError.Summary? = nil
    }

    public func run() throws -> Report {
        let directory = try self.directory ?? MigrationDirectory(path: migrationsPath)
        var warnings: [String] = []
        if let skipped = directory.skippedNotice {
            notice(skipped)
            warnings.append(skipped)
        }
        try directory.requireMigrations()
        // A dry run only reads: it takes no lock, so it leaves no lock file.
        if dryRun { return try database.reportingErrors { try run(on: try database.openQueue(), directory, warnings) } }
        return try database.withExclusiveLock(.migrate) { dbQueue in try run(on: dbQueue, directory, warnings) }
    }

    private func run(on dbQueue: DatabaseQueue, _ directory: MigrationDirectory, _ warnings: [String]) throws -> Report {
        // Read under the lock: a run that waited sees what the other one did.
        let state = try dbQueue.read { db in try MigrationState.load(db, directory: directory) }
        try state.checkSafety(allowOutOfOrder: allowOutOfOrder)
        let plan = try self.plan(state)
        if dryRun {
            let steps = try plan.map { file, direction in
                Step(file, direction, sql: try file.sql(direction))
            }
            return Report(database: database.location.filePath, dryRun: true, steps: steps, version: state.newestApplied, warnings: warnings)
        }
        // A corrupt database is not migrated: a migration would build on broken pages.
        if !plan.isEmpty { try DatabaseCheck.quickCheck(dbQueue, path: database.location.filePath) }
        var snapshot: String?
        if takesSnapshot && !plan.isEmpty {
            snapshot = try MigrationSnapshots.take(database)
        }
        var execution = MigrationExecution(database: database, notice: notice)
        execution.warnings = warnings
        execution.snapshot = snapshot
        return try dbQueue.writeWithoutTransaction { db in try execution.run(plan, in: db) }
    }

    /// The migrations to run, in order: those to roll back (newest first),
    /// then those to apply (oldest first).
    private func plan(_ state: MigrationState) throws -> [(MigrationFile, MigrationDirection)] {
        guard let target else { return state.pending.map { ($0, .up) } }
        let limit: UInt64?
        switch target {
        case .none:
            limit = nil
        case .version(let version):
            guard state.files.contains(where: { $0.version == version }) else {
                throw DBToolError(
                    .usage, "no migration has the version \(version) in \(migrationsPath)",
                    hint: "Use a version listed by `dbtool migrate status`, or `--to none` to roll back every migration.")
            }
            limit = version
        }
        let ups = limit.map { limit in state.pending.filter { $0.version <= limit } } ?? []
        let appliedAbove = Set(state.records.filter { record in limit.map { record.version > $0 } ?? true }.map(\.version))
        let downs = state.files.filter { appliedAbove.contains($0.version) }.sorted { $0.version > $1.version }
        try checkReversible(downs)
        return downs.map { ($0, .down) } + ups.map { ($0, .up) }
    }
}

/// Throws before anything runs when a migration to revert has no down section.
func checkReversible(_ files: [MigrationFile]) throws {
    if let file = files.first(where: { !$0.hasDown }) {
        throw DBToolError(
            .dataError, "migration \(file.version) (\(file.path)) has no down section: it can not be rolled back",
            hint: "Add a down section, or restore a snapshot taken before it.")
    }
}

func milliseconds(since start: Date) -> Int64 {
    Int64((Date().timeIntervalSince(start) * 1000).rounded())
}
