import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("dbtool migrate")
struct MigrateCommandTests {
    @Test("a fresh migrate applies the examples; a second run has nothing to do")
    func freshAndIdempotent() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        let first = try migrate(database, migrations)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
        let second = try migrate(database, migrations)
        #expect(second.status == 0)
        #expect(second.stdout.contains("Nothing to do"))
        let books = try DatabaseQueue(path: database + "/db.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") }
        #expect(books == 3)
    }

    @Test("init --migrations applies them right after init")
    func initWithMigrations() throws {
        let scratch = TemporaryDirectory()
        let (_, migrations) = try makeMigrationProject(scratch)
        let database = scratch.file("other")
        let result = try dbtool(["init", database, "--migrations", migrations, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(report?["created"] as? Bool == true)
        #expect(((report?["migrate"] as? [String: Any])?["steps"] as? [Any])?.count == 5)
    }

    @Test("--to migrates down and up; rollback --steps; a migration without down is refused before anything")
    func toAndRollback() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try migrate(database, migrations, ["--to", "3"]).status == 0)
        #expect(try appliedVersions(database) == [1, 2, 3])
        #expect(try migrate(database, migrations, ["--to", "1"]).status == 0)
        #expect(try appliedVersions(database) == [1])
        #expect(try migrate(database, migrations).status == 0)
        let rollback = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations, "--steps", "2"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(try appliedVersions(database) == [1, 2, 3])

        try write("-- migrate:up\nCREATE TABLE irreversible(a);\n", to: migrations + "/0006_irreversible.sql")
        #expect(try migrate(database, migrations).status == 0)
        let refused = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations, "--steps", "2"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("0006_irreversible.sql"))
        #expect(refused.stderr.contains("can not be rolled back"))
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5, 6])
    }

    @Test("--dry-run prints the SQL and changes nothing (the file's bytes are identical)")
    func dryRun() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        let before = FileManager.default.contents(atPath: database + "/db.sqlite")
        let result = try migrate(database, migrations, ["--dry-run"])
        #expect(result.status == 0)
        // Migrations are named by their file, as the user wrote it.
        #expect(result.stdout.contains("would run up 0001_create_author.sql:"))
        #expect(result.stdout.contains("CREATE TABLE author"))
        #expect(FileManager.default.contents(atPath: database + "/db.sqlite") == before)
        #expect(!FileManager.default.fileExists(atPath: database + "/.dbtool-migrate.lock"))
    }

    @Test("status as text and JSON; --exit-code is 1 while migrations are pending")
    func status() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try migrate(database, migrations, ["--to", "2"]).status == 0)
        let before = directoryFingerprint(database)
        let text = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations])
        // status writes nothing: no -wal or -shm left behind either.
        #expect(directoryFingerprint(database) == before)
        #expect(text.stdout.contains("applied      0002_create_book.sql"))
        #expect(text.stdout.contains("pending      0003_create_loan.sql"))
        let json = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--format", "json", "--exit-code"])
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["pendingCount"] as? Int == 3)
        #expect(
            ((report?["migrations"] as? [[String: Any]])?.map { $0["status"] as? String }) == [
                "applied", "applied", "pending", "pending", "pending",
            ])
        #expect(try migrate(database, migrations).status == 0)
        #expect(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code"]).status == 0)
    }

    @Test("drift: an edited applied file is refused until repaired; a CRLF-only edit is no drift")
    func drift() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try migrate(database, migrations).status == 0)
        let path = migrations + "/0001_create_author.sql"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try write(original.replacingOccurrences(of: "\n", with: "\r\n"), to: path)
        #expect(try migrate(database, migrations).status == 0)

        try write(original.replacingOccurrences(of: "country TEXT", with: "country TEXT, city TEXT"), to: path)
        let refused = try migrate(database, migrations)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("migration 1 (\(path)) was modified"))
        #expect(refused.stderr.contains("dbtool migrate repair 1"))
        let status = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations])
        #expect(status.stdout.contains("modified     0001_create_author.sql"))
        let repair = try dbtool(["migrate", "repair", "1", "--database", database, "--migrations", migrations])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(try migrate(database, migrations).status == 0)
        let audit = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            try Row.fetchOne(db, sql: "SELECT repaired_at, previous_checksum FROM dbtool_migrations WHERE version = 1")
        }
        #expect(audit?["repaired_at"] != nil)
        #expect(audit?["previous_checksum"] != nil)
    }

    @Test("a missing applied file and an out-of-order pending file are refused; --allow-out-of-order applies it")
    func missingAndOutOfOrder() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        try FileManager.default.moveItem(atPath: migrations + "/0003_create_loan.sql", toPath: scratch.file("0003_create_loan.sql"))
        #expect(try migrate(database, migrations).status == 0)
        #expect(try appliedVersions(database) == [1, 2, 4, 5])
        try FileManager.default.moveItem(atPath: scratch.file("0003_create_loan.sql"), toPath: migrations + "/0003_create_loan.sql")
        let outOfOrder = try migrate(database, migrations)
        #expect(outOfOrder.status == 65)
        #expect(outOfOrder.stderr.contains("older than the newest applied migration 5"))
        #expect(try migrate(database, migrations, ["--allow-out-of-order"]).status == 0)
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])

        try FileManager.default.removeItem(atPath: migrations + "/0002_create_book.sql")
        let missing = try migrate(database, migrations)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("migration 2 (create_book) is applied, but its file is missing"))
    }

    @Test("baseline marks an existing database as migrated without running anything")
    func baseline() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in try db.execute(sql: "CREATE TABLE legacy(a)") }
        let result = try dbtool(["migrate", "baseline", "2", "--database", database, "--migrations", migrations])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try appliedVersions(database) == [1, 2])
        let hasAuthor = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'author'")
        }
        #expect(hasAuthor == 0)
        #expect(try dbtool(["migrate", "baseline", "2", "--database", database, "--migrations", migrations]).status == 65)
    }

    @Test("new creates the next file with markers")
    func new() throws {
        let scratch = TemporaryDirectory()
        let (_, migrations) = try makeMigrationProject(scratch)
        let result = try dbtool(["migrate", "new", "add_members", "--migrations", migrations])
        #expect(result.status == 0, "\(result.stderr)")
        let contents = try String(contentsOfFile: migrations + "/0006_add_members.sql", encoding: .utf8)
        #expect(contents.contains("-- migrate:up") && contents.contains("-- migrate:down"))
        #expect(try dbtool(["migrate", "new", "bad name", "--migrations", migrations]).status == 64)
    }

    @Test("a migration failing at its third statement leaves nothing of it, naming the file and the line")
    func failingMigration() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        try write(
            """
            -- migrate:up
            CREATE TABLE member (id INTEGER PRIMARY KEY);
            INSERT INTO member VALUES (1);
            INSERT INTO nowhere VALUES (1);
            INSERT INTO member VALUES (2);
            """, to: migrations + "/0006_members.sql")
        let result = try migrate(database, migrations)
        #expect(result.status == 65)
        #expect(result.stderr.contains("0006_members.sql:4: no such table: nowhere"))
        #expect(result.stderr.contains("INSERT INTO nowhere VALUES (1)"))
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
        let member = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'member'")
        }
        #expect(member == 0)
    }

    @Test("a migration of megabytes runs in batches: all of it applied, or an error deep in it names its line and leaves nothing")
    func largeMigration() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        // 20,000 statements of ~110 bytes, CRLF line endings, a string holding
        // a semicolon and a newline: several batches and chunks.
        var lines = ["-- migrate:up", "CREATE TABLE bulk (id INTEGER PRIMARY KEY, note TEXT);"]
        for id in 1...20_000 {
            lines.append("INSERT INTO bulk VALUES (\(id), 'row \(id); \(String(repeating: "x", count: 60))');")
        }
        lines.insert("INSERT INTO bulk VALUES (0, 'a;\r\nb');", at: 2)
        let good = lines.joined(separator: "\r\n") + "\r\n-- migrate:down\r\nDROP TABLE bulk;\r\n"
        try write(good, to: migrations + "/0006_bulk.sql")
        let applied = try migrate(database, migrations)
        #expect(applied.status == 0, "\(applied.stderr)")
        let queue = try DatabaseQueue(path: database + "/db.sqlite")
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM bulk") } == 20_001)
        #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT note FROM bulk WHERE id = 0") } == "a;\nb")  // line endings are LF, as in the checksum
        #expect(try migrate(database, migrations, ["--to", "5"]).status == 0)

        // Line 15,004 of the file (the string's CRLF is a line of its own).
        lines[15_002] = "INSERT INTO nowhere VALUES (1);"
        try write(lines.joined(separator: "\r\n"), to: migrations + "/0006_bulk.sql")
        let failed = try migrate(database, migrations)
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("0006_bulk.sql:15004: no such table: nowhere"), "\(failed.stderr)")
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'bulk'") } == 0)
    }

    @Test("a foreign key violation fails the migration, naming the table")
    func foreignKeyViolation() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        try write("-- migrate:up\nINSERT INTO book (author_id, title) VALUES (99, 'Orphan');\n", to: migrations + "/0006_orphan.sql")
        let result = try migrate(database, migrations)
        #expect(result.status == 65)
        #expect(
            result.stderr.contains("0006_orphan.sql: the migration leaves foreign key violations (1 row references a missing row): book rowid "),
            "\(result.stderr)")
        #expect(result.stderr.contains("-> author"))
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
    }

    @Test("a no-transaction migration runs what SQLite refuses inside a transaction")
    func noTransaction() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        try write("-- dbtool:no-transaction\n-- migrate:up\nVACUUM;\n", to: migrations + "/0006_vacuum.sql")
        let result = try migrate(database, migrations)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5, 6])
    }

    @Test("--snapshot before migrating, and restore-snapshot puts the database back")
    func snapshotAndRestore() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try migrate(database, migrations).status == 0)
        try write("-- migrate:up\nDROP TABLE loan;\n", to: migrations + "/0006_drop_loan.sql")
        let result = try migrate(database, migrations, ["--snapshot", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let snapshot = try #require(report?["snapshot"] as? String)
        #expect(snapshot.hasPrefix(database + "/snapshots/pre-migrate-"))
        #expect(FileManager.default.fileExists(atPath: snapshot))
        let restore = try dbtool(["migrate", "restore-snapshot", "--database", database])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("at version 5"))
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
        let loans = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'loan'")
        }
        #expect(loans == 1)
        #expect(
            try dbtool(["exec", "--database", database, "PRAGMA integrity_check", "--format", "csv"]).stdout == "integrity_check\nok\n")
        // Nothing to migrate: no snapshot.
        #expect(try migrate(database, migrations, ["--snapshot", "--to", "5"]).stdout.contains("Nothing to do"))
    }

    @Test("a migrate waiting past --timeout for another one exits 75 naming its pid")
    func lockTimeout() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        // Hold the lock as another migrate would.
        let lockPath = database + "/.dbtool-migrate.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT, 0o600)
        #expect(flock(descriptor, LOCK_EX) == 0)
        let pid = Array("424242\n".utf8)
        _ = pwrite(descriptor, pid, pid.count, 0)
        let result = try migrate(database, migrations, ["--timeout", "0.3"])
        flock(descriptor, LOCK_UN)
        close(descriptor)
        #expect(result.status == 75)
        #expect(result.stderr.contains("pid 424242"))
        #expect(try migrate(database, migrations).status == 0)
    }
}
