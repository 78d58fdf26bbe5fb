import FoundationEssentials

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
        /// fails the migration. The default. The check is skipped for
        /// migrations registered after ``DatabaseMigrator/disablingDeferredForeignKeyChecks()``.
        case deferred
        /// Foreign keys stay enforced, statement by statement. Not for
        /// migrations that rebuild tables.
        case immediate
    }

    /// A registered migration.
    struct Migration: Sendable {
        let identifier: String
        let mergedIdentifiers: Set<String>
        let foreignKeyChecks: MigrationForeignKeyChecks
        let migrate: @Sendable (Database, Set<String>) throws -> Void
    }

    /// The table that records applied migrations (GRDB's name, so that
    /// databases migrated by either library are understood by both).
    public static let migrationsTableName = "grdb_migrations"

    private var registered: [Migration] = []
    private var defersForeignKeyChecks = true
    /// A registration misuse, reported by the migrating methods (registering
    /// can not throw, and a library does not trap).
    private var registrationError: DatabaseError?

    /// When true, a database whose applied migrations differ from the
    /// registered ones (a migration was edited, renamed or removed, as
    /// happens during development) is erased and migrated again from
    /// scratch. See ``hasSchemaChanges(_:)``. Never set it in production:
    /// it deletes data. Default: false.
    public var eraseDatabaseOnSchemaChange = false

    /// Creates a migrator with no migration.
    public init() {}

    /// The identifiers of the registered migrations, in order.
    public var migrations: [String] { registered.map(\.identifier) }

    /// Registers a migration, to run after the ones registered before.
    ///
    /// The migration runs in a transaction: when it throws, the transaction
    /// is rolled back, the migrations stop, and the migrating method throws
    /// its error.
    ///
    /// - parameters:
    ///   - identifier: A unique identifier, recorded once applied. A second
    ///     registration of an identifier makes the migrating methods throw.
    ///   - foreignKeyChecks: How foreign keys are checked (default:
    ///     deferred). Ignored when the connection has foreign keys disabled.
    ///   - migrate: The migration.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (_ db: Database) throws -> Void
    ) {
        register(identifier, foreignKeyChecks: foreignKeyChecks, merging: []) { db, _ in try migrate(db) }
    }

    /// Registers a migration that merges and replaces migrations of an
    /// earlier version of the application.
    ///
    /// ```swift
    /// // "v1" and "v2" are deleted; "v3" now does their work when needed.
    /// migrator.registerMigration("v3", merging: ["v1", "v2"]) { db, appliedIDs in
    ///     if !appliedIDs.contains("v1") { /* schema version 1 */ }
    ///     if !appliedIDs.contains("v2") { /* schema version 2 */ }
    ///     // schema version 3
    /// }
    /// ```
    ///
    /// Once the migration is applied, the records of the merged migrations
    /// are deleted. Do not give the merged migration the name of one of the
    /// first migrations of the merged set.
    ///
    /// - parameters:
    ///   - identifier: A unique identifier, recorded once applied.
    ///   - foreignKeyChecks: How foreign keys are checked (default: deferred).
    ///   - mergedIdentifiers: The identifiers of the migrations replaced by
    ///     this one (`identifier` itself is ignored if present).
    ///   - migrate: The migration; its second argument is the subset of
    ///     `mergedIdentifiers` already applied when it runs.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        merging mergedIdentifiers: Set<String> = [],
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void
    ) {
        register(identifier, foreignKeyChecks: foreignKeyChecks, merging: mergedIdentifiers, migrate: migrate)
    }

    private mutating func register(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks,
        merging mergedIdentifiers: Set<String>,
        migrate: @escaping @Sendable (Database, Set<String>) throws -> Void
    ) {
        if registered.contains(where: { $0.identifier == identifier }) {
            registrationError = registrationError
                ?? .misuse("already registered migration: \(String(reflecting: identifier))")
            return
        }
        let checks: MigrationForeignKeyChecks
        switch foreignKeyChecks {
        case .immediate: checks = .immediate
        case .deferred: checks = defersForeignKeyChecks ? .deferred : .deferredUnchecked
        }
        var mergedIdentifiers = mergedIdentifiers
        mergedIdentifiers.remove(identifier)
        registered.append(
            Migration(identifier: identifier, mergedIdentifiers: mergedIdentifiers, foreignKeyChecks: checks, migrate: migrate))
    }

    /// A migrator whose migrations registered from now on with `.deferred`
    /// checks run with foreign keys disabled and unchecked. Migrations
    /// registered before keep their checks.
    ///
    /// It no longer guarantees the integrity of the database: check it
    /// yourself with ``Database/checkForeignKeys()`` or
    /// ``Database/checkForeignKeys(in:in:)`` where needed. Prefer
    /// registering migrations with `foreignKeyChecks: .immediate` when
    /// they allow it.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.defersForeignKeyChecks = false
        return migrator
    }

    // MARK: Migrating

    /// Applies every pending migration, in registration order.
    ///
    /// - throws: The error of the first failing migration (earlier ones
    ///   stay applied); ``DatabaseError`` on a foreign key violation, or
    ///   when a migration identifier was registered twice.
    public func migrate(_ writer: any DatabaseWriter) throws {
        try checkRegistrations()
        guard let last = registered.last else { return }
        try migrate(writer, upTo: last.identifier)
    }

    /// Applies the pending migrations up to `targetIdentifier`, included.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) when `targetIdentifier`
    ///   is not registered, or when the database is already migrated beyond
    ///   it; the error of the failing migration.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try checkRegistrations()
        try writer.barrierWriteWithoutTransaction { db in
            try migrate(db, upTo: targetIdentifier)
        }
    }

    /// Schedules the pending migrations and returns immediately.
    ///
    /// - parameters:
    ///   - writer: The database to migrate.
    ///   - completion: Called on the writer's queue with the migrated
    ///     connection, or the error that stopped the migrations.
    public func asyncMigrate(
        _ writer: any DatabaseWriter,
        completion: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        writer.asyncBarrierWriteWithoutTransaction { dbResult in
            do {
                let db = try dbResult.get()
                try checkRegistrations()
                if let last = registered.last {
                    try migrate(db, upTo: last.identifier)
                }
                completion(.success(db))
            } catch {
                completion(.failure(error))
            }
        }
    }

    private func checkRegistrations() throws {
        if let registrationError { throw registrationError }
    }

    private func migrate(_ db: Database, upTo targetIdentifier: String) throws {
        guard let targetIndex = registered.firstIndex(where: { $0.identifier == targetIdentifier }) else {
            throw DatabaseError.misuse("undefined migration: \(String(reflecting: targetIdentifier))")
        }
        if eraseDatabaseOnSchemaChange {
            var needsErase = false
            try db.inTransaction(.deferred) {
                needsErase = try hasSchemaChanges(db)
                return .commit
            }
            if needsErase { try db.erase() }
        }
        let appliedIndices = try appliedMigrations(db).compactMap { id in registered.firstIndex { $0.identifier == id } }
        if let lastApplied = appliedIndices.max(), lastApplied > targetIndex {
            throw DatabaseError.misuse("database is already migrated beyond migration \(String(reflecting: targetIdentifier))")
        }
        try runMigrations(registered[...targetIndex], in: db)
    }

    /// Applies each migration that is not applied yet, through the runner
    /// that dbtool's SQL-file migrations use too: each one decides in its
    /// own IMMEDIATE transaction, so that processes migrating the same
    /// file apply it once.
    private func runMigrations(_ migrations: ArraySlice<Migration>, in db: Database) throws {
        let runner = MigrationRunner(recorder: GRDBMigrationsTable())
        // Migrations see the schema as SQLite has it, whatever schemaSource says.
        try db.withSchemaSource(nil) {
            for migration in migrations {
                let step = MigrationStep(
                    identifier: migration.identifier, foreignKeyChecks: migration.foreignKeyChecks,
                    mergedIdentifiers: migration.mergedIdentifiers, migrate: migration.migrate)
                try runner.apply(step, in: db)
            }
        }
    }

    // MARK: Detecting schema changes

    /// Whether the migrations changed since they were applied: the database
    /// holds a migration that is no longer registered, or its schema
    /// (`sqlite_master`) differs from the one the registered migrations
    /// produce on an empty database, up to the last applied one.
    ///
    /// It supports ``eraseDatabaseOnSchemaChange``, and lets you do the
    /// same by hand:
    ///
    /// ```swift
    /// if try dbQueue.read(migrator.hasSchemaChanges) {
    ///     try dbQueue.erase()
    /// }
    /// try migrator.migrate(dbQueue)
    /// ```
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        if !applied.isSubset(of: Set(migrations)) { return true }
        guard let lastApplied = registered.lastIndex(where: { applied.contains($0.identifier) }) else {
            return false
        }
        let reference = try referenceSchema(upTo: lastApplied, configuration: db.configuration)
        return try userSchema(db.schema(.main)) != reference
    }

    /// The schema the migrations up to `index` produce in a new database
    /// file configured as `configuration` (a file rather than memory, so
    /// that migrations moving a lot of data do not exhaust memory).
    private func referenceSchema(upTo index: Int, configuration: Configuration) throws -> Set<SchemaObject> {
        var configuration = configuration
        configuration.readonly = false
        configuration.targetQueue = nil
        configuration.writeTargetQueue = nil
        configuration.label = "GRDB.DatabaseMigrator.temporary"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let reference = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? reference.close() }
        return try reference.writeWithoutTransaction { db in
            try runMigrations(registered[...index], in: db)
            return try userSchema(db.schema(.main))
        }
    }

    private func userSchema(_ schema: SchemaInfo) -> Set<SchemaObject> {
        schema.objects.filter { !Database.isSQLiteInternalTable($0.name) && !Database.isGRDBInternalTable($0.name) }
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

    /// The registered migrations that are applied with every migration
    /// registered before them, in registration order.
    public func completedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedMigrations(db)
        return zip(applied, migrations).prefix { $0 == $1 }.map(\.0)
    }

    /// True when every registered migration is completed.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try completedMigrations(db).last == registered.last?.identifier
    }

    /// True when the database holds applied migrations that this migrator
    /// does not know: it was migrated by a newer version of the application.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let known = Set(migrations)
        return try !appliedIdentifiers(db).isSubset(of: known)
    }
}

extension Database {
    func migrationsTableExists() throws -> Bool {
        try Bool.fetchOne(
            self,
            sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [DatabaseMigrator.migrationsTableName]) ?? false
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

    func forget(_ identifiers: Set<String>, in db: Database) throws {
        try db.execute(literal: "DELETE FROM \(identifier: DatabaseMigrator.migrationsTableName) WHERE identifier IN \(identifiers)")
    }
}
