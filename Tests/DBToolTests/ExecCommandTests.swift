import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("dbtool exec")
struct ExecCommandTests {
    private func makeValues(_ scratch: TemporaryDirectory) throws -> String {
        let directory = try scratch.makeDatabase()
        let result = try dbtool([
            "exec", "--database", directory,
            "CREATE TABLE v(id INTEGER PRIMARY KEY, t TEXT, r REAL, b BLOB); INSERT INTO v VALUES (1, '', 2.5, x'00ff'), (2, NULL, NULL, NULL), (3, 'a,\"b\"', -1e300, x'')",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return directory
    }

    @Test("table: NULL and '' differ, blobs are hex")
    func table() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeValues(scratch)
        let result = try dbtool(["exec", "--database", directory, "SELECT id, t, b FROM v ORDER BY id", "--format", "table"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                id  t      b
                --  -----  -------
                1   ''     x'00FF'
                2   NULL   NULL
                3   a,"b"  x''

                """)
    }

    @Test("csv: NULL is an empty field, '' is \"\"")
    func csv() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeValues(scratch)
        let result = try dbtool(["exec", "--database", directory, "SELECT id, t, r FROM v ORDER BY id", "--format", "csv"])
        #expect(result.stdout == "id,t,r\n1,\"\",2.5\n2,,\n3,\"a,\"\"b\"\"\",-1e+300\n")
    }

    @Test("tsv: NULL is \\N")
    func tsv() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeValues(scratch)
        let result = try dbtool(["exec", "--database", directory, "SELECT id, t FROM v ORDER BY id", "--format", "tsv"])
        #expect(result.stdout == "id\tt\n1\t\n2\t\\N\n3\ta,\"b\"\n")
    }

    @Test("json and jsonl: null, \"\", numbers, base64 blobs")
    func json() throws {
        let scratch = TemporaryDirectory()
        let directory = try makeValues(scratch)
        let json = try dbtool(["exec", "--database", directory, "SELECT id, t, r, b FROM v ORDER BY id", "--format", "json"])
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 3)
        #expect(rows?[0]["t"] as? String == "")
        #expect(rows?[0]["b"] as? String == Data([0, 255]).base64EncodedString())
        #expect(rows?[0]["r"] as? Double == 2.5)
        #expect(rows?[1]["t"] is NSNull)
        #expect(rows?[2]["r"] as? Double == -1e300)
        let jsonl = try dbtool(["exec", "--database", directory, "SELECT id FROM v ORDER BY id", "--format", "jsonl"])
        #expect(jsonl.stdout == "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n")
        let empty = try dbtool(["exec", "--database", directory, "SELECT id FROM v WHERE 0", "--format", "json"])
        #expect(empty.stdout == "[]\n")
    }

    @Test("bound arguments, positional and named, never spliced")
    func arguments() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let positional = try dbtool([
            "exec", "--database", directory, "SELECT ? + 1 AS n, typeof(?) AS t, ? AS s", "--arg", "41", "--arg", "1.5", "--arg",
            "x'); DROP TABLE account; --", "--format", "csv",
        ])
        #expect(positional.stdout == "n,t,s\n42,real,x'); DROP TABLE account; --\n")
        let named = try dbtool([
            "exec", "--database", directory, "SELECT balance FROM account WHERE id = :id", "--arg", "id=3", "--format", "csv",
        ])
        #expect(named.stdout == "balance\n100\n")
        let null = try dbtool(["exec", "--database", directory, "SELECT typeof(?) AS t", "--arg", "NULL", "--format", "csv"])
        #expect(null.stdout == "t\nnull\n")
        let missing = try dbtool(["exec", "--database", directory, "SELECT :id"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("missing statement argument: id"))
        #expect(
            try dbtool(["exec", "--database", directory, "SELECT COUNT(*) FROM account", "--format", "csv"]).stdout == "COUNT(*)\n10\n")
    }

    @Test("SQL from --file and from stdin")
    func inputs() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let file = scratch.file("query.sql")
        try Data("SELECT 7 AS x;".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try dbtool(["exec", "--database", directory, "--file", file, "--format", "csv"]).stdout == "x\n7\n")
        #expect(try dbtool(["exec", "--database", directory, "--format", "csv"], stdin: "SELECT 8 AS y").stdout == "y\n8\n")
        let missing = try dbtool(["exec", "--database", directory, "--file", scratch.file("nope.sql")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("nope.sql"))
    }

    @Test("a failing statement in a script commits nothing, names the statement, and exits 65")
    func allOrNothing() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let result = try dbtool([
            "exec", "--database", directory,
            "UPDATE account SET balance = 0; INSERT INTO account VALUES (1, 5); DELETE FROM account",
        ])
        #expect(result.status == 65)
        #expect(result.stderr.contains("UNIQUE constraint failed: account.id"))
        #expect(result.stderr.contains("INSERT INTO account VALUES (1, 5)"))
        #expect(
            try dbtool(["exec", "--database", directory, "SELECT SUM(balance) FROM account", "--format", "csv"]).stdout
                == "SUM(balance)\n1000\n")
        let syntax = try dbtool(["exec", "--database", directory, "SELEC 1"])
        #expect(syntax.status == 65)
        #expect(syntax.stderr.contains("syntax error"))
    }

    @Test("--no-transaction keeps the statements before the failure")
    func noTransaction() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let result = try dbtool([
            "exec", "--database", directory, "--no-transaction", "UPDATE account SET balance = 0; INSERT INTO account VALUES (1, 5)",
        ])
        #expect(result.status == 65)
        #expect(
            try dbtool(["exec", "--database", directory, "SELECT SUM(balance) FROM account", "--format", "csv"]).stdout
                == "SUM(balance)\n0\n")
    }

    @Test("--readonly refuses writes with 77")
    func readonly() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        let result = try dbtool(["exec", "--database", directory, "--readonly", "DELETE FROM account"])
        #expect(result.status == 77)
        #expect(
            try dbtool(["exec", "--database", directory, "--readonly", "SELECT COUNT(*) FROM account", "--format", "csv"]).stdout
                == "COUNT(*)\n10\n")
    }

    @Test("a database locked by another process: waits --timeout, then exits 75 naming it")
    func locked() throws {
        let scratch = TemporaryDirectory()
        let directory = try scratch.makeDatabase()
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: directory + "/db.sqlite", configuration: config)
        try holder.inDatabase { db in
            try db.beginTransaction(.exclusive)
            try db.execute(sql: "UPDATE account SET balance = balance")
        }
        let start = Date()
        let result = try dbtool(["exec", "--database", directory, "--timeout", "0.5", "UPDATE account SET balance = 1"])
        let elapsed = Date().timeIntervalSince(start)
        try holder.inDatabase { db in try db.rollback() }
        #expect(result.status == 75)
        #expect(result.stderr.contains("\(directory)/db.sqlite is locked"))
        #expect(result.stderr.contains("--timeout"))
        #expect(elapsed >= 0.5)
    }

    @Test("not a database: 65")
    func notADatabase() throws {
        let scratch = TemporaryDirectory()
        let path = scratch.file("garbage.sqlite")
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: path))
        let result = try dbtool(["exec", "--database", path, "SELECT 1"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("is not a SQLite database"))
    }
}
