import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Bad input, case by case: each gets its documented exit status and a
/// message naming the path, statement or argument, and leaves the
/// database and the filesystem exactly as they were, with no temp file.
@Suite("Bad input: messages, exit codes, nothing changed")
struct BadInputTests {
    /// One case: what to run in a prepared scratch directory, and what to expect.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Prepares the scratch directory; returns dbtool's arguments.
        var prepare: @Sendable (TemporaryDirectory) throws -> [String]
        var status: Int32
        /// Fragments the message must hold; `$S` stands for the scratch path.
        var message: [String]
        /// Run as an unprivileged user (the permission cases, when the tests run as root).
        var unprivileged = false
        /// Limit the size of written files to this many KiB (`ulimit -f`), with SIGXFSZ ignored.
        var fileSizeLimit: Int? = nil

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a mistyped command", prepare: { s in ["migrat", "--database", s.file("db")] }, status: 64,
            message: ["unknown command 'dbtool migrat': did you mean 'dbtool migrate'?"]),
        Case(
            name: "a mistyped subcommand", prepare: { s in ["backup", "verfy", s.file("b.tar.zst")] }, status: 64,
            message: ["did you mean 'dbtool backup verify'?"]),
        Case(
            name: "a mistyped option, hidden by the command's own checks in ArgumentParser",
            prepare: { s in ["backup", "--database", s.file("db"), "--output-directory", s.file("out")] }, status: 64,
            message: ["unknown option '--output-directory' of 'dbtool backup create': did you mean '--output-dir'?"]),
        Case(
            name: "a mistyped option of a subcommand",
            prepare: { s in ["migrate", "up", "--database", s.file("db"), "--dry-rn"] }, status: 64,
            message: ["unknown option '--dry-rn' of 'dbtool migrate up': did you mean '--dry-run'?"]),
        Case(
            name: "an option far from every other: no guess",
            prepare: { s in ["snapshot", "--database", s.file("db"), "--foo"] }, status: 64,
            message: ["unknown option '--foo' of 'dbtool snapshot'"]),
        Case(
            name: "a folder of backup archives given to restore as if it were a replica",
            prepare: { s in
                let database = try s.makeDatabase()
                let backup = try dbtool(["backup", "--database", database, "--output-dir", s.file("backups")])
                #expect(backup.status == 0, "\(backup.stderr)")
                return ["restore", s.file("backups"), s.file("restored")]
            }, status: 64,
            message: ["$S/backups is a folder of backup archives, not a replica", "`dbtool restore $S/backups/latest $S/restored`", "dbtool backup list $S/backups"]),
        Case(
            name: "an unquoted glob the shell expanded into several database paths",
            prepare: { s in
                for tenant in ["a", "b"] {
                    let created = try dbtool(["init", s.file("tenants/\(tenant)/db")])
                    #expect(created.status == 0, "\(created.stderr)")
                }
                return ["check", "--database", s.file("tenants/a/db"), s.file("tenants/b/db")]
            }, status: 64,
            message: ["--database got 2 existing paths", "the shell expanded an unquoted glob", "Quote the glob", "repeat --database"]),
        Case(
            name: "a parameter without its --arg",
            prepare: { s in ["exec", "--database", try s.makeDatabase(), "SELECT ?"] }, status: 65,
            message: ["(in `SELECT ?`)", "Give one --arg VALUE per `?`"]),
        Case(
            name: "nonexistent database path", prepare: { s in ["exec", "--database", s.file("nothing"), "SELECT 1"] },
            status: 66, message: ["no database at $S/nothing"]),
        Case(
            name: "a directory where the database file is expected",
            prepare: { s in
                try FileManager.default.createDirectory(atPath: s.file("db/db.sqlite"), withIntermediateDirectories: true)
                return ["exec", "--database", s.file("db"), "SELECT 1"]
            }, status: 66, message: ["$S/db/db.sqlite is a directory"]),
        Case(
            name: "a file where a directory is expected (init)",
            prepare: { s in
                try Data("x".utf8).write(to: URL(fileURLWithPath: s.file("plain")))
                return ["init", s.file("plain")]
            }, status: 73, message: ["$S/plain is a file, not a directory"]),
        Case(
            name: "a directory where a SQL file is expected (exec --file)",
            prepare: { s in
                _ = try s.makeDatabase()
                try FileManager.default.createDirectory(atPath: s.file("queries"), withIntermediateDirectories: false)
                return ["exec", "--database", s.file("db"), "--file", s.file("queries")]
            }, status: 66, message: ["$S/queries is a directory"]),
        Case(
            name: "a file of random bytes",
            prepare: { s in
                var generator = SystemRandomNumberGenerator()
                try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(
                    to: URL(fileURLWithPath: s.file("random.sqlite")))
                return ["exec", "--database", s.file("random.sqlite"), "SELECT COUNT(*) FROM sqlite_master"]
            }, status: 65, message: ["$S/random.sqlite is not a SQLite database"]),
        Case(
            name: "a truncated database",
            prepare: { s in
                let path = try BadInputTests.bulkDatabase(s)
                let size = BadInputTests.fileSize(path)
                #expect(truncate(path, off_t(size / 3)) == 0)
                return ["exec", "--database", path, "SELECT COUNT(*), SUM(LENGTH(x)) FROM bulk"]
            }, status: 65, message: ["$S/bulk.sqlite"]),
        Case(
            name: "a database with a corrupted page",
            prepare: { s in
                let path = try BadInputTests.bulkDatabase(s)
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle.seek(toOffset: 4096 * 2)  // page 3: a b-tree page of the table
                handle.write(Data(repeating: 0xFF, count: 512))
                try handle.close()
                return ["exec", "--database", path, "SELECT COUNT(*), SUM(LENGTH(x)) FROM bulk"]
            }, status: 65, message: ["$S/bulk.sqlite", "corrupt"]),
        Case(
            name: "an invalid --arg",
            prepare: { s in
                _ = try s.makeDatabase()
                return ["exec", "--database", s.file("db"), "UPDATE account SET balance = :amount", "--arg", "amout=5"]
            }, status: 65, message: ["amount"]),
        Case(
            name: "an unknown --format", prepare: { s in ["exec", "--database", s.file("db"), "SELECT 1", "--format", "xml"] },
            status: 64, message: ["'xml' is invalid for '--format"]),
        Case(
            name: "a missing migrations directory",
            prepare: { s in
                _ = try s.makeDatabase()
                return ["migrate", "--database", s.file("db"), "--migrations", s.file("migrations")]
            }, status: 66, message: ["no migrations directory at $S/migrations"]),
        Case(
            name: "an empty migrations directory",
            prepare: { s in
                _ = try s.makeDatabase()
                try FileManager.default.createDirectory(atPath: s.file("migrations"), withIntermediateDirectories: false)
                return ["migrate", "--database", s.file("db"), "--migrations", s.file("migrations")]
            }, status: 66, message: ["no migration files in $S/migrations"]),
        Case(
            name: "init --migrations with an empty directory creates nothing",
            prepare: { s in
                try FileManager.default.createDirectory(atPath: s.file("migrations"), withIntermediateDirectories: false)
                return ["init", s.file("new"), "--migrations", s.file("migrations")]
            }, status: 66, message: ["no migration files in $S/migrations"]),
        Case(
            name: "duplicate migration versions",
            prepare: { s in
                _ = try s.makeDatabase()
                try BadInputTests.migrations(
                    s, ["0001_a.sql": "-- migrate:up\nCREATE TABLE a(x);", "1_b.sql": "-- migrate:up\nCREATE TABLE b(x);"])
                return ["migrate", "--database", s.file("db"), "--migrations", s.file("migrations")]
            }, status: 65, message: ["two migrations have the version 1", "$S/migrations/"]),
        Case(
            name: "a migration file that is not UTF-8",
            prepare: { s in
                _ = try s.makeDatabase()
                try BadInputTests.migrations(s, ["0001_a.sql": "-- migrate:up\nCREATE TABLE a(x);"])
                try Data([0x2D, 0x2D, 0x20, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: s.file("migrations/0002_b.sql")))
                return ["migrate", "--database", s.file("db"), "--migrations", s.file("migrations")]
            }, status: 65, message: ["$S/migrations/0002_b.sql is not UTF-8"]),
        Case(
            name: "a database locked by another process past --timeout",
            prepare: { s in
                _ = try s.makeDatabase()
                return ["exec", "--database", s.file("db"), "UPDATE account SET balance = 0", "--timeout", "0.3"]
            }, status: 75, message: ["$S/db/db.sqlite is locked", "0.3 s"]),
        Case(
            name: "a read-only database file",
            prepare: { s in
                _ = try s.makeDatabase()
                try BadInputTests.shareReadOnly(s, files: ["db/db.sqlite"])
                return ["exec", "--database", s.file("db"), "UPDATE account SET balance = 0"]
            }, status: 77, message: ["$S/db/db.sqlite"], unprivileged: true),
        Case(
            name: "a read-only output directory (snapshot)",
            prepare: { s in
                _ = try s.makeDatabase()
                try FileManager.default.createDirectory(atPath: s.file("out"), withIntermediateDirectories: false)
                try BadInputTests.shareReadOnly(s, files: ["db/db.sqlite", "out"])
                chmod(s.file("db"), 0o777)  // the database itself may be opened
                chmod(s.file("db/db.sqlite"), 0o666)
                return ["snapshot", "--database", s.file("db"), s.file("out/copy.sqlite")]
            }, status: 77, message: ["$S/out", "not writable"], unprivileged: true),
        Case(
            name: "permission denied on the database",
            prepare: { s in
                _ = try s.makeDatabase()
                chmod(s.file("db"), 0o755)
                chmod(s.file("db/db.sqlite"), 0o000)  // denied to nobody, and to a non-root owner
                return ["exec", "--database", s.file("db"), "SELECT COUNT(*) FROM account"]
            }, status: 77, message: ["$S/db/db.sqlite"], unprivileged: true),
        Case(
            name: "disk full during exec",
            prepare: { s in
                _ = try s.makeDatabase()
                return ["exec", "--database", s.file("db"), BadInputTests.bigInsert]
            }, status: 74, message: ["$S/db/db.sqlite"], fileSizeLimit: 64),
        Case(
            name: "disk full during snapshot",
            prepare: { s in
                _ = try BadInputTests.bulkDatabase(s)
                return ["snapshot", "--database", s.file("bulk.sqlite"), s.file("copy.sqlite")]
            }, status: 74, message: ["$S/copy.sqlite"], fileSizeLimit: 64),
        Case(
            name: "disk full during backup",
            prepare: { s in
                _ = try BadInputTests.bulkDatabase(s, directory: "db")
                return ["backup", "--database", s.file("db"), "--output", s.file("db.tar"), "--archive-format", "tar"]
            }, status: 74, message: ["$S/"], fileSizeLimit: 64),
        Case(
            name: "disk full during migrate",
            prepare: { s in
                _ = try s.makeDatabase()
                try BadInputTests.migrations(
                    s,
                    [
                        "0001_big.sql": "-- migrate:up\nCREATE TABLE big(balance);\n"
                            + BadInputTests.bigInsert.replacingOccurrences(of: "account", with: "big") + ";"
                    ])
                return ["migrate", "--database", s.file("db"), "--migrations", s.file("migrations")]
            }, status: 74, message: ["$S/db/db.sqlite"], fileSizeLimit: 64),
        Case(
            name: "an archive whose file does not match its manifest",
            prepare: { s in
                CraftedArchive.write(
                    s.file("altered.tar.gz"),
                    entries: [
                        ("db/", .directory), ("db/db.sqlite", .file("not the backed-up bytes")),
                        (
                            "db/.dbtool-manifest.json",
                            .file(
                                #"{"created":"2026-11-23T00:00:00Z","databaseFile":"db.sqlite","dbtoolVersion":"0.3.0","files":[{"path":"db.sqlite","sha256":"00","size":23}],"folder":"db","format":1,"journalMode":"wal","migrations":[],"pageCount":1,"pageSize":4096,"schemaVersion":1,"sqliteVersion":"3.40.1","userVersion":0}"#
                            )
                        ),
                    ])
                return ["restore", s.file("altered.tar.gz"), s.file("restored")]
            }, status: 65, message: ["db/db.sqlite in $S/altered.tar.gz does not match its SHA-256"]),
    ]

    static let bigInsert =
        "INSERT INTO account(balance) SELECT 1 FROM (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) SELECT i FROM c)"

    /// A ~1 MiB database file (rollback journal) in the scratch directory, or in a subdirectory.
    static func bulkDatabase(_ scratch: TemporaryDirectory, directory: String? = nil) throws -> String {
        var path = scratch.file("bulk.sqlite")
        if let directory {
            try FileManager.default.createDirectory(atPath: scratch.file(directory), withIntermediateDirectories: false)
            path = scratch.file(directory + "/db.sqlite")
        }
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE bulk(x BLOB);
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
                    INSERT INTO bulk SELECT randomblob(1000) FROM c;
                    """)
        }
        try dbQueue.close()
        return path
    }

    static func migrations(_ scratch: TemporaryDirectory, _ files: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: scratch.file("migrations"), withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.file("migrations/" + name))) }
    }

    /// Everything readable, nothing writable, for the unprivileged user.
    static func shareReadOnly(_ scratch: TemporaryDirectory, files: [String]) throws {
        chmod(scratch.path, 0o755)
        chmod(scratch.file("db"), 0o755)
        for file in files { chmod(scratch.file(file), isDirectory(scratch.file(file)) ? 0o555 : 0o444) }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func fileSize(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Every file under `path` with its bytes (SQLite's shared-memory index excluded: it is not data).
    static func fingerprint(_ path: String) -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            let full = path + "/" + name
            guard !name.hasSuffix("-shm") else { continue }
            result[name] =
                BadInputTests.isDirectory(full)
                ? Data("<dir>".utf8) : (FileManager.default.contents(atPath: full) ?? Data("<unreadable>".utf8))
        }
        return result
    }

    @Test("each bad input: documented status, a message that names it, nothing changed", arguments: cases)
    func badInput(_ badCase: Case) throws {
        let scratch = TemporaryDirectory()
        var arguments = try badCase.prepare(scratch)
        // The lock case: another process holds the write lock. Not this one: reading the
        // database's bytes here would drop this process's POSIX locks on it.
        let signals = NSTemporaryDirectory() + "lock-holder-\(UUID().uuidString)"
        var holder: Process?
        if badCase.status == 75 {
            try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
            holder = try startWorkload(["hold-write-lock", scratch.file("db/db.sqlite"), signals])
            while !FileManager.default.fileExists(atPath: signals + "/held") && holder?.isRunning == true { usleep(10_000) }
            try #require(FileManager.default.fileExists(atPath: signals + "/held"), "the lock holder never held the lock")
        }
        defer { try? FileManager.default.removeItem(atPath: signals) }
        let before = Self.fingerprint(scratch.path)

        var environment: [String: String] = [:]
        var executable: String?
        if badCase.unprivileged && getuid() == 0 {
            // Root ignores permissions: run dbtool as nobody.
            executable = "/usr/bin/setpriv"
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", toolURL.path] + arguments
        }
        if let limit = badCase.fileSizeLimit {
            executable = "/bin/sh"
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            arguments = ["-c", "trap '' XFSZ; ulimit -f \(limit); exec '\(toolURL.path)' \(quoted)"]
            environment["DBTOOL_LIMITED"] = "1"
        }
        let result = try dbtool(arguments, environment: environment, executable: executable)

        #expect(result.status == badCase.status, "\(badCase.name): \(result.stderr)")
        for fragment in badCase.message {
            let expected = fragment.replacingOccurrences(of: "$S", with: scratch.path)
            #expect(result.stderr.contains(expected), "\(badCase.name): expected \(expected) in \(result.stderr)")
        }
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Swift."), "\(badCase.name): \(result.stderr)")
        #expect(Self.fingerprint(scratch.path) == before, "\(badCase.name): the filesystem changed")
        if let holder {
            _ = FileManager.default.createFile(atPath: signals + "/release", contents: nil)
            holder.waitUntilExit()
            #expect(holder.terminationStatus == 0, "the lock holder failed")
        }
        chmod(scratch.path, 0o755)
        for (name, _) in Self.fingerprint(scratch.path) { chmod(scratch.file(name), Self.isDirectory(scratch.file(name)) ? 0o755 : 0o644) }
    }
}

@Suite("Bad input: a migration that fails")
struct FailingMigrationTests {
    @Test("a syntax error in the third of five migrations: 65 naming the file and line; the first two stay applied, nothing of the third")
    func syntaxErrorInThird() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try BadInputTests.migrations(
            scratch,
            [
                "0001_a.sql": "-- migrate:up\nCREATE TABLE a(x);",
                "0002_b.sql": "-- migrate:up\nCREATE TABLE b(x);",
                "0003_c.sql": "-- migrate:up\nCREATE TABLE c(x);\nINSERT INTO c VALUES (1);\nCREATE TABLEE d(x);",
                "0004_d.sql": "-- migrate:up\nCREATE TABLE d(x);",
                "0005_e.sql": "-- migrate:up\nCREATE TABLE e(x);",
            ])
        let result = try dbtool(["migrate", "--database", database, "--migrations", scratch.file("migrations")])
        #expect(result.status == 65)
        #expect(result.stderr.contains(scratch.file("migrations/0003_c.sql") + ":4"), "\(result.stderr)")
        #expect(result.stderr.contains("TABLEE"))
        let (applied, tables) = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            (
                try Int.fetchAll(db, sql: "SELECT version FROM dbtool_migrations ORDER BY version"),
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b', 'c', 'd', 'e') ORDER BY name")
            )
        }
        #expect(applied == [1, 2])
        #expect(tables == ["a", "b"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: database).filter { $0.hasPrefix(".dbtool-") }.isEmpty)
    }
}
