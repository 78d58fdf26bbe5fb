import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    struct Failure: Error {}

    static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createAuthor") { db in
            try db.execute(sql: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        migrator.registerMigration("createBook") { db in
            try db.execute(
                sql: """
                    CREATE TABLE book (
                        id INTEGER PRIMARY KEY,
                        authorId INTEGER NOT NULL REFERENCES author(id),
                        title TEXT NOT NULL)
                    """)
        }
        migrator.registerMigration("seed") { db in
            try db.execute(sql: "INSERT INTO author (id, name) VALUES (1, 'Ursula')")
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (1, 'The Dispossessed')")
        }
        return migrator
    }

    private static func tables(_ reader: some DatabaseReader) throws -> [String] {
        try reader.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        }
    }

    @Test("migrate applies every migration once, in order, on queues and pools", arguments: WriterKind.allCases)
    func migrate(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let migrator = Self.makeMigrator()
        try writer.read { (db: Database) throws in
            #expect(try migrator.appliedIdentifiers(db) == [])
            #expect(try !migrator.hasCompletedMigrations(db))
        }
        try migrator.migrate(writer)
        try migrator.migrate(writer)  // idempotent
        try writer.read { (db: Database) throws in
            #expect(try migrator.appliedIdentifiers(db) == ["createAuthor", "createBook", "seed"])
            #expect(try migrator.appliedMigrations(db) == ["createAuthor", "createBook", "seed"])
            #expect(try migrator.completedMigrations(db) == ["createAuthor", "createBook", "seed"])
            #expect(try migrator.hasCompletedMigrations(db))
            #expect(try !migrator.hasBeenSuperseded(db))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") == 1)
        }
        #expect(try Self.tables(writer) == ["author", "book", "grdb_migrations"])
        #expect(migrator.migrations == ["createAuthor", "createBook", "seed"])
    }

    @Test("migrate(upTo:) stops at the target; an unknown target is an error")
    func upTo() throws {
        let dbQueue = DatabaseQueue()
        let migrator = Self.makeMigrator()
        try migrator.migrate(dbQueue, upTo: "createBook")
        try dbQueue.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["createAuthor", "createBook"])
            #expect(try !migrator.hasCompletedMigrations(db))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") == 0)
        }
        let error = expectDatabaseError(.SQLITE_MISUSE) { try migrator.migrate(dbQueue, upTo: "nope") }
        #expect(error?.message?.contains("undefined migration: \"nope\"") == true)
        try migrator.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in #expect(try migrator.hasCompletedMigrations(db)) }
    }

    @Test("a migration that throws halfway leaves nothing of it; earlier ones stay", arguments: WriterKind.allCases)
    func throwingMigration(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var migrator = Self.makeMigrator()
        migrator.registerMigration("broken") { db in
            try db.execute(sql: "CREATE TABLE half (a)")
            try db.execute(sql: "INSERT INTO author (id, name) VALUES (2, 'Octavia')")
            throw Failure()
        }
        #expect(throws: Failure.self) { try migrator.migrate(writer) }
        try writer.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["createAuthor", "createBook", "seed"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM author") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'") == 0)
        }
        // Foreign keys are enabled again after the failed migration.
        expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) {
            try writer.write { db in try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (99, 'x')") }
        }
    }

    @Test("a migration that violates a foreign key fails, naming the table, and leaves nothing")
    func foreignKeyViolation() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("orphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (42, 'Orphan')")
        }
        let error = expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try migrator.migrate(dbQueue) }
        #expect(
            error?.message
                == "FOREIGN KEY constraint violation - from book(authorId) to author(id), in [id:2 authorId:42 title:\"Orphan\"]")
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") == 1)
            #expect(try !migrator.appliedIdentifiers(db).contains("orphan"))
        }
    }

    @Test("deferred foreign key checks allow rebuilding a referenced table")
    func tableRebuild() throws {
        let dbQueue = DatabaseQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("rebuildAuthor") { db in
            try db.execute(
                sql: """
                    CREATE TABLE new_author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INT);
                    INSERT INTO new_author (id, name) SELECT id, name FROM author;
                    DROP TABLE author;
                    ALTER TABLE new_author RENAME TO author;
                    """)
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book JOIN author ON author.id = book.authorId") == 1)
        }
    }

    @Test("immediate foreign key checks fail at the statement")
    func immediateChecks() throws {
        let dbQueue = DatabaseQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("orphan", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (42, 'Orphan')")
        }
        expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try migrator.migrate(dbQueue) }
        // Without the final check, the violation is accepted.
        try migrator.disablingDeferredForeignKeyChecks().migrate(dbQueue, upTo: "seed")
    }

    @Test("disablingDeferredForeignKeyChecks skips the final check of the migrations registered after it, only")
    func disablingChecks() throws {
        let dbQueue = DatabaseQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("checkedOrphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (42, 'Checked')")
        }
        migrator = migrator.disablingDeferredForeignKeyChecks()
        migrator.registerMigration("uncheckedOrphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (43, 'Unchecked')")
        }
        migrator.registerMigration("immediateOrphan", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (44, 'Immediate')")
        }
        // Registered before: still checked.
        expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try migrator.migrate(dbQueue) }
        try dbQueue.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["createAuthor", "createBook", "seed"])
        }

        var unchecked = Self.makeMigrator().disablingDeferredForeignKeyChecks()
        unchecked.registerMigration("uncheckedOrphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (43, 'Unchecked')")
        }
        unchecked.registerMigration("immediateOrphan", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (44, 'Immediate')")
        }
        try unchecked.migrate(dbQueue, upTo: "uncheckedOrphan")
        #expect(try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT title FROM book ORDER BY id") } == ["The Dispossessed", "Unchecked"])
        // `.immediate` migrations keep their checks.
        expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try unchecked.migrate(dbQueue) }
    }

    @Test("foreign key checks follow the connection: none when prepareDatabase disabled foreign keys")
    func foreignKeysDisabledByConnection() throws {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        let dbQueue = DatabaseQueue(configuration: config)
        var migrator = Self.makeMigrator()
        migrator.registerMigration("orphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (42, 'Orphan')")
        }
        try migrator.migrate(dbQueue)
        #expect(try dbQueue.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == false)
    }

    @Test("each migration runs in an IMMEDIATE transaction with its record")
    func immediateTransaction() throws {
        let traced = Locked<[String]>([])
        var config = Configuration()
        config.trace = { sql in traced.withLock { $0.append(sql) } }
        let dbQueue = DatabaseQueue(configuration: config)
        try Self.makeMigrator().migrate(dbQueue)
        let relevant = traced.current.filter {
            $0.hasPrefix("BEGIN") || $0.hasPrefix("COMMIT") || $0.hasPrefix("INSERT INTO grdb_migrations")
        }
        #expect(
            relevant
                == Array(
                    repeating: [
                        "BEGIN IMMEDIATE TRANSACTION", "INSERT INTO grdb_migrations (identifier) VALUES (?)", "COMMIT TRANSACTION",
                    ], count: 3
                ).flatMap { $0 })
    }

    @Test("hasBeenSuperseded: the database knows a migration this migrator does not")
    func superseded() throws {
        let dbQueue = DatabaseQueue()
        var newer = Self.makeMigrator()
        newer.registerMigration("future") { _ in }
        try newer.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in
            #expect(try Self.makeMigrator().hasBeenSuperseded(db))
            #expect(try Self.makeMigrator().hasCompletedMigrations(db))
        }
    }

    @Test("eraseDatabaseOnSchemaChange erases and re-migrates when a migration changed")
    func eraseOnSchemaChange() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        var v1 = DatabaseMigrator()
        v1.eraseDatabaseOnSchemaChange = true
        v1.registerMigration("create") { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        }
        try v1.migrate(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try v1.migrate(dbQueue)  // same schema: nothing erased
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 2)

        var v2 = DatabaseMigrator()
        v2.eraseDatabaseOnSchemaChange = true
        v2.registerMigration("create") { db in
            try db.execute(sql: "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 1)")
        }
        try v2.migrate(dbQueue)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
        #expect(try dbQueue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM t") } == ["a": 1, "b": 1])
    }

    @Test("migrates in-memory databases")
    func inMemory() throws {
        let dbQueue = DatabaseQueue()
        try Self.makeMigrator().migrate(dbQueue)
        #expect(try Self.tables(dbQueue) == ["author", "book", "grdb_migrations"])
    }

    @Test("processes migrating the same file apply each migration exactly once", arguments: [2, 4])
    func concurrentProcesses(processCount: Int) async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<processCount {
                group.addTask {
                    await #expect(processExitsWith: .success) { [path = path as String] in
                        var config = Configuration()
                        config.busyMode = .timeout(30)
                        let dbPool = try DatabasePool(path: path, configuration: config)
                        var migrator = DatabaseMigrator()
                        for i in 0..<5 {
                            migrator.registerMigration("m\(i)") { db in
                                // A migration that is not idempotent: applied twice, it fails.
                                try db.execute(sql: "CREATE TABLE t\(i)(a)")
                                try db.execute(sql: "INSERT INTO log (migration) VALUES (?)", arguments: ["m\(i)"])
                                usleep(20_000)
                            }
                        }
                        try dbPool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS log(migration TEXT)") }
                        try migrator.migrate(dbPool)
                    }
                }
            }
        }
        let dbQueue = try DatabaseQueue(path: path)
        let log = try await dbQueue.read { db in try String.fetchAll(db, sql: "SELECT migration FROM log ORDER BY rowid") }
        #expect(log == ["m0", "m1", "m2", "m3", "m4"])
    }

    // MARK: Merged migrations

    private static func mergingMigrator(log: Locked<[String]>) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v3", merging: ["v1", "v2", "v3"]) { db, appliedIDs in
            log.withLock { $0.append("v3 after \(appliedIDs.sorted())") }
            if !appliedIDs.contains("v1") { try db.execute(sql: "CREATE TABLE a(x)") }
            if !appliedIDs.contains("v2") { try db.execute(sql: "CREATE TABLE b(x)") }
            try db.execute(sql: "CREATE TABLE c(x)")
        }
        return migrator
    }

    @Test("a merged migration runs the missing parts and replaces the records of the merged ones", arguments: WriterKind.allCases)
    func mergedMigration(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var old = DatabaseMigrator()
        old.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
        old.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE b(x)") }
        try old.migrate(writer, upTo: "v1")

        let log = Locked<[String]>([])
        let merging = Self.mergingMigrator(log: log)
        try merging.migrate(writer)
        #expect(log.current == ["v3 after [\"v1\"]"])
        try writer.read { (db: Database) throws in
            #expect(try merging.appliedIdentifiers(db) == ["v3"])
            #expect(try merging.hasCompletedMigrations(db))
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name IN ('a','b','c') ORDER BY name") == ["a", "b", "c"])
        }
        try merging.migrate(writer)
        #expect(log.current.count == 1)

        // A new database: the merged migration does everything.
        let fresh = DatabaseQueue()
        try merging.migrate(fresh)
        #expect(log.current.last == "v3 after []")
    }

    @Test("a merged migration named like an applied one only deletes the merged records")
    func mergedMigrationAlreadyApplied() throws {
        let dbQueue = DatabaseQueue()
        var old = DatabaseMigrator()
        old.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
        old.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE b(x)") }
        old.registerMigration("v3") { db in try db.execute(sql: "CREATE TABLE c(x)") }
        try old.migrate(dbQueue)

        let log = Locked<[String]>([])
        try Self.mergingMigrator(log: log).migrate(dbQueue)
        #expect(log.current.isEmpty)
        #expect(try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") } == ["v3"])
    }

    // MARK: Misuses reported as errors

    @Test("registering an identifier twice makes migrate throw, without running anything")
    func duplicateRegistration() throws {
        let dbQueue = DatabaseQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("seed") { _ in }
        let error = expectDatabaseError(.SQLITE_MISUSE) { try migrator.migrate(dbQueue) }
        #expect(error?.message == "already registered migration: \"seed\"")
        #expect(try dbQueue.read { db in try migrator.appliedIdentifiers(db) } == [])
    }

    @Test("migrating up to a migration older than the applied ones throws")
    func migratedBeyondTarget() throws {
        let dbQueue = DatabaseQueue()
        let migrator = Self.makeMigrator()
        try migrator.migrate(dbQueue)
        let error = expectDatabaseError(.SQLITE_MISUSE) { try migrator.migrate(dbQueue, upTo: "createAuthor") }
        #expect(error?.message == "database is already migrated beyond migration \"createAuthor\"")
        // Up to the last applied one is fine.
        try migrator.migrate(dbQueue, upTo: "seed")
    }

    @Test("completedMigrations stops at the first registered migration that is not applied")
    func completedMigrationsWithGap() throws {
        let dbQueue = DatabaseQueue()
        var partial = DatabaseMigrator()
        partial.registerMigration("createAuthor") { db in try db.execute(sql: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT)") }
        partial.registerMigration("seed") { _ in }
        try partial.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in
            let migrator = Self.makeMigrator()
            #expect(try migrator.appliedMigrations(db) == ["createAuthor", "seed"])
            #expect(try migrator.completedMigrations(db) == ["createAuthor"])
            #expect(try !migrator.hasCompletedMigrations(db))
        }
    }

    // MARK: Schema changes

    @Test("hasSchemaChanges: false when the migrations match, true after an edit or a removal", arguments: WriterKind.allCases)
    func hasSchemaChanges(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        #expect(try writer.read(Self.makeMigrator().hasSchemaChanges) == false)
        try Self.makeMigrator().migrate(writer)
        #expect(try writer.read(Self.makeMigrator().hasSchemaChanges) == false)

        var edited = DatabaseMigrator()
        edited.registerMigration("createAuthor") { db in
            try db.execute(sql: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INT)")
        }
        #expect(try writer.read(edited.hasSchemaChanges) == true)

        var removed = DatabaseMigrator()
        removed.registerMigration("createAuthor") { db in
            try db.execute(sql: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        #expect(try writer.read(removed.hasSchemaChanges) == true)
        // The check leaves no file behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.hasPrefix("db.sqlite") })
    }

    @Test("the reference database of hasSchemaChanges is configured as the migrated one")
    func hasSchemaChangesUsesConfiguration() throws {
        var config = Configuration()
        config.prepareDatabase { db in
            db.add(function: DatabaseFunction("answer", argumentCount: 0, pure: true) { _ in 42 })
        }
        let dbQueue = DatabaseQueue(configuration: config)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE t(a DEFAULT 0); INSERT INTO t VALUES (answer())")
        }
        try migrator.migrate(dbQueue)
        #expect(try dbQueue.read(migrator.hasSchemaChanges) == false)
    }

    // MARK: Asynchronous migration

    @Test("asyncMigrate migrates, then gives the connection to the completion", arguments: WriterKind.allCases)
    func asyncMigrate(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let count: Int = try await withCheckedThrowingContinuation { continuation in
            Self.makeMigrator().asyncMigrate(writer) { dbResult in
                continuation.resume(with: dbResult.flatMap { db in Result { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") ?? -1 } })
            }
        }
        #expect(count == 1)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            var migrator = Self.makeMigrator()
            migrator.registerMigration("broken") { _ in throw Failure() }
            migrator.asyncMigrate(writer) { dbResult in
                switch dbResult {
                case .success: continuation.resume(returning: nil)
                case .failure(let error): continuation.resume(returning: error)
                }
            }
        }
        #expect(error is Failure)
    }

    @Test("migrations see the schema as SQLite has it, whatever schemaSource says")
    func migrationsIgnoreSchemaSource() throws {
        struct ViewKeys: DatabaseSchemaSource {
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { ["id"] }
        }
        var config = Configuration()
        config.schemaSource = ViewKeys()
        let dbQueue = DatabaseQueue(configuration: config)
        let seen = Locked<[Bool]>([])
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY); CREATE VIEW v AS SELECT * FROM t")
            let hasKey = (try? db.primaryKey("v")) != nil
            seen.withLock { $0.append(hasKey) }
        }
        try migrator.migrate(dbQueue)
        #expect(seen.current == [false])
        #expect(try dbQueue.read { db in try db.primaryKey("v").columns } == ["id"])
    }
}

