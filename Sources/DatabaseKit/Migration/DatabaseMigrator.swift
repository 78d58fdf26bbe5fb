import Foundation

/// Applies migrations, in order, each exactly once.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in
///     try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// migrator.registerMigration("v2") { db in
///     try db.execute(sql: "ALTER TABLE player ADD COLUMN score INT")
/// }
/// try migrator.migrate(dbQueue)
/// ```
///
/// Each migration runs in an IMMEDIATE transaction, and is recorded in the
/// `grdb_migrations` table by the same transaction: it is applied entirely or
/// not at all. The applied migrations are read again inside that transaction,
/// so that several processes migrating the same file apply each migration
/// once (give them a ``Configuration/busyMode`` timeout so that they wait for
/// each other).
public struct DatabaseMigrator: Sendable {
    /// How a migration treats foreign keys.
    public enum ForeignKeyChecks: Sendable {
        /// Foreign keys are disabled during the migration (so that tables can
        /// be rebuilt), and fully checked before it commits: a violation
        /// fails the migration. The default.
        case deferred
        /// Foreign keys stay enforced, statement by statement.
        case immediate
    }

    /// A registered migration.
    struct Migration: Sendable {
        let identifier: String
        let foreignKeyChecks: ForeignKeyChecks
        let migrate: @Sendable (Database) throws -> Void
    }

    /// The table that records applied migrations (GRDB's name, so that
    /// databases migrated by either library are understood by both).
    public static let migrationsTableName = "grdb_migrations"

    private var registered: [Migration] = []
    private var defersForeignKeyChecks = true

    /// When true, a database whose applied migrations differ from the
    /// registered ones (a migration was edited or removed, as happens during
    /// development) is erased and migrated again from scratch. Never set it
    /// in production: it deletes data. Default: false.
    public var eraseDatabaseOnSchemaChange = false

    /// Creates a migrator with no migration.
    public init() {}

    /// The identifiers of the registered migrations, in order.
    public var migrations: [String] { registered.map(\.identifier) }

    /// Registers a migration.
    ///
    /// - parameters:
    ///   - identifier: A unique identifier, recorded once applied.
    ///   - foreignKeyChecks: How foreign keys are checked (default: deferred).
    ///   - migrate: The migration.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        precondition(
            !registered.contains { $0.identifier == identifier }, "migration \(String(reflecting: identifier)) is already registered")
        registered.append(Migration(identifier: identifier, foreignKeyChecks: foreignKeyChecks, migrate: migrate))
    }

    /// A migrator whose `.deferred` migrations skip the final foreign key
    /// check (foreign keys are still disabled during them). For databases
    /// known to hold violations.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.defersForeignKeyChecks = false
        return migrator
    }

    // MARK: Migrating

    /// Applies every pending migration.
    ///
    /// - throws: The error of the failing migration (earlier ones stay
    ///   applied), ``DatabaseError`` on a foreign key violation.
    public func migrate(_ writer: some DatabaseWriter) throws {
        try migrate(writer, upTo: registered.last?.identifier)
    }

    /// Applies the pending migrations up to `targetIdentifier`, included.
    ///
    /// - throws: ``DatabaseError`` when `targetIdentifier` is not registered,
    ///   or the error of the failing migration.
    public func migrate(_ writer: some DatabaseWriter, upTo targetIdentifier: String) throws {
        try migrate(writer, upTo: Optional(targetIdentifier))
    }

    private func migrate(_ writer: some DatabaseWriter, upTo targetIdentifier: String?) throws {
        let targets: ArraySlice<Migration>
        if let targetIdentifier {
            guard let index = registered.firstIndex(where: { $0.identifier == targetIdentifier }) else {
                throw DatabaseError.misuse("undefined migration: \(String(reflecting: targetIdentifier))")
            }
            targets = registered[...index]
        } else {
            targets = []
        }
        if eraseDatabaseOnSchemaChange {
            try eraseIfSchemaChanged(writer)
        }
        try writer.barrierWriteWithoutTransaction { db in
            for migration in targets {
                try apply(migration, in: db)
            }
        }
    }

    /// Applies one migration, unless it is already applied, through the
    /// runner that dbtool's SQL-file migrations use too.
    private func apply(_ migration: Migration, in db: Database) throws {
        let checks: MigrationForeignKeyChecks
        switch migration.foreignKeyChecks {
        case .immediate: checks = .immediate
        case .deferred: checks = defersForeignKeyChecks ? .deferred : .deferredUnchecked
        }
        let step = MigrationStep(identifier: migration.identifier, foreignKeyChecks: checks, migrate: migration.migrate)
        try MigrationRunner(recorder: GRDBMigrationsTable()).apply(step, in: db)
    }

    // MARK: Inspecting

    /// The identifiers recorded as applied, registered or not.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        try GRDBMigrationsTable().appliedIdentifiers(db)
    }

    /// The registered migrations that are applied, in registration order.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return migrations.filter(applied.contains)
    }

    /// The registered migrations that are applied, in registration order.
    public func completedMigrations(_ db: Database) throws -> [String] {
        try appliedMigrations(db)
    }

    /// True when every registered migration is applied.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        return registered.allSatisfy { applied.contains($0.identifier) }
    }

    /// True when the database holds applied migrations that this migrator
    /// does not know: it was migrated by a newer version of the application.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let known = Set(migrations)
        return try !appliedIdentifiers(db).isSubset(of: known)
    }

    // MARK: Erasing on schema change

    /// Erases the database when its schema is not what the applied
    /// registered migrations produce on an empty database.
    private func eraseIfSchemaChanged(_ writer: some DatabaseWriter) throws {
        let (applied, currentSchema) = try writer.read { db in
            (try appliedIdentifiers(db), try db.schemaForComparison())
        }
        var needsErase = !applied.isSubset(of: Set(migrations))
        if !needsErase {
            let reference = DatabaseQueue()
            var replay = DatabaseMigrator()
            replay.defersForeignKeyChecks = defersForeignKeyChecks
            for migration in registered where applied.contains(migration.identifier) {
                replay.registered.append(migration)
            }
            try replay.migrate(reference)
            let referenceSchema = try reference.read { db in try db.schemaForComparison() }
            needsErase = referenceSchema != currentSchema
        }
        if needsErase {
            // Copying an empty database over the file erases everything.
            try DatabaseQueue().backup(to: writer)
        }
    }
}

extension Database {
    func migrationsTableExists() throws -> Bool {
        try Bool.fetchOne(
            self,
            sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [DatabaseMigrator.migrationsTableName]) ?? false
    }

    /// The schema objects, except SQLite's and the migrations table.
    fileprivate func schemaForComparison() throws -> [Row] {
        try Row.fetchAll(
            self,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_master
                WHERE name NOT LIKE 'sqlite_%' AND name <> ?
                ORDER BY type, name
                """,
            arguments: [DatabaseMigrator.migrationsTableName])
    }
}

/// The `grdb_migrations` table: one row per applied identifier.
struct GRDBMigrationsTable: MigrationRecorder {
    func prepare(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(DatabaseMigrator.migrationsTableName) (identifier TEXT NOT NULL PRIMARY KEY)")
    }

    func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        guard try db.migrationsTableExists() else { return [] }
        return try Set(String.fetchAll(db, sql: "SELECT identifier FROM \(DatabaseMigrator.migrationsTableName)"))
    }

    func record(_ step: MigrationStep, duration: TimeInterval, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(DatabaseMigrator.migrationsTableName) (identifier) VALUES (?)",
            arguments: [step.identifier])
    }
}
