import DatabaseKit
import Foundation
import Testing
import TestSupport

/// dbtool on what projects moving to it bring: migration sets written for
/// goose, golang-migrate and dbmate, databases those tools migrated, folders
/// with other files, `sqlite3 .dump` scripts, FTS5 schemas.
@Suite("Real projects")
struct RealProjectsTests {
    private func write(_ files: [String: String], in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name)) }
    }

    private func migrate(_ database: String, _ migrations: String, _ extra: [String] = []) throws -> ToolResult {
        try dbtool(["migrate", "--database", database, "--migrations", migrations] + extra)
    }

    private func query<T: DatabaseValueConvertible>(_ database: String, _ sql: String, as: T.Type = T.self) throws -> [T] {
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in try T.fetchAll(db, sql: sql) }
    }

    private func tables(_ database: String) throws -> [String] {
        try query(database, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    }

    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    // MARK: Migration sets of other tools

    @Test("a goose set: StatementBegin/End around a trigger, NO TRANSACTION for a VACUUM, Down run only on rollback")
    func gooseSet() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("goose")
        try write(
            [
                "00001_create_post.sql": """
                -- +goose Up
                -- +goose StatementBegin
                CREATE TABLE post(id INTEGER PRIMARY KEY, title TEXT);
                CREATE TRIGGER post_upper AFTER INSERT ON post BEGIN
                  UPDATE post SET title = upper(new.title) WHERE id = new.id;
                END;
                -- +goose StatementEnd

                -- +goose Down
                DROP TABLE post;
                """,
                "00002_vacuum.sql": "-- +goose NO TRANSACTION\n-- +goose Up\nVACUUM;\n-- +goose Down\nVACUUM;\n",
            ], in: migrations)
        let database = try scratch.makeDatabase()
        let result = try migrate(database, migrations)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("applied 00001_create_post.sql") && result.stdout.contains("applied 00002_vacuum.sql"))
        // The Down section did not run: the table is there, with its trigger.
        try DatabaseQueue(path: database + "/db.sqlite").write { db in try db.execute(sql: "INSERT INTO post(title) VALUES ('hello')") }
        #expect(try query(database, "SELECT title FROM post", as: String.self) == ["HELLO"])
        let rollback = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations, "--steps", "2"])
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect(!(try tables(database)).contains("post"))
    }

    @Test("golang-migrate pairs starting at version 0: --to 0 applies only 0, --to none rolls back all, 0 in every command")
    func golangMigrateFromZero() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("gm")
        try write(
            [
                "000000_init.up.sql": "CREATE TABLE a(x);\n", "000000_init.down.sql": "DROP TABLE a;\n",
                "000001_b.up.sql": "CREATE TABLE b(x);\n", "000001_b.down.sql": "DROP TABLE b;\n",
            ], in: migrations)
        let database = try scratch.makeDatabase()
        let toZero = try migrate(database, migrations, ["--to", "0"])
        #expect(toZero.status == 0, "\(toZero.stderr)")
        #expect(toZero.stdout.contains("applied 000000_init.up.sql") && toZero.stdout.contains("is at version 0."))
        #expect(try query(database, "SELECT version FROM dbtool_migrations", as: Int.self) == [0])
        #expect(try migrate(database, migrations, ["--to", "0"]).stdout.contains("Nothing to do"))
        #expect(try migrate(database, migrations).status == 0)
        #expect(try query(database, "SELECT version FROM dbtool_migrations ORDER BY version", as: Int.self) == [0, 1])
        let none = try migrate(database, migrations, ["--to", "none", "--format", "json"])
        #expect(none.status == 0, "\(none.stderr)")
        let steps = try json(none)["steps"] as? [[String: Any]]
        #expect(steps?.map { $0["file"] as? String } == ["000001_b.down.sql", "000000_init.down.sql"])
        #expect(!(try tables(database)).contains("a"))
        // A version that no file has, 0 included when none has it, is refused.
        let missing = try migrate(database, migrations, ["--to", "7"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--to none"))
        // rollback, repair, baseline and status with version 0.
        #expect(try migrate(database, migrations, ["--to", "0"]).status == 0)
        let rollback = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations])
        #expect(rollback.stdout.contains("rolled back 000000_init.down.sql"), "\(rollback.stderr)")
        let fresh = scratch.file("fresh")
        #expect(try dbtool(["init", fresh, "-q"]).status == 0)
        try DatabaseQueue(path: fresh + "/db.sqlite").write { db in try db.execute(sql: "CREATE TABLE a(x)") }
        let baseline = try dbtool(["migrate", "baseline", "0", "--database", fresh, "--migrations", migrations])
        #expect(baseline.status == 0, "\(baseline.stderr)")
        try write(["000000_init.up.sql": "CREATE TABLE a(x, y);\n"], in: migrations)
        #expect(try dbtool(["migrate", "repair", "0", "--database", fresh, "--migrations", migrations]).status == 0)
        let status = try dbtool(["migrate", "status", "--database", fresh, "--migrations", migrations, "--format", "json"])
        let entries = try json(status)["migrations"] as? [[String: Any]]
        #expect(entries?.map { $0["status"] as? String } == ["applied", "pending"])
    }

    @Test("dbmate's transaction:false runs PRAGMA journal_mode; other files are skipped with one notice; a .sql typo is refused")
    func dbmateAndOtherFiles() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("db/migrations")
        try write(
            [
                "20260101000000_journal.sql": "-- migrate:up transaction:false\nPRAGMA journal_mode = DELETE;\n\n-- migrate:down transaction:false\nPRAGMA journal_mode = WAL;\n",
                "20260102000000_seed.py": "print('not SQL')", "atlas.sum": "h1:abc", ".keep": "",
            ], in: migrations)
        let database = try scratch.makeDatabase()
        let result = try migrate(database, migrations)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try query(database, "PRAGMA journal_mode", as: String.self) == ["delete"])
        let notices = result.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("dbtool: notice: skipped") }
        #expect(notices == ["dbtool: notice: skipped 3 files that are not .sql migrations in \(migrations): .keep, 20260102000000_seed.py, atlas.sum"])
        let status = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code"])
        #expect(status.status == 0)
        #expect(status.stderr.contains("20260102000000_seed.py"))
        #expect(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "-q"]).stderr.isEmpty)
        try write(["20260103000000-typo.sql": "SELECT 1;"], in: migrations)
        let typo = try migrate(database, migrations)
        #expect(typo.status == 65)
        #expect(typo.stderr.contains("20260103000000-typo.sql: the name is not VERSION_name.sql"))
    }

    /// The bookkeeping each tool leaves, for versions 1 and 2 of a three-file set.
    static let otherTools: [(tool: String, table: String, sql: String)] = [
        (
            "goose", "goose_db_version",
            """
            CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
                is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
            INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1), (1, 1), (2, 1), (3, 1), (3, 0);
            """
        ),
        (
            "golang-migrate", "schema_migrations",
            """
            CREATE TABLE schema_migrations (version uint64, dirty bool);
            CREATE UNIQUE INDEX version_unique ON schema_migrations (version);
            INSERT INTO schema_migrations VALUES (2, 0);
            """
        ),
        (
            "dbmate", "schema_migrations",
            "CREATE TABLE schema_migrations (version varchar(128) PRIMARY KEY); INSERT INTO schema_migrations VALUES ('1'), ('2');"
        ),
    ]

    @Test("a database another tool migrated: status names it, migrate refuses and applies nothing twice, adopt records it", arguments: 0..<3)
    func adoptOtherTool(index: Int) throws {
        let (tool, table, bookkeeping) = Self.otherTools[index]
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("m")
        try write(
            [
                "0001_a.sql": "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down\nDROP TABLE a;\n",
                "0002_b.sql": "-- migrate:up\nCREATE TABLE b(x);\n", "0003_c.sql": "-- migrate:up\nCREATE TABLE c(x);\n",
            ], in: migrations)
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE a(x); CREATE TABLE b(x);")
            try db.execute(sql: bookkeeping)
        }
        let status = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code"])
        #expect(status.status == 3, "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("migrated by \(tool) (table \(table)) up to version 2"), "\(status.stdout)")
        let jsonStatus = try json(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--format", "json"]))
        let other = jsonStatus["otherTool"] as? [String: Any]
        #expect(other?["tool"] as? String == tool)
        #expect(other?["appliedVersions"] as? [Int] == [1, 2])

        let refused = try migrate(database, migrations)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("`dbtool migrate adopt`") && refused.stderr.contains("`dbtool migrate baseline 2`"), "\(refused.stderr)")
        #expect(try tables(database).contains("c") == false)

        let adopt = try dbtool(["migrate", "adopt", "--database", database, "--migrations", migrations, "--format", "json"])
        #expect(adopt.status == 0, "\(adopt.stderr)")
        let records = try query(database, "SELECT version || ':' || checksum FROM dbtool_migrations ORDER BY version", as: String.self)
        #expect(records.count == 2)
        let applied = try migrate(database, migrations)
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("applied 0003_c.sql") && !applied.stdout.contains("0001_a.sql"))
        #expect(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code"]).status == 0)
        // The other tool's table is left as it was.
        #expect(try tables(database).contains(table))
        #expect(try dbtool(["migrate", "adopt", "--database", database, "--migrations", migrations]).status == 65)
    }

    @Test("adopt refuses a dirty golang-migrate version and versions without a file, changing nothing")
    func adoptRefusals() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("m")
        try write(["0001_a.sql": "CREATE TABLE a(x);\n"], in: migrations)
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE schema_migrations (version uint64, dirty bool); INSERT INTO schema_migrations VALUES (1, 1);")
        }
        let dirty = try dbtool(["migrate", "adopt", "--database", database, "--migrations", migrations])
        #expect(dirty.status == 65)
        #expect(dirty.stderr.contains("dirty"))
        try DatabaseQueue(path: database + "/db.sqlite").write { db in try db.execute(sql: "UPDATE schema_migrations SET version = 2, dirty = 0") }
        let withoutFile = try dbtool(["migrate", "adopt", "--database", database, "--migrations", migrations])
        #expect(withoutFile.status == 65)
        #expect(withoutFile.stderr.contains("versions that have no file in \(migrations): 2"), "\(withoutFile.stderr)")
        #expect(try !tables(database).contains("dbtool_migrations"))
    }

    // MARK: Honest partial failures

    @Test("a rollback failing at its second migration reports the first, in text and in one JSON document with the failure")
    func partialRollback() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("m")
        try write(
            [
                "0001_a.sql": "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down\nDROP TABLE a;\n",
                "0002_b.sql": "-- migrate:up\nCREATE TABLE b(x);\n-- migrate:down\nDROP TABLE nowhere;\n",
                "0003_c.sql": "-- migrate:up\nCREATE TABLE c(x);\n-- migrate:down\nDROP TABLE c;\n",
            ], in: migrations)
        let database = try scratch.makeDatabase()
        #expect(try migrate(database, migrations).status == 0)
        let text = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations, "--steps", "3"])
        #expect(text.status == 65)
        #expect(text.stdout.contains("rolled back 0003_c.sql"))
        #expect(text.stdout.contains("failed down 0002_b.sql"))
        #expect(text.stdout.contains("is at version 2."))
        #expect(text.stderr.contains("0002_b.sql:4: no such table: nowhere"))
        #expect(text.stderr.contains("nothing of it was rolled back"))
        #expect(text.stderr.contains("The migration rolled back before it stays rolled back"))
        #expect(!text.stderr.contains("applied"), "worded for a rollback: \(text.stderr)")

        #expect(try migrate(database, migrations).status == 0)
        let document = try dbtool(["migrate", "rollback", "--database", database, "--migrations", migrations, "--steps", "3", "--format", "json"])
        #expect(document.status == 65)
        let report = try json(document)
        #expect((report["steps"] as? [[String: Any]])?.map { $0["file"] as? String } == ["0003_c.sql"])
        #expect((report["failed"] as? [String: Any])?["version"] as? Int == 2)
        #expect((report["error"] as? [String: Any])?["status"] as? Int == 65)
        #expect(report["version"] as? Int == 2)

        // Up: the migrations applied before the failure are listed.
        try write(["0004_bad.sql": "-- migrate:up\nINSERT INTO nowhere VALUES (1);\n"], in: migrations)
        #expect(try dbtool(["migrate", "--database", database, "--migrations", migrations, "--to", "2"]).status == 0)
        let up = try migrate(database, migrations)
        #expect(up.status == 65)
        #expect(up.stdout.contains("applied 0003_c.sql") && up.stdout.contains("failed up 0004_bad.sql"))
        #expect(up.stderr.contains("The migration applied before it stays applied"))
    }

    @Test("a foreign key violation that predates the migrations is a notice; one a migration adds fails it, named")
    func preexistingViolation() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("m")
        try write(
            [
                "0001_tables.sql": """
                -- migrate:up
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
                """
            ], in: migrations)
        let database = try scratch.makeDatabase()
        #expect(try migrate(database, migrations).status == 0)
        // The application runs without foreign_keys = ON and left an orphan.
        var config = Configuration()
        config.foreignKeysEnabled = false
        try DatabaseQueue(path: database + "/db.sqlite", configuration: config).write { db in
            try db.execute(sql: "INSERT INTO child VALUES (7, 99)")
        }
        try write(["0002_rebuild.sql": """
            -- migrate:up
            CREATE TABLE child_new(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), note TEXT);
            INSERT INTO child_new(id, parent_id) SELECT id, parent_id FROM child;
            DROP TABLE child;
            ALTER TABLE child_new RENAME TO child;
            """], in: migrations)
        let result = try migrate(database, migrations)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("notice: the database already has foreign key violations (1 row references a missing row): child rowid 7 -> parent"))
        try write(["0003_orphan.sql": "-- migrate:up\nINSERT INTO child(id, parent_id) VALUES (8, 100);\n"], in: migrations)
        let failing = try migrate(database, migrations, ["--format", "json"])
        #expect(failing.status == 65)
        #expect(failing.stderr.contains("0003_orphan.sql: the migration leaves foreign key violations (1 row references a missing row): child rowid 8 -> parent"))
        let errorLine = failing.stderr.components(separatedBy: "\n").first { $0.hasPrefix("dbtool: error:") } ?? ""
        #expect(!errorLine.contains("rowid 7 ->"), "the old violation is not blamed on it")
        let warnings = try json(failing)["warnings"] as? [String]
        #expect(warnings?.first?.contains("child rowid 7 -> parent") == true)
        #expect(try query(database, "SELECT id FROM child ORDER BY id", as: Int.self) == [7])
    }

    @Test("status --exit-code: 1 for pending, 3 for a modified or missing file; counts in JSON; restore-snapshot takes --migrations")
    func statusExitCodes() throws {
        let scratch = TemporaryDirectory()
        let migrations = scratch.file("m")
        try write(["0001_a.sql": "CREATE TABLE a(x);\n", "0002_b.sql": "CREATE TABLE b(x);\n"], in: migrations)
        let database = try scratch.makeDatabase()
        let status = { try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code", "-q"]).status }
        #expect(try status() == 1)
        #expect(try migrate(database, migrations, ["--to", "1", "--snapshot"]).status == 0)
        #expect(try status() == 1)
        try write(["0001_a.sql": "CREATE TABLE a(x, y);\n"], in: migrations)
        #expect(try status() == 3)
        let counts = try json(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--format", "json"]))
        #expect(counts["modifiedCount"] as? Int == 1 && counts["missingCount"] as? Int == 0 && counts["pendingCount"] as? Int == 1)
        #expect(try migrate(database, migrations).status == 65, "migrate refuses what status flagged")
        try write(["0001_a.sql": "CREATE TABLE a(x);\n"], in: migrations)
        try FileManager.default.removeItem(atPath: migrations + "/0002_b.sql")
        #expect(try migrate(database, migrations, ["--to", "1"]).status == 0)
        try write(["0002_b.sql": "CREATE TABLE b(x);\n", "0000_early.sql": "CREATE TABLE early(x);\n"], in: migrations)
        #expect(try status() == 3, "out of order")
        #expect(try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--exit-code", "--allow-out-of-order", "-q"]).status == 1)
        let restore = try dbtool(["migrate", "restore-snapshot", "--database", database, "--migrations", migrations])
        #expect(restore.status == 0, "\(restore.stderr)")
    }

    // MARK: exec and schema

    @Test("sqlite3 .dump | dbtool exec: the dump's own transaction runs as written, FTS5 included")
    func dumpRoundTrip() throws {
        let scratch = TemporaryDirectory()
        let source = try scratch.makeDatabase("source")
        try DatabaseQueue(path: source + "/db.sqlite").write { db in
            try db.execute(sql: """
                CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE book(id INTEGER PRIMARY KEY AUTOINCREMENT, author_id INTEGER REFERENCES author(id), title TEXT);
                CREATE VIRTUAL TABLE docs USING fts5(title, body);
                INSERT INTO author VALUES (1, 'Ann'); INSERT INTO book(author_id, title) VALUES (1, 'it''s; here');
                INSERT INTO docs VALUES ('hello', 'world');
                """)
        }
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        dump.arguments = [source + "/db.sqlite", ".dump"]
        let pipe = Pipe()
        dump.standardOutput = pipe
        try dump.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        dump.waitUntilExit()
        #expect(text.contains("BEGIN TRANSACTION;"))
        try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.file("dump.sql")))
        let target = scratch.file("target")
        #expect(try dbtool(["init", target, "-q"]).status == 0)
        let result = try dbtool(["exec", "--database", target, "--file", scratch.file("dump.sql")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try query(target, "SELECT title FROM book", as: String.self) == ["it's; here"])
        #expect(try query(target, "SELECT body FROM docs WHERE docs MATCH 'hello'", as: String.self) == ["world"])
        // A script that leaves its transaction open: rolled back, 65.
        let open = try dbtool(["exec", "--database", target, "BEGIN; INSERT INTO author VALUES (2, 'Bob');"])
        #expect(open.status == 65)
        #expect(open.stderr.contains("left a transaction open"))
        #expect(try query(target, "SELECT COUNT(*) FROM author", as: Int.self) == [1])
        // Inside dbtool's transaction anyway (--no-transaction not needed), a failure rolls the script's back.
        let failing = try dbtool(["exec", "--database", target, "BEGIN; INSERT INTO author VALUES (3, 'C'); INSERT INTO nowhere VALUES (1); COMMIT;"])
        #expect(failing.status == 65)
        #expect(try query(target, "SELECT COUNT(*) FROM author", as: Int.self) == [1])
    }

    @Test("exec: leading zeros stay text, text:NULL is text, one JSON array per result set, table cells on one line, --readonly says so")
    func execOutputs() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE address(postal_code TEXT); INSERT INTO address VALUES ('0171'), ('NULL')")
        }
        let found = try dbtool(["exec", "--database", database, "SELECT COUNT(*) FROM address WHERE postal_code = ?", "--arg", "0171", "--format", "csv"])
        #expect(found.stdout == "COUNT(*)\n1\n")
        let nullText = try dbtool(["exec", "--database", database, "SELECT COUNT(*) FROM address WHERE postal_code = ?", "--arg", "text:NULL", "--format", "csv"])
        #expect(nullText.stdout == "COUNT(*)\n1\n")
        let two = try dbtool(["exec", "--database", database, "SELECT 1 AS a; SELECT 2 AS b", "--format", "json"])
        #expect(two.stdout == "[\n{\"a\":1}\n]\n[\n{\"b\":2}\n]\n")
        #expect(try dbtool(["exec", "--database", database, "SELECT 1 AS a WHERE 0", "--format", "json"]).stdout == "[]\n")
        #expect(try dbtool(["exec", "--database", database, "CREATE TABLE t(x)", "--format", "json"]).stdout == "[]\n")
        let table = try dbtool(["exec", "--database", database, "SELECT 'a\nb' AS v, 'c\td' AS w", "--format", "table"])
        #expect(table.stdout == "v     w\n----  ----\na\\nb  c\\td\n")
        let readonly = try dbtool(["exec", "--database", database, "--readonly", "DELETE FROM address"])
        #expect(readonly.status == 77)
        #expect(readonly.stderr.contains("was opened read-only (--readonly)"))
        #expect(!readonly.stderr.contains("permissions"))
    }

    @Test("schema --sql of an FTS5 database replays into an empty one; no shadow table in text or JSON; ON UPDATE shown")
    func fts5Schema() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE docs USING fts5(title, body);
                CREATE TABLE note(id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES account(id) ON DELETE CASCADE ON UPDATE SET NULL);
                """)
        }
        let sql = try dbtool(["schema", "--database", database, "--sql"])
        #expect(sql.status == 0)
        #expect(!sql.stdout.contains("docs_data") && !sql.stdout.contains("docs_config"))
        let empty = scratch.file("empty")
        #expect(try dbtool(["init", empty, "-q"]).status == 0)
        let replay = try dbtool(["exec", "--database", empty], stdin: sql.stdout)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(try dbtool(["schema", "--database", empty, "--sql"]).stdout == sql.stdout)
        let text = try dbtool(["schema", "--database", database]).stdout
        #expect(text.contains("table docs (virtual, fts5)"))
        #expect(!text.contains("docs_idx"))
        #expect(text.contains("on delete cascade on update set null"))
        let report = try json(try dbtool(["schema", "--database", database, "--format", "json"]))
        let names = (report["tables"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["account", "docs", "note"])
    }
}
