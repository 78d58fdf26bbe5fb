import DatabaseKit
@testable import DBToolCore
import Foundation
import Testing
import TestSupport

@Suite("Migration files")
struct MigrationFileTests {
    @Test("up and down sections, line numbers, checksum of the up section")
    func sections() throws {
        let file = try MigrationFile(
            path: "/m/0001_create_user.sql",
            contents: """
                -- Users of the application.
                -- migrate:up
                CREATE TABLE user (id INTEGER PRIMARY KEY);
                CREATE INDEX user_id ON user(id);

                -- migrate:down
                DROP TABLE user;
                """)
        #expect(file.version == 1)
        #expect(file.versionText == "0001")
        #expect(file.name == "create_user")
        #expect(try file.sql(.up) == "CREATE TABLE user (id INTEGER PRIMARY KEY);\nCREATE INDEX user_id ON user(id);\n")
        #expect(try file.sql(.down) == "DROP TABLE user;")
        #expect(file.upFirstLine == 3)
        #expect(file.downFirstLine == 7)
        #expect(!file.runsOutsideTransaction)
        #expect(file.checksum.count == 64)
        #expect(try file.checksum == sha256Hex(try #require(try file.sql(.up))))
    }

    @Test("a file read from disk runs from disk; one changed since it was read fails before it is recorded")
    func changedWhileRunning() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("0001_t.sql")
        try "-- migrate:up\nCREATE TABLE t(x);\nINSERT INTO t VALUES (1);\n".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try MigrationFile(path: path)
        #expect(try file.sql(.up) == "CREATE TABLE t(x);\nINSERT INTO t VALUES (1);\n")
        let queue = try DatabaseQueue(path: directory.file("db.sqlite"))
        try queue.write { db in try file.run(.up, in: db) }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT x FROM t") } == 1)

        // Same length, another value: the text that runs is not the one checked.
        try "-- migrate:up\nCREATE TABLE u(x);\nINSERT INTO u VALUES (2);\n".write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: DBToolError.self) { try queue.write { db in try file.run(.up, in: db) } }
        #expect(error?.message.contains("0001_t.sql changed while the migration ran") == true)
        #expect(try queue.read { db in try db.tableExists("u") } == false)
    }

    @Test("a file without markers is all up")
    func noMarkers() throws {
        let file = try MigrationFile(path: "/m/20261122130500_add_column.sql", contents: "ALTER TABLE t ADD COLUMN c;\n")
        #expect(file.version == 20_261_122_130_500)
        #expect(try file.sql(.up) == "ALTER TABLE t ADD COLUMN c;\n")
        #expect(try file.sql(.down) == nil)
        #expect(file.upFirstLine == 1)
    }

    @Test("the no-transaction directive on the first line")
    func noTransaction() throws {
        let file = try MigrationFile(path: "/m/0003_vacuum.sql", contents: "-- dbtool:no-transaction\n-- migrate:up\nVACUUM;\n")
        #expect(file.runsOutsideTransaction)
        #expect(try file.sql(.up) == "VACUUM;\n")
        let later = try MigrationFile(path: "/m/0004_x.sql", contents: "-- migrate:up\n-- dbtool:no-transaction\nSELECT 1;\n")
        #expect(!later.runsOutsideTransaction)
    }

    @Test("CRLF and CR line endings give the same checksum as LF")
    func lineEndings() throws {
        let lf = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x);\nCREATE TABLE b(y);\n")
        let crlf = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\r\nCREATE TABLE a(x);\r\nCREATE TABLE b(y);\r\n")
        let cr = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\rCREATE TABLE a(x);\rCREATE TABLE b(y);\r")
        #expect(lf.checksum == crlf.checksum)
        #expect(lf.checksum == cr.checksum)
        let edited = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x, z);\nCREATE TABLE b(y);\n")
        #expect(edited.checksum != lf.checksum)
        // The down section is not part of the checksum.
        let withDown = try MigrationFile(
            path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x);\nCREATE TABLE b(y);\n-- migrate:down\nDROP TABLE a;")
        #expect(try withDown.checksum == sha256Hex("CREATE TABLE a(x);\nCREATE TABLE b(y);"))
    }

    @Test(
        "malformed files are errors naming the file (and the line)",
        arguments: [
            ("/m/create_user.sql", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001.sql", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001_x.txt.sql.bak", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001_x.sql", "CREATE TABLE t(a);\n-- migrate:up\nSELECT 1;", "/m/0001_x.sql:1: SQL before"),
            ("/m/0001_x.sql", "-- migrate:down\nSELECT 1;", "expected one `-- migrate:up`"),
            ("/m/0001_x.sql", "-- migrate:up\nSELECT 1;\n-- migrate:up\nSELECT 2;", "expected one `-- migrate:up`"),
        ])
    func malformed(path: String, contents: String, message: String) throws {
        let error = #expect(throws: DBToolError.self) { try MigrationFile(path: path, contents: contents) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }
}

@Suite("Migration directories")
struct MigrationDirectoryTests {
    private func makeDirectory(_ files: [String: Data]) throws -> String {
        let path = NSTemporaryDirectory() + "migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: path + "/" + name)) }
        return path
    }

    @Test("loads in numeric version order and ignores README-like files")
    func order() throws {
        let path = try makeDirectory([
            "10_ten.sql": Data("SELECT 10;".utf8),
            "9_nine.sql": Data("SELECT 9;".utf8),
            "0100_hundred.sql": Data("SELECT 100;".utf8),
            "README.md": Data("docs".utf8),
            "notes.txt": Data("notes".utf8),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [9, 10, 100])
    }

    @Test("the repository's migrations-examples load")
    func examples() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations-examples").path
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [1, 2, 3, 4, 5])
        #expect(directory.migrations.allSatisfy { $0.hasDown })
    }

    @Test("two files with the same version: 65, naming both")
    func duplicates() throws {
        let path = try makeDirectory(["0001_a.sql": Data("SELECT 1;".utf8), "1_b.sql": Data("SELECT 2;".utf8)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains("0001_a.sql") == true)
        #expect(error?.message.contains("1_b.sql") == true)
    }

    @Test("a file that is not UTF-8: 65, naming it")
    func notUTF8() throws {
        let path = try makeDirectory(["0001_a.sql": Data([0x53, 0xFF, 0xFE, 0x00, 0xC3])])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains("0001_a.sql is not UTF-8") == true)
    }

    @Test("a file that does not match the pattern: 65, naming it")
    func unexpectedFile() throws {
        let path = try makeDirectory(["0001_a.sql": Data("SELECT 1;".utf8), "setup.sql": Data("SELECT 2;".utf8)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.message.contains("setup.sql: the name is not VERSION_name.sql") == true)
    }

    @Test("a missing directory: 66; an empty one loads no migration")
    func missingAndEmpty() throws {
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: "/nonexistent/migrations") }
        #expect(error?.status == .noInput)
        let path = try makeDirectory([:])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try MigrationDirectory(path: path).migrations.isEmpty)
    }
}

/// SHA-256 by the system's sha256sum, to check the checksum independently.
func sha256Hex(_ text: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(result.prefix(64))
}

@Suite("Migration files of other tools")
struct OtherToolsMigrationFileTests {
    @Test("goose: Up and Down, StatementBegin/End kept as comments, NO TRANSACTION for both sections, case-insensitive")
    func goose() throws {
        let file = try MigrationFile(
            path: "/m/00001_post.sql",
            contents: """
                -- A comment before the markers.
                -- +goose NO TRANSACTION
                -- +goose Up
                -- +goose StatementBegin
                CREATE TRIGGER t AFTER INSERT ON post BEGIN
                  SELECT 1;
                END;
                -- +goose StatementEnd
                -- +GOOSE DOWN
                DROP TRIGGER t;
                """)
        #expect(file.version == 1)
        let up = try #require(try file.sql(.up))
        #expect(up.contains("CREATE TRIGGER t") && !up.contains("DROP"))
        #expect(up.hasPrefix("-- +goose StatementBegin\n"))
        #expect(file.upFirstLine == 4)
        #expect(try file.sql(.down) == "DROP TRIGGER t;")
        #expect(file.downFirstLine == 10)
        #expect(file.runsOutsideTransaction && file.downRunsOutsideTransaction)
        let transactional = try MigrationFile(path: "/m/2_x.sql", contents: "-- +goose Up\nSELECT 1;\n-- +goose Down\nSELECT 2;\n")
        #expect(!transactional.runsOutsideTransaction && !transactional.downRunsOutsideTransaction)
    }

    @Test("dbmate: transaction:false per section; sql-migrate: notransaction")
    func dbmateAndSQLMigrate() throws {
        let dbmate = try MigrationFile(
            path: "/m/20260101000000_vacuum.sql", contents: "-- migrate:up transaction:false\nVACUUM;\n\n-- migrate:down\nSELECT 1;\n")
        #expect(dbmate.runsOutsideTransaction)
        #expect(!dbmate.downRunsOutsideTransaction)
        #expect(try dbmate.sql(.up) == "VACUUM;\n")
        let down = try MigrationFile(path: "/m/1_x.sql", contents: "--migrate:up\nSELECT 1;\n-- migrate:down transaction:false\nVACUUM;")
        #expect(!down.runsOutsideTransaction && down.downRunsOutsideTransaction)
        let sqlMigrate = try MigrationFile(path: "/m/1_x.sql", contents: "-- +migrate Up notransaction\nVACUUM;\n-- +migrate Down\nSELECT 1;")
        #expect(sqlMigrate.runsOutsideTransaction && !sqlMigrate.downRunsOutsideTransaction)
        #expect(try sqlMigrate.sql(.down) == "SELECT 1;")
        // A comment that merely starts with "migrate:" is prose.
        let prose = try MigrationFile(path: "/m/1_x.sql", contents: "-- migrate: adds a column\nALTER TABLE t ADD c;")
        #expect(try prose.sql(.up)?.contains("ALTER TABLE") == true)
    }

    @Test("a checksum does not depend on the marker syntax")
    func checksums() throws {
        let dbtool = try MigrationFile(path: "/m/1_x.sql", contents: "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down\nDROP TABLE a;")
        let goose = try MigrationFile(path: "/m/1_x.sql", contents: "-- +goose Up\nCREATE TABLE a(x);\n-- +goose Down\nDROP TABLE a;")
        #expect(dbtool.checksum == goose.checksum)
    }

    @Test(
        "markers dbtool does not understand are refused (65), naming the file, line and marker",
        arguments: [
            ("-- +goose Up\n-- +goose ENVSUB ON\nSELECT '$X';", "/m/1_x.sql:2: `-- +goose ENVSUB ON`: dbtool does not substitute"),
            ("-- +goose Up\n-- +goose Sideways\nSELECT 1;", "/m/1_x.sql:2: `-- +goose Sideways`: unknown goose annotation"),
            ("-- migrate:up transaction:maybe\nSELECT 1;", "/m/1_x.sql:1: `-- migrate:up transaction:maybe`: unknown option"),
            ("-- migrate:dwon\nSELECT 1;", "/m/1_x.sql:1: `-- migrate:dwon`: unknown marker"),
            ("-- +migrate Up sometimes\nSELECT 1;", "/m/1_x.sql:1: `-- +migrate Up sometimes`: unknown option"),
            ("-- +goose Down\nSELECT 1;", "expected one `-- +goose Up` line, optionally followed by one `-- +goose Down` line"),
            ("SELECT 1;\n-- +goose Up\nSELECT 2;", "/m/1_x.sql:1: SQL before `-- +goose Up`"),
            ("-- +goose Up\n-- +goose StatementBegin\nSELECT 1;\n-- +goose Down\nSELECT 2;", "/m/1_x.sql:2: `-- +goose StatementBegin` has no StatementEnd"),
            ("-- +goose Up\nSELECT 1;\n-- +goose StatementEnd", "/m/1_x.sql:3: `-- +goose StatementEnd` without a StatementBegin"),
            ("-- migrate:up\nSELECT 1;\n-- +goose Down\nSELECT 2;", "/m/1_x.sql:3: `-- +goose Down` is a goose marker in a file of dbmate markers"),
        ])
    func unsupported(contents: String, message: String) throws {
        let error = #expect(throws: DBToolError.self) { try MigrationFile(path: "/m/1_x.sql", contents: contents) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("golang-migrate: a pair is one migration; markers in it, or a down file alone, are refused")
    func golangMigratePairs() throws {
        let path = NSTemporaryDirectory() + "migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name)) }
        try write("000000_init.up.sql", "CREATE TABLE a(x);\n")
        try write("000000_init.down.sql", "DROP TABLE a;\n")
        try write("000001_b.up.sql", "CREATE TABLE b(x);\n")
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [0, 1])
        #expect(directory.migrations[0].name == "init")
        #expect(try directory.migrations[0].sql(.up) == "CREATE TABLE a(x);\n")
        #expect(try directory.migrations[0].sql(.down) == "DROP TABLE a;\n")
        #expect(directory.migrations[0].downFile.hasSuffix("000000_init.down.sql"))
        #expect(try directory.migrations[1].sql(.down) == nil)

        try write("000002_c.down.sql", "DROP TABLE c;\n")
        let alone = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(alone?.message.contains("000002_c.down.sql: a golang-migrate down file without its .up.sql file") == true)
        try FileManager.default.removeItem(atPath: path + "/000002_c.down.sql")

        try write("000003_d.up.sql", "-- migrate:up\nCREATE TABLE d(x);\n")
        let marked = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(marked?.message.contains("000003_d.up.sql:1: `-- migrate:up` in a golang-migrate file") == true)
        try FileManager.default.removeItem(atPath: path + "/000003_d.up.sql")

        try write("0001_again.sql", "SELECT 1;")
        let duplicate = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(duplicate?.message.contains("two migrations have the version 1") == true)
    }

    @Test("files that are not .sql, and subdirectories, are skipped and listed (a README silently); a badly named .sql file is still refused")
    func skipped() throws {
        let path = NSTemporaryDirectory() + "migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/archive", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (name, text) in [("0001_a.sql", "SELECT 1;"), ("0002_seed.py", "print(1)"), ("atlas.sum", "h1:x"), (".keep", ""), ("README.md", "# Migrations")] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
        }
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [1])
        #expect(directory.skipped == [".keep", "0002_seed.py", "archive/", "atlas.sum"])
        #expect(directory.skippedNotice == "skipped 4 files that are not .sql migrations in \(path): .keep, 0002_seed.py, archive/, atlas.sum")
        try Data("SELECT 2;".utf8).write(to: URL(fileURLWithPath: path + "/0002-typo.sql"))
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.message.contains("0002-typo.sql: the name is not VERSION_name.sql") == true)
    }
}

@Suite("SQL scripts that manage their own transactions")
struct SQLScriptTests {
    @Test("statement keywords: strings, identifiers, comments and trigger bodies do not split statements")
    func keywords() {
        let script = """
            PRAGMA foreign_keys=OFF;
            BEGIN TRANSACTION;
            CREATE TABLE "t;x"(a TEXT DEFAULT 'a;b', [c;d] INT); -- a comment; with a semicolon
            /* BEGIN; */ INSERT INTO "t;x" VALUES ('it''s; fine', 1);
            CREATE TEMP TRIGGER tr AFTER INSERT ON "t;x" BEGIN
              UPDATE "t;x" SET a = CASE WHEN new.a IS NULL THEN 'n' ELSE new.a END;
              DELETE FROM "t;x" WHERE 0;
            END;
            COMMIT;
            """
        #expect(SQLScript.statementKeywords(script) == ["PRAGMA", "BEGIN", "CREATE", "INSERT", "CREATE", "COMMIT"])
        #expect(SQLScript.managesTransactions(script))
        #expect(!SQLScript.managesTransactions("CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END; INSERT INTO x VALUES (1);"))
        #expect(SQLScript.managesTransactions("savepoint a; release a;"))
        #expect(!SQLScript.managesTransactions("SELECT 'BEGIN;'; -- BEGIN;\n"))
    }

    @Test("statement keywords: any case, EXPLAIN before a trigger, nested CASE, non-ASCII words, unterminated ends")
    func keywordEdges() {
        let script = """
            explain query plan create temp trigger t after insert on x begin
              select case when 1 then case 2 when 2 then 'a' end else 'b' end;
              select 1;
            end;
            begin immediate;
            été_2024 = 1;
            _x;
            commit
            """
        #expect(SQLScript.statementKeywords(script) == ["EXPLAIN", "BEGIN", "ÉTÉ_2024", "_X", "COMMIT"])
        // A trigger body's END; ends it in any case, and a word that only
        // starts with END does not.
        #expect(
            SQLScript.statementKeywords("CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT endless; eNd; SELECT 2;")
                == ["CREATE", "SELECT"])
        // An unterminated string, identifier or comment runs to the end.
        #expect(SQLScript.statementKeywords("SELECT 'a;b") == ["SELECT"])
        #expect(SQLScript.statementKeywords("SELECT [a;b") == ["SELECT"])
        #expect(SQLScript.statementKeywords("SELECT 1; /* BEGIN; *") == ["SELECT"])
        #expect(SQLScript.statementKeywords("-- only a comment") == [])
        #expect(SQLScript.statementKeywords(";;BEGIN") == ["BEGIN"])
        #expect(SQLScript.statementKeywords("1; 'x'; BEGIN") == ["", "", "BEGIN"])
    }
}

@Suite("exec arguments")
struct ExecArgumentTests {
    private func values(_ arguments: [String]) throws -> [DatabaseValue] {
        let parsed = try ExecArgumentParser.parse(arguments)
        return try DatabaseQueue().read { db in
            try Row.fetchOne(db, sql: "SELECT " + arguments.indices.map { _ in "?" }.joined(separator: ", "), arguments: parsed)?
                .databaseValues ?? []
        }
    }

    @Test("inference never loses a character; a prefix gives the exact type")
    func inference() throws {
        #expect(try values(["42", "-7", "0", "1.5"]) == [42.databaseValue, (-7).databaseValue, 0.databaseValue, 1.5.databaseValue])
        #expect(try values(["0171", "+5", "-0", "1.50", "1e3", ".5"]) == ["0171", "+5", "-0", "1.50", "1e3", ".5"].map(\.databaseValue))
        #expect(try values(["NULL", "null"]) == [.null, "null".databaseValue])
        #expect(try values(["text:0171", "text:NULL", "text:", "int:5", "integer:-3", "real:1e3", "blob:CAFE", "null:"]) == [
            "0171".databaseValue, "NULL".databaseValue, "".databaseValue, 5.databaseValue, (-3).databaseValue, 1000.0.databaseValue,
            Data([0xCA, 0xFE]).databaseValue, .null,
        ])
        #expect(try values(["text:text:x", "http://example.com", "12:30"]) == ["text:x", "http://example.com", "12:30"].map(\.databaseValue))
    }

    @Test("a typed value that is not of its type is a usage error naming the argument", arguments: ["int:x", "real:", "blob:ABC", "null:x"])
    func invalid(argument: String) throws {
        let error = #expect(throws: DBToolError.self) { try ExecArgumentParser.parse([argument]) }
        #expect(error?.status == .usage)
        #expect(error?.message.hasPrefix("--arg \(argument):") == true)
    }
}
