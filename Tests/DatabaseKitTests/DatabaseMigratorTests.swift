import DatabaseKit
import Foundation
import Testing

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
        #expect(error?.message?.contains("table book") == true)
        #expect(error?.message?.contains("\"orphan\"") == true)
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

    @Test("disablingDeferredForeignKeyChecks skips the final check")
    func disablingChecks() throws {
        let dbQueue = DatabaseQueue()
        var migrator = Self.makeMigrator()
        migrator.registerMigration("orphan") { db in
            try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (42, 'Orphan')")
        }
        try migrator.disablingDeferredForeignKeyChecks().migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") == 2) }
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
}
