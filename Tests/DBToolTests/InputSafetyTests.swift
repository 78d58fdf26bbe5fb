import DatabaseKit
import Foundation
import TestSupport
import Testing

/// Bad input, hostile input, and a hostile environment: NUL bytes in SQL,
/// full and closed output streams, signals during waits, passphrases from
/// pipes, permissions, file names that are not UTF-8, terminal escapes in
/// data.
@Suite("Data safety: input, output and signals")
struct InputSafetyTests {
    private func migrations(_ scratch: TemporaryDirectory, _ files: [String: Data]) throws -> String {
        let directory = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: directory + "/" + name)) }
        return directory
    }

    private func tables(_ database: String) throws -> [String] {
        try DatabaseQueue(path: database + "/db.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
    }

    @Test("a NUL byte in SQL: 65 naming the file and the offset; nothing runs, nothing is recorded (migrate, exec --file, stdin)")
    func nulBytes() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        var sql = Data("CREATE TABLE first(x);\n".utf8)
        sql.append(0)
        sql.append(Data("\nCREATE TABLE second(x);\n".utf8))
        let directory = try migrations(scratch, ["1_nul.sql": sql])
        let migrate = try dbtool(["migrate", "--database", database, "--migrations", directory])
        #expect(migrate.status == 65, "\(migrate.stderr)")
        #expect(migrate.stderr.contains("1_nul.sql holds a NUL byte at byte offset 23 (line 2)"), "\(migrate.stderr)")
        #expect(try tables(database) == ["account"])
        let file = scratch.file("nul.sql")
        try sql.write(to: URL(fileURLWithPath: file))
        let exec = try dbtool(["exec", "--database", database, "--file", file])
        #expect(exec.status == 65, "\(exec.stderr)")
        #expect(exec.stderr.contains("nul.sql holds a NUL byte"))
        let stdin = try run("/bin/sh", ["-c", "\"$0\" exec --database \"$1\" < \"$2\"", toolURL.path, database, file])
        #expect(stdin.status == 65, "\(stdin.stderr)")
        #expect(try tables(database) == ["account"])
    }

    @Test("a full or closed stdout is exit 74, never a trap; a full stderr changes nothing", arguments: ["exec", "schema", "backup list"])
    func outputStreams(command: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let arguments: String =
            switch command {
            case "exec": "exec --database \"$1\" 'SELECT * FROM account'"
            case "schema": "schema --database \"$1\""
            default: "backup list \"$2\""
            }
        try FileManager.default.createDirectory(atPath: scratch.file("backups"), withIntermediateDirectories: false)
        let full = try run("/bin/sh", ["-c", "\"$0\" \(arguments) > /dev/full", toolURL.path, database, scratch.file("backups")])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("No space left on device"))
        let closed = try run("/bin/sh", ["-c", "\"$0\" \(arguments) >&-", toolURL.path, database, scratch.file("backups")])
        #expect(closed.status == 74, "\(closed.stderr)")
        // An error whose stderr is full: the status still says it.
        let error = try run("/bin/sh", ["-c", "\"$0\" exec --database \"$1\" 'SELECT nope' 2>/dev/full", toolURL.path, database])
        #expect(error.status == 65)
        let closedError = try run("/bin/sh", ["-c", "\"$0\" exec --database \"$1\" 'SELECT nope' 2>&-", toolURL.path, database])
        #expect(closedError.status == 65)
    }

    @Test(
        "--timeout N is the sum of a command's waits: a lock held by another process ends it after N s (within 0.5), whatever steps meet it",
        arguments: ["hold-exclusive-lock", "hold-write-lock"])
    func timeoutIsHonoured(_ workload: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let signals = scratch.file("signals")
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
        let holder = try startWorkload([workload, database + "/db.sqlite", signals])
        defer {
            _ = FileManager.default.createFile(atPath: signals + "/release", contents: nil)
            holder.waitUntilExit()
        }
        #expect(waitUntil { FileManager.default.fileExists(atPath: signals + "/held") })
        let directory = try migrations(scratch, ["1_t.sql": Data("CREATE TABLE t(x);".utf8)])
        // An exclusive lock of a rollback-journal database stops readers too;
        // a WAL database's write lock stops only what writes.
        let runs =
            workload == "hold-exclusive-lock"
            ? [
                ["check"], ["stats"], ["backup", "--output", scratch.file("b.tar.zst")],
                ["snapshot", "--output", scratch.file("s.sqlite")],
                ["optimize", "--analyze"],
            ]
            : [["checkpoint", "--mode", "truncate"], ["migrate", "--migrations", directory], ["vacuum", "--live"]]
        for arguments in runs {
            // The fastest of up to three runs: a machine busy with other tests
            // can delay a process by tenths of a second, while a timeout
            // counted per step instead of in sum (1.5 s more per step) is
            // slow every time.
            var fastest = TimeInterval.infinity
            for _ in 0..<3 where fastest >= 2.0 {
                let started = Date()
                let result = try dbtool(arguments + ["--database", database, "--timeout", "1.5"])
                let took = Date().timeIntervalSince(started)
                #expect(result.status == 75, "\(arguments[0]): \(result.status) \(result.stderr)")
                #expect(took >= 1.5, "\(arguments[0]) with --timeout 1.5 gave up after \(took) s")
                fastest = min(fastest, took)
            }
            #expect(fastest < 2.0, "\(arguments[0]) with --timeout 1.5 took \(fastest) s at best")
        }
    }

    @Test("SIGTERM and SIGINT end a wait for a lock within moments: 130, nothing left behind", arguments: [SIGTERM, SIGINT])
    func signalsDuringWaits(_ signal: Int32) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let signals = scratch.file("signals")
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
        let holder = try startWorkload(["hold-write-lock", database + "/db.sqlite", signals])
        defer {
            _ = FileManager.default.createFile(atPath: signals + "/release", contents: nil)
            holder.waitUntilExit()
        }
        #expect(waitUntil { FileManager.default.fileExists(atPath: signals + "/held") })
        let directory = try migrations(scratch, ["1_t.sql": Data("CREATE TABLE t(x);".utf8)])
        let runs = [
            ["backup", "--database", database, "--output", scratch.file("b.tar.zst"), "--timeout", "60"],
            ["migrate", "--database", database, "--migrations", directory, "--timeout", "60"],
            ["exec", "--database", database, "INSERT INTO account VALUES (99, 1)", "--timeout", "60"],
            ["checkpoint", "--database", database, "--mode", "truncate", "--timeout", "60"],
        ]
        for arguments in runs {
            let tool = try BackgroundTool(arguments, scratch: scratch)
            usleep(700_000)
            let sent = Date()
            tool.send(signal)
            let result = tool.wait(timeout: 20)
            let waited = Date().timeIntervalSince(sent)
            #expect(result.status == 130, "\(arguments[0]): \(result.status) \(result.stderr)")
            #expect(waited < 1.0, "\(arguments[0]) took \(waited) s to stop")
        }
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b.tar.zst")))
        #expect(dbtoolTempFiles(database) == [], "\(dbtoolTempFiles(database))")
    }

    @Test("passphrase files: a pipe is read; missing 66, unreadable 77, empty 64; one trailing LF or CRLF is not part of it")
    func passphraseFiles() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("b.zip")
        let fromPipe = try run(
            "/bin/bash",
            [
                "-c", "\"$0\" backup --database \"$1\" --output \"$2\" --encrypt --passphrase-file <(printf 'secret\\r\\n')", toolURL.path,
                database, archive,
            ])
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        let key = scratch.file("key")
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: key))
        #expect(try dbtool(["backup", "verify", archive, "--passphrase-file", key]).status == 0)
        let stdin = try run(
            "/bin/sh", ["-c", "echo secret | \"$0\" backup verify \"$1\" --passphrase-file /dev/stdin", toolURL.path, archive])
        #expect(stdin.status == 0, "\(stdin.stderr)")
        let missing = try dbtool(["backup", "verify", archive, "--passphrase-file", scratch.file("none")])
        #expect(missing.status == 66, "\(missing.stderr)")
        let empty = scratch.file("empty")
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        #expect(try dbtool(["backup", "verify", archive, "--passphrase-file", empty]).status == 64)
        let unreadable = try run(
            "/usr/bin/setpriv",
            [
                "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", toolURL.path, "backup", "verify", archive, "--passphrase-file",
                key,
            ])
        #expect(unreadable.status == 77, "\(unreadable.stderr)")
        #expect(!missing.stderr.contains("Error:"), "ArgumentParser's generic error")
    }

    /// Runs dbtool as `nobody`.
    private func asNobody(_ arguments: [String]) throws -> ToolResult {
        try run(
            "/usr/bin/setpriv", ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups", toolURL.path] + arguments,
            environment: ["TMPDIR": "/tmp", "PATH": "/usr/bin:/bin"])
    }

    @Test(
        "permission denied is 77 with the path, for every command; reads of a database dbtool may not write to work",
        .enabled(if: getuid() == 0))
    func permissions() throws {
        let scratch = TemporaryDirectory()
        chmod(scratch.path, 0o755)
        let database = try scratch.makeDatabase()
        #expect(try dbtool(["checkpoint", "--database", database, "--mode", "truncate", "-q"]).status == 0)
        chmod(database, 0o755)
        chmod(database + "/db.sqlite", 0o644)
        let directory = try migrations(scratch, ["1_t.sql": Data("CREATE TABLE t(x);".utf8)])
        chmod(directory, 0o755)
        chmod(directory + "/1_t.sql", 0o644)
        let archive = scratch.file("b.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        chmod(archive, 0o644)
        let cases: [[String]] = [
            ["migrate", "--database", database, "--migrations", directory],
            ["backup", "--database", database, "--output-dir", scratch.file("backups")],
            ["snapshot", "--database", database, "--output", scratch.file("copy.sqlite")],
            ["restore", archive, scratch.file("restored")],
            ["init", scratch.file("new")],
            ["exec", "--database", database, "INSERT INTO account VALUES (50, 1)"],
        ]
        for arguments in cases {
            let result = try asNobody(arguments)
            #expect(result.status == 77, "\(arguments[0]): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(scratch.path), "\(arguments[0]): the path is named: \(result.stderr)")
        }
        // Pure reads work where dbtool may not write, the WAL being empty...
        let read = try asNobody(["exec", "--database", database, "--readonly", "SELECT SUM(balance) FROM account"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("1000"))
        #expect(try asNobody(["schema", "--database", database]).status == 0)
        // Reads of the database itself: the migrations' status, a compacted copy elsewhere, a query.
        let status = try asNobody(["migrate", "status", "--database", database, "--migrations", directory])
        #expect(status.status == 0 && status.stdout.contains("1 pending"), "\(status.stderr)")
        let copy = "/tmp/dbtool-test-\(UUID().uuidString).sqlite"
        defer { unlink(copy) }
        let vacuum = try asNobody(["vacuum", "--database", database, "--into", copy])
        #expect(vacuum.status == 0, "\(vacuum.stderr)")
        let query = try asNobody(["exec", "--database", database, "SELECT COUNT(*) FROM account"])
        #expect(query.status == 0 && query.stdout.contains("10"), "\(query.stderr)")
        // ... and so does a backup, its lock kept elsewhere.
        let output = "/tmp/dbtool-test-\(UUID().uuidString).tar.zst"
        defer { unlink(output) }
        let backup = try asNobody(["backup", "--database", database, "--output", output])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try dbtool(["backup", "verify", output]).status == 0)
        // Nothing left beside what init made (the database and its identity).
        #expect(try FileManager.default.contentsOfDirectory(atPath: database).sorted() == [".db.sqlite.dbtool-id", "db.sqlite"])
        // A WAL that holds commits can not be read there: said plainly.
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "INSERT INTO account VALUES (11, 5)")
        }
        let pending = try asNobody(["exec", "--database", database, "--readonly", "SELECT 1"])
        try dbQueue.close()
        #expect(pending.status == 77, "\(pending.stderr)")
        #expect(pending.stderr.contains("WAL"), "\(pending.stderr)")
    }

    @Test(
        "a database on read-only media: exec --readonly, schema and backup work; a write says the media is read-only",
        .enabled(if: getuid() == 0))
    func readOnlyMedia() throws {
        let scratch = TemporaryDirectory()
        let media = scratch.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: false)
        try #require(mountTmpfs(media, kilobytes: 4096), "mounting a tmpfs failed: this test needs root with CAP_SYS_ADMIN")
        defer { unmount(media) }
        let database = try scratch.makeDatabase("media/db")
        #expect(try run("/bin/mount", ["-o", "remount,ro", media]).status == 0)
        let read = try dbtool(["exec", "--database", database, "--readonly", "SELECT SUM(balance) FROM account"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("1000"))
        #expect(try dbtool(["schema", "--database", database]).status == 0)
        let backup = try dbtool(["backup", "--database", database, "--output", scratch.file("b.tar.zst")])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try dbtool(["backup", "verify", scratch.file("b.tar.zst")]).status == 0)
        let write = try dbtool(["exec", "--database", database, "INSERT INTO account VALUES (99, 1)"])
        #expect(write.status == 77, "\(write.stderr)")
    }

    @Test("a migration file name that is not UTF-8: 65 naming its bytes, nothing applied")
    func nonUTF8Names() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let directory = try migrations(scratch, ["1_ok.sql": Data("CREATE TABLE ok(x);".utf8)])
        let name = Array((directory + "/2_caf").utf8) + [0xE9] + Array(".sql".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        let result = try dbtool(["migrate", "--database", database, "--migrations", directory])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("2_caf\\xE9.sql"), "\(result.stderr)")
        #expect(try tables(database) == ["account"])
    }

    @Test("a migration linked to a file outside its directory is refused; a failing statement is quoted, 200 bytes at most")
    func migrationQuotes() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let secret = scratch.file("secret")
        try Data(("root:$6$secrethash" + String(repeating: "x", count: 500) + ":19000:0:99999:7:::\n").utf8).write(
            to: URL(fileURLWithPath: secret))
        let directory = try migrations(scratch, [:])
        #expect(symlink(secret, directory + "/1_shadow.sql") == 0)
        let linked = try dbtool(["migrate", "--database", database, "--migrations", directory])
        #expect(linked.status == 65, "\(linked.stderr)")
        #expect(!linked.stderr.contains("secrethash"))
        unlink(directory + "/1_shadow.sql")
        let long = "CREATE TABLE t(" + (0..<200).map { "column\($0) INT" }.joined(separator: ", ") + ",);"
        try Data(long.utf8).write(to: URL(fileURLWithPath: directory + "/1_long.sql"))
        let failed = try dbtool(["migrate", "--database", database, "--migrations", directory])
        #expect(failed.status == 65, "\(failed.stderr)")
        #expect(failed.stderr.utf8.count < 700, "\(failed.stderr.utf8.count) bytes of error")
    }

    @Test("exec --quiet; real:1e400 and negative numbers get their own messages (64)")
    func arguments() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let quiet = try dbtool(["exec", "--database", database, "--quiet", "SELECT 1"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty)
        let infinite = try dbtool(["exec", "--database", database, "SELECT ?", "--arg", "real:1e400"])
        #expect(infinite.status == 64, "\(infinite.stderr)")
        #expect(infinite.stderr.contains("1e400"))
        let negative = try dbtool(["exec", "--database", database, "SELECT ?", "--arg", "-0", "--format", "csv"])
        #expect(negative.status == 0, "\(negative.stderr)")
        #expect(negative.stdout.contains("-0"))
    }

    @Test("terminal escapes in names and values are escaped by schema and exec's table, never printed raw")
    func terminalEscapes() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE \"evil\u{1B}]0;owned\u{07}\"(\"c\u{1B}[2J\" TEXT)")
            try db.execute(sql: "INSERT INTO \"evil\u{1B}]0;owned\u{07}\" VALUES ('x\u{1B}[31my\u{9B}')")
        }
        let schema = try dbtool(["schema", "--database", database])
        #expect(schema.status == 0)
        #expect(!schema.stdout.contains("\u{1B}") && !schema.stdout.contains("\u{07}"))
        #expect(schema.stdout.contains("evil\\x1B]0;owned\\x07"), "\(schema.stdout)")
        let table = try dbtool(["exec", "--database", database, "SELECT * FROM \"evil\u{1B}]0;owned\u{07}\"", "--format", "table"])
        #expect(table.status == 0)
        #expect(!table.stdout.contains("\u{1B}") && !table.stdout.unicodeScalars.contains("\u{9B}"))
        #expect(table.stdout.contains("x\\x1B[31my\\x9B"), "\(table.stdout)")
    }

    @Test("the last pre-migration snapshot is recorded relative to DIR: a restored copy names its own; DIR/snapshots as a link is refused")
    func snapshotRecord() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let directory = try migrations(scratch, ["1_t.sql": Data("CREATE TABLE t(x);".utf8)])
        #expect(try dbtool(["migrate", "--database", database, "--migrations", directory, "--snapshot", "-q"]).status == 0)
        let record = try String(contentsOfFile: database + "/.dbtool-last-snapshot", encoding: .utf8)
        #expect(record.hasPrefix("snapshots/pre-migrate-"), "\(record)")
        let archive = scratch.file("b.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let copy = scratch.file("copy")
        #expect(try dbtool(["restore", archive, copy, "-q"]).status == 0)
        try FileManager.default.removeItem(atPath: database + "/snapshots")
        let restored = try dbtool(["migrate", "restore-snapshot", "--database", copy, "--format", "json"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains(copy + "/snapshots/pre-migrate-"), "\(restored.stdout)")

        let elsewhere = scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        #expect(symlink(elsewhere, database + "/snapshots") == 0)
        try Data("CREATE TABLE u(x);".utf8).write(to: URL(fileURLWithPath: directory + "/2_u.sql"))
        let migrate = try dbtool(["migrate", "--database", database, "--migrations", directory, "--snapshot"])
        #expect(migrate.status == 73, "\(migrate.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }
}
