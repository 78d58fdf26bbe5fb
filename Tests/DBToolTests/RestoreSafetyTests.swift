import DatabaseKit
import Foundation
import Testing
import TestSupport

/// What a restore must never do, whatever the archive comes through (a pipe,
/// a FIFO, a file replaced meanwhile), whatever DIR holds (a database of
/// another name, a link, a directory that appears during the run), and
/// whoever else writes in the parent directory.
@Suite("Data safety: restore")
struct RestoreSafetyTests {
    /// A database directory `db` with accounts and a note, and its backup.
    private func backedUp(_ scratch: TemporaryDirectory, name: String = "db") throws -> (database: String, archive: String) {
        let database = try scratch.makeDatabase(name)
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: database + "/notes.txt"))
        let archive = scratch.file("\(name).tar.zst")
        let backup = try dbtool(["backup", "--database", database, "--output", archive, "-q"])
        try #require(backup.status == 0, "\(backup.stderr)")
        return (database, archive)
    }

    private func shell(_ script: String, _ arguments: [String] = []) throws -> ToolResult {
        var environment = ProcessInfo.processInfo.environment
        environment["DBTOOL"] = toolURL.path
        environment.removeValue(forKey: "DBTOOL_DATABASE")
        return try run("/bin/sh", ["-c", script, "sh"] + arguments, environment: environment)
    }

    @Test("an archive read from a pipe restores every file of its manifest (/dev/stdin, -), and verify of <(cat) reads it whole")
    func pipes() throws {
        let scratch = TemporaryDirectory()
        let (_, archive) = try backedUp(scratch)
        for (index, input) in ["/dev/stdin", "-"].enumerated() {
            let target = scratch.file("restored-\(index)")
            let result = try shell("cat \"$1\" | \"$DBTOOL\" restore \(input) \"$2\" --force", [archive, target])
            #expect(result.status == 0, "\(input): \(result.stderr)")
            #expect(try accountTotals(target) == (1000, 10), "\(input)")
            #expect(FileManager.default.contents(atPath: target + "/notes.txt") == Data("notes\n".utf8), "\(input)")
            #expect(permissions(target + "/db.sqlite") & 0o007 == 0, "\(input): readable by others")
        }
        let verify = try run("/bin/bash", ["-c", "\"$0\" backup verify <(cat \"$1\")", toolURL.path, archive])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("is sound: 5 files match the manifest"), "\(verify.stdout)")
        // A pipe cut short restores nothing.
        let target = scratch.file("cut")
        let cut = try shell("head -c 300 \"$1\" | \"$DBTOOL\" restore - \"$2\"", [archive, target])
        #expect(cut.status == 65, "\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }

    @Test("a FIFO that nobody writes to is refused at once (65), by restore and verify; nothing is created")
    func silentFIFO() throws {
        let scratch = TemporaryDirectory()
        let fifo = scratch.file("archive.tar.zst")
        #expect(mkfifo(fifo, 0o600) == 0)
        let start = Date()
        let verify = try dbtool(["backup", "verify", fifo])
        let restore = try dbtool(["restore", fifo, scratch.file("restored")])
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(verify.status == 65, "\(verify.stderr)")
        #expect(restore.status == 65, "\(restore.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("restored")))
    }

    @Test("a database of another name in DIR, in use: --force refuses (75), --live refuses the mismatch (65); no commit, no file lost")
    func databaseOfAnotherName() throws {
        let scratch = TemporaryDirectory()
        let (_, archive) = try backedUp(scratch, name: "base")
        let app = scratch.file("app")
        #expect(try dbtool(["init", app, "--file-name", "app.db", "-q"]).status == 0)
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: app + "/notes.txt"))
        let application = try Application(database: app + "/app.db", scratch: scratch)
        let forced = try dbtool(["restore", archive, app, "--force"])
        let live = try dbtool(["restore", archive, app, "--live"])
        usleep(100_000)
        let last = try application.stop()
        #expect(forced.status == 75, "\(forced.stderr)")
        #expect(forced.stderr.contains("app.db is in use"), "\(forced.stderr)")
        #expect(live.status == 65, "\(live.stderr)")
        #expect(live.stderr.contains("app.db"), "\(live.stderr)")
        #expect(FileManager.default.contents(atPath: app + "/notes.txt") == Data("keep me\n".utf8))
        let dbQueue = try DatabaseQueue(path: app + "/app.db")
        let count = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0 }
        #expect(count == last - 1_000_000, "every acknowledged commit is there")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".dbtool-") }.isEmpty)
    }

    @Test("DIR/db.sqlite is a link to a database an application writes elsewhere: restore --force refuses (75)")
    func linkedDatabase() throws {
        let scratch = TemporaryDirectory()
        let (_, archive) = try backedUp(scratch, name: "base")
        let real = try scratch.makeDatabase("real")
        let dir = scratch.file("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        #expect(symlink(real + "/db.sqlite", dir + "/db.sqlite") == 0)
        let application = try Application(database: real + "/db.sqlite", scratch: scratch)
        let forced = try dbtool(["restore", archive, dir, "--force"])
        _ = try application.stop()
        #expect(forced.status == 75, "\(forced.stderr)")
        var info = stat()
        #expect(lstat(dir + "/db.sqlite", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still there")
    }

    @Test("a DIR that appears while the archive is read is refused (73) and untouched; a second restore into DIR exits 75")
    func targetAppears() throws {
        let scratch = TemporaryDirectory()
        let (_, archive) = try backedUp(scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        let fifo = scratch.file("feed")
        #expect(mkfifo(fifo, 0o600) == 0)
        let target = scratch.file("target")
        let restore = try BackgroundTool(["restore", "-", target], stdin: fifo, scratch: scratch)
        let feed = try #require(FileHandle(forWritingAtPath: fifo))
        feed.write(bytes.prefix(64))
        // The restore is under way: its lock is there.
        #expect(waitUntil { FileManager.default.fileExists(atPath: scratch.file(".dbtool-restoring-target.lock")) })
        let second = try dbtool(["restore", archive, target])
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("is restoring"), "\(second.stderr)")
        // Meanwhile, something else creates DIR and fills it.
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: target + "/theirs.txt"))
        feed.write(bytes.dropFirst(64))
        try feed.close()
        let result = restore.wait()
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("appeared"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["theirs.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".dbtool-") }.isEmpty)
    }

    @Test("clean-up removes only temp files provably its own and dead; never another host's, nor the old DIR a failed swap kept")
    func staleTemporaries() throws {
        let scratch = TemporaryDirectory()
        let (_, archive) = try backedUp(scratch)
        let (host, boot, namespace) = temporaryOwner()
        let names = [
            "dead": ".dbtool-restore-\(host).\(boot).\(namespace).999999999-target",  // this host, this boot: its pid is gone
            "rebooted": ".dbtool-restore-\(host).00000000.\(namespace).1-target",  // this host, an earlier boot
            "otherHost": ".dbtool-restore-elsewhere.\(boot).\(namespace).999999999-target",
            "otherNamespace": ".dbtool-restore-\(host).\(boot).1.999999999-target",
            "kept": "target.dbtool-old-20261127T010203.000Z",  // what an error told the operator to move back
            "old": ".dbtool-restore-999999999-target.old",  // dbtool 0.4's name: not provably stale
        ]
        for name in names.values {
            try FileManager.default.createDirectory(atPath: scratch.file(name), withIntermediateDirectories: false)
            try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.file(name + "/db.sqlite")))
        }
        let result = try dbtool(["restore", archive, scratch.file("target")])
        #expect(result.status == 0, "\(result.stderr)")
        for (what, name) in names {
            let expected = what != "dead" && what != "rebooted"
            #expect(FileManager.default.fileExists(atPath: scratch.file(name)) == expected, "\(what)")
        }
    }

    @Test("modes: a 0777 folder and 0666 files come back without access for others (unless --keep-modes); verify's scratch stays 0700")
    func modes() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try FileManager.default.createDirectory(atPath: database + "/sub", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: database + "/sub/file.txt"))
        chmod(database, 0o777)
        chmod(database + "/sub", 0o777)
        chmod(database + "/sub/file.txt", 0o666)
        chmod(database + "/db.sqlite", 0o666)
        let archive = scratch.file("b.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)

        let plain = scratch.file("plain")
        #expect(try dbtool(["restore", archive, plain, "-q"]).status == 0)
        #expect(permissions(plain) == 0o770)
        #expect(permissions(plain + "/sub") == 0o770)
        #expect(permissions(plain + "/sub/file.txt") == 0o660)
        #expect(permissions(plain + "/db.sqlite") == 0o660)
        let kept = scratch.file("kept")
        #expect(try dbtool(["restore", archive, kept, "--keep-modes", "-q"]).status == 0)
        #expect(permissions(kept) == 0o777)
        #expect(permissions(kept + "/sub/file.txt") == 0o666)

        // During a verify (fed slowly through a FIFO), its scratch copy is private.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        let fifo = scratch.file("feed")
        #expect(mkfifo(fifo, 0o600) == 0)
        let temp = scratch.file("tmp")
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: false)
        let verify = try BackgroundTool(["backup", "verify", "-"], stdin: fifo, environment: ["TMPDIR": temp], scratch: scratch)
        let feed = try #require(FileHandle(forWritingAtPath: fifo))
        feed.write(bytes.prefix(bytes.count / 2))
        #expect(waitUntil { ((try? FileManager.default.contentsOfDirectory(atPath: temp)) ?? []).contains { $0.hasPrefix(".dbtool-verify-") } })
        for name in try FileManager.default.contentsOfDirectory(atPath: temp) {
            #expect(permissions(temp + "/" + name) == 0o700, "\(name)")
        }
        feed.write(bytes.dropFirst(bytes.count / 2))
        try feed.close()
        #expect(verify.wait().status == 0)
    }

    @Test("malformed archives: a folder and a file of one name, a file whose folder has no entry: 65 naming the entry", arguments: [0, 1])
    func malformed(_ variant: Int) throws {
        let scratch = TemporaryDirectory()
        let archive = scratch.file("bad.tar.gz")
        let entries: [(name: String, kind: CraftedArchive.Kind)] =
            variant == 0
            ? [("db/", .directory), ("db/x", .file("a")), ("db/x/", .directory), ("db/x/y", .file("b"))]
            : [("db/", .directory), ("db/deep/file.txt", .file("a"))]
        CraftedArchive.write(archive, entries: entries)
        let result = try dbtool(["restore", archive, scratch.file("restored")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(variant == 0 ? "db/x" : "db/deep/file.txt"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("restored")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".dbtool-") }.isEmpty)
    }

    @Test("restore --live never moves a file through a link planted in DIR (65, nothing changed), and reports how long writers waited")
    func liveThroughLinks() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try FileManager.default.createDirectory(atPath: database + "/subdir", withIntermediateDirectories: false)
        try Data("from the backup".utf8).write(to: URL(fileURLWithPath: database + "/subdir/file.txt"))
        let archive = scratch.file("b.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let elsewhere = scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: database + "/subdir")
        #expect(symlink(elsewhere, database + "/subdir") == 0)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in try db.execute(sql: "DELETE FROM account") }
        let result = try dbtool(["restore", archive, database, "--live"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("subdir"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(try accountTotals(database) == (0, 0), "nothing was changed")

        try FileManager.default.removeItem(atPath: database + "/subdir")
        let live = try dbtool(["restore", archive, database, "--live", "--format", "json"])
        #expect(live.status == 0, "\(live.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(live.stdout.utf8)) as? [String: Any])
        #expect((report["writerStallMs"] as? Int).map { $0 >= 0 } == true)
        #expect(try accountTotals(database) == (1000, 10))
        #expect(FileManager.default.contents(atPath: database + "/subdir/file.txt") == Data("from the backup".utf8))
    }

    @Test("restore --live during a multi-file migrate: they take turns on the migration lock; the history stays whole")
    func liveRestoreDuringMigrate() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("b.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        for version in 1...6 {
            // Each takes a while: a few hundred thousand rows.
            let sql = """
                CREATE TABLE m\(version)(x);
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) INSERT INTO m\(version) SELECT i FROM c;
                """
            try Data(sql.utf8).write(to: URL(fileURLWithPath: migrations + "/\(version)_m\(version).sql"))
        }
        let migrate = try BackgroundTool(["migrate", "--database", database, "--migrations", migrations], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: database + "/.dbtool-migrate.lock") })
        let restore = try dbtool(["restore", archive, database, "--live", "--timeout", "120"])
        let migrated = migrate.wait()
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(restore.status == 0, "\(restore.stderr)")
        // The restore came after the migration: the backup's state, with no half history.
        let status = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations, "--format", "json"])
        #expect(status.status == 0, "\(status.stderr)")
        let again = try dbtool(["migrate", "--database", database, "--migrations", migrations, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.read { db in
            let recorded = try Int.fetchAll(db, sql: "SELECT version FROM dbtool_migrations ORDER BY version")
            #expect(recorded == [1, 2, 3, 4, 5, 6])
            for version in 1...6 { #expect(try db.tableExists("m\(version)"), "m\(version)") }
        }
    }

    @Test("a mount point (a volume's root) as DIR: restored in place, empty, with --force and with --live; nothing of the restore left", .enabled(if: getuid() == 0))
    func mountPoint() throws {
        let scratch = TemporaryDirectory()
        let (database, archive) = try backedUp(scratch)
        let volume = scratch.file("volume")
        try FileManager.default.createDirectory(atPath: volume, withIntermediateDirectories: false)
        try #require(mountTmpfs(volume, kilobytes: 65536), "mounting a tmpfs is not permitted here")
        defer { unmount(volume) }
        let fresh = try dbtool(["restore", archive, volume])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(try accountTotals(volume) == (1000, 10))
        // The application changes it; --force brings the backup back, and only it.
        #expect(try dbtool(["exec", "--database", volume, "UPDATE account SET balance = 0"]).status == 0)
        try Data("stray".utf8).write(to: URL(fileURLWithPath: volume + "/stray.txt"))
        let forced = try dbtool(["restore", archive, volume, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try accountTotals(volume) == (1000, 10))
        #expect(!FileManager.default.fileExists(atPath: volume + "/stray.txt"))
        #expect(FileManager.default.contents(atPath: volume + "/notes.txt") == Data("notes\n".utf8))
        // Live, while a connection is open: every file of the archive in place, within the volume.
        try Data("old notes".utf8).write(to: URL(fileURLWithPath: volume + "/notes.txt"))
        let connection = try DatabaseQueue(path: volume + "/db.sqlite")
        try connection.write { db in try db.execute(sql: "UPDATE account SET balance = 1") }
        let live = try dbtool(["restore", archive, volume, "--live"])
        #expect(live.status == 0, "\(live.stderr)")
        #expect(try connection.read { db in try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") } == 1000)
        try connection.close()
        #expect(FileManager.default.contents(atPath: volume + "/notes.txt") == Data("notes\n".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: volume).filter { $0.hasPrefix(".dbtool-") }
        #expect(left.isEmpty, "\(left)")
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
        _ = database
    }
}
