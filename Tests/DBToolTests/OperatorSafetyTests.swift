import DatabaseKit
import Foundation
import Testing
import TestSupport

/// What operators meet on real machines: a live application during a
/// restore, planted links and foreign files in the database directory, a
/// permissive umask, absurd arguments, a full disk.
@Suite("Operator safety")
struct OperatorSafetyTests {
    // MARK: Restore under a live application

    private func events(_ database: String) throws -> Set<Int> {
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in try Set(Int.fetchAll(db, sql: "SELECT seq FROM event")) }
    }

    /// A database with a `note` row saying "from the backup", its backup, and
    /// the note changed afterwards: a restore brings the first text back.
    private func backedUpDatabase(_ scratch: TemporaryDirectory, journalMode: String = "wal") throws -> (database: String, archive: String) {
        let database = scratch.file("app/db")
        #expect(try dbtool(["init", database, "--journal-mode", journalMode, "-q"]).status == 0)
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note(text TEXT); INSERT INTO note VALUES ('from the backup')")
            try db.execute(sql: "CREATE TABLE event(seq INTEGER PRIMARY KEY, at REAL)")
        }
        let archive = scratch.file("b.tar.zst")
        let backup = try dbtool(["backup", "--database", database, "--output", archive, "-q"])
        #expect(backup.status == 0, "\(backup.stderr)")
        try dbQueue.write { db in try db.execute(sql: "UPDATE note SET text = 'after the backup'") }
        try dbQueue.close()
        return (database, archive)
    }

    private func note(_ database: String) throws -> String? {
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in try String.fetchOne(db, sql: "SELECT text FROM note") }
    }

    @Test("restore --force refuses (75) a database an application is writing, and changes nothing")
    func restoreRefusesLiveDatabase() throws {
        let scratch = TemporaryDirectory()
        let (database, archive) = try backedUpDatabase(scratch)
        let application = try Application(database: database + "/db.sqlite", scratch: scratch)
        let result = try dbtool(["restore", archive, database, "--force"])
        usleep(100_000)  // the application goes on committing
        let last = try application.stop()

        #expect(result.status == 75, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("the database \(database)/db.sqlite is in use"))
        #expect(result.stderr.contains("Stop the application first"))
        #expect(result.stderr.contains("--live"))
        // Nothing replaced, nothing lost: every commit of the application is there.
        #expect(try note(database) == "after the backup")
        let rows = try events(database)
        #expect(rows.contains(last))
        #expect(rows.count == last - 1_000_000)
        #expect(dbtoolTempFiles(scratch.file("app")).isEmpty)
    }

    @Test("restore --force refuses an idle connection that holds no lock (rollback journal): seen by its open descriptor")
    func restoreRefusesIdleConnection() throws {
        let scratch = TemporaryDirectory()
        let (database, archive) = try backedUpDatabase(scratch, journalMode: "delete")
        let signals = scratch.file("signals")
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
        let holder = try startWorkload(["hold-open", database + "/db.sqlite", signals])
        defer {
            _ = FileManager.default.createFile(atPath: signals + "/release", contents: nil)
            holder.waitUntilExit()
        }
        while !FileManager.default.fileExists(atPath: signals + "/held") && holder.isRunning { usleep(10_000) }
        let result = try dbtool(["restore", archive, database, "--force"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("pid \(holder.processIdentifier) (TestWorkload)"))
        #expect(try note(database) == "after the backup")
    }

    @Test("restore --live restores in place under a writing application: it never fails, and every commit after the restore is kept")
    func restoreLive() throws {
        let scratch = TemporaryDirectory()
        let (database, archive) = try backedUpDatabase(scratch)
        let application = try Application(database: database + "/db.sqlite", scratch: scratch)
        usleep(100_000)
        let result = try dbtool(["restore", archive, database, "--live", "--format", "json"])
        usleep(300_000)  // the application goes on, on the restored content
        let last = try application.stop()

        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["live"] as? Bool == true)
        #expect(try note(database) == "from the backup")
        // The application's last commit went into the restored database, not
        // into an unlinked file.
        #expect(try events(database).contains(last))
        let check = try dbtool(["exec", "--database", database, "PRAGMA integrity_check"])
        #expect(check.stdout.contains("ok"))
        #expect(dbtoolTempFiles(scratch.file("app")).isEmpty)
    }

    @Test("restore --force of a database nobody uses still replaces it; --live and --force exclude each other")
    func restoreUnused() throws {
        let scratch = TemporaryDirectory()
        let (database, archive) = try backedUpDatabase(scratch)
        let result = try dbtool(["restore", archive, database, "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try note(database) == "from the backup")
        #expect(try dbtool(["restore", archive, database, "--force", "--live"]).status == 64)
    }

    // MARK: Lock files

    @Test("a lock file that is a symbolic link, a hard link or a FIFO is refused (73); its target is untouched", arguments: ["migrate", "backup"])
    func plantedLockFiles(command: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try Data("-- migrate:up\nCREATE TABLE t(x);\n".utf8).write(to: URL(fileURLWithPath: migrations + "/0001_t.sql"))
        let lock = database + "/.dbtool-\(command).lock"
        let victim = scratch.file("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let arguments =
            command == "migrate"
            ? ["migrate", "--database", database, "--migrations", migrations]
            : ["backup", "--database", database, "--output", scratch.file("b.tar.zst")]

        for plant in ["symlink", "hardlink", "fifo"] {
            switch plant {
            case "symlink": #expect(symlink(victim, lock) == 0)
            case "hardlink": #expect(link(victim, lock) == 0)
            default: #expect(mkfifo(lock, 0o600) == 0)
            }
            let result = try dbtool(arguments)
            #expect(result.status == 73, "\(plant): \(result.stderr)")
            #expect(result.stderr.contains("the lock file \(lock) is not one dbtool created"), "\(plant)")
            #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8), "\(plant)")
            var info = stat()
            #expect(lstat(lock, &info) == 0, "\(plant): the planted file was removed")
            unlink(lock)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b.tar.zst")))
        // A stale lock file of a killed run is taken over, and removed.
        try Data("999999999\n".utf8).write(to: URL(fileURLWithPath: lock))
        chmod(lock, 0o600)
        let result = try dbtool(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: lock))
    }

    @Test("a lock file that belongs to another user is refused (73)", .enabled(if: getuid() == 0))
    func foreignLockFile() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let lock = database + "/.dbtool-backup.lock"
        try Data().write(to: URL(fileURLWithPath: lock))
        #expect(chown(lock, 65534, 65534) == 0)
        let result = try dbtool(["backup", "--database", database, "--output", scratch.file("b.tar.zst")])
        #expect(result.status == 73)
        #expect(result.stderr.contains("belongs to user 65534"))
        #expect(FileManager.default.fileExists(atPath: lock))
    }

    // MARK: File modes

    /// Runs dbtool under `umask 000`.
    private func permissive(_ arguments: [String]) throws -> ToolResult {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try dbtool(["-c", "umask 000; exec '\(toolURL.path)' \(quoted)"], executable: "/bin/sh")
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o7777
    }

    @Test("under umask 000, every file dbtool creates is private (0600, directories 0700); migration sources 0644")
    func modesUnderPermissiveUmask() throws {
        let scratch = TemporaryDirectory()
        let database = scratch.file("db")
        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try Data("-- migrate:up\nCREATE TABLE t(x);\n".utf8).write(to: URL(fileURLWithPath: migrations + "/0001_t.sql"))

        #expect(try permissive(["init", database, "-q"]).status == 0)
        #expect(try permissive(["migrate", "--database", database, "--migrations", migrations, "--snapshot", "-q"]).status == 0)
        #expect(try permissive(["snapshot", "--database", database, "--output-dir", scratch.file("snapshots"), "-q"]).status == 0)
        #expect(try permissive(["snapshot", "--database", database, scratch.file("one.sqlite"), "--vacuum", "-q"]).status == 0)
        #expect(try permissive(["backup", "--database", database, "--output-dir", scratch.file("backups"), "-q"]).status == 0)
        #expect(try permissive(["migrate", "new", "second", "--migrations", migrations, "-q"]).status == 0)
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.file("backups")).first { $0.hasSuffix(".tar.zst") })
        #expect(try permissive(["restore", scratch.file("backups/" + archive), scratch.file("new/parent/db"), "-q"]).status == 0)

        #expect(mode(database) == 0o700)
        for file in ["db.sqlite", ".dbtool-last-snapshot"] {
            #expect(mode(database + "/" + file) == 0o600, "\(file)")
        }
        // SQLite gives the WAL and SHM the database's mode.
        let connection = try DatabaseQueue(path: database + "/db.sqlite")
        try connection.write { db in try db.execute(sql: "CREATE TABLE later(x)") }
        for file in ["db.sqlite-wal", "db.sqlite-shm"] {
            #expect(mode(database + "/" + file) == 0o600, "\(file)")
        }
        try connection.close()
        #expect(mode(database + "/snapshots") == 0o700)
        let preMigrate = try FileManager.default.contentsOfDirectory(atPath: database + "/snapshots")
        #expect(preMigrate.filter { $0.hasSuffix(".sqlite") }.count == 1, "\(preMigrate)")
        #expect(preMigrate.allSatisfy { mode(database + "/snapshots/" + $0) == 0o600 })
        #expect(mode(scratch.file("snapshots")) == 0o700)
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: scratch.file("snapshots"))
        #expect(snapshots.filter { $0.hasSuffix(".sqlite") }.count == 1 && snapshots.allSatisfy { mode(scratch.file("snapshots/" + $0)) == 0o600 })
        #expect(mode(scratch.file("one.sqlite")) == 0o600)
        #expect(mode(scratch.file("backups")) == 0o700)
        #expect(mode(scratch.file("backups/" + archive)) == 0o600)
        #expect(mode(scratch.file("new")) == 0o700)
        #expect(mode(scratch.file("new/parent")) == 0o700)
        #expect(mode(scratch.file("new/parent/db")) == 0o700)
        #expect(mode(scratch.file("new/parent/db/db.sqlite")) == 0o600)
        let created = try FileManager.default.contentsOfDirectory(atPath: migrations).filter { $0.hasSuffix("_second.sql") }
        #expect(created.count == 1 && created.allSatisfy { mode(migrations + "/" + $0) == 0o644 })
    }

    @Test("a snapshot never writes through a link planted at its temp or destination name")
    func snapshotThroughLinks() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let victim = scratch.file("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let destination = scratch.file("copy.sqlite")
        #expect(symlink(victim, destination) == 0)
        let refused = try dbtool(["snapshot", "--database", database, destination])
        #expect(refused.status == 73)
        let replaced = try dbtool(["snapshot", "--database", database, destination, "--force"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        // The link was replaced by the snapshot; its target is untouched.
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
        #expect(mode(destination) == 0o600)
        #expect(try DatabaseQueue(path: destination).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account") } == 10)
    }

    // MARK: Arguments that used to trap

    // The values beyond the range are refused in ParseTests; the largest runs.
    @Test("--timeout at the top of the documented range runs")
    func largestTimeout() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        #expect(try dbtool(["exec", "--database", database, "--timeout", "86400", "SELECT 1"]).status == 0)
    }

    @Test("migration versions beyond SQLite's integers, and a hand-edited migrations table, are reported (65), not a crash")
    func hugeAndDamagedVersions() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        let huge = migrations + "/9223372036854775808_huge.sql"
        try Data("CREATE TABLE t(x);".utf8).write(to: URL(fileURLWithPath: huge))
        let result = try dbtool(["migrate", "--database", database, "--migrations", migrations])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("\(huge): the version 9223372036854775808 is too large"))

        try FileManager.default.removeItem(atPath: huge)
        try Data("CREATE TABLE t(x);".utf8).write(to: URL(fileURLWithPath: migrations + "/0001_t.sql"))
        #expect(try dbtool(["migrate", "--database", database, "--migrations", migrations, "-q"]).status == 0)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "UPDATE dbtool_migrations SET version = -1")
        }
        let status = try dbtool(["migrate", "status", "--database", database, "--migrations", migrations])
        #expect(status.status == 65, "\(status.stderr)")
        #expect(status.stderr.contains("dbtool_migrations"))
    }

    // MARK: A full disk

    /// Mounts a tmpfs of `kilobytes` at `path`; false where mounting is not permitted.
    static func mountFullDisk(_ path: String, kilobytes: Int) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func unmount(_ path: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = [path]
        try? process.run()
        process.waitUntilExit()
    }

    @Test(
        "a snapshot onto a really full disk (tmpfs) names the destination and 'No space left on device', and leaves nothing",
        .enabled(if: getuid() == 0))
    func snapshotOnFullDisk() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let disk = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        try #require(Self.mountFullDisk(disk, kilobytes: 512), "mounting a tmpfs failed: this test needs root with CAP_SYS_ADMIN")
        defer { Self.unmount(disk) }
        for vacuum in [false, true] {
            let result = try dbtool(["snapshot", "--database", database, disk + "/copy.sqlite"] + (vacuum ? ["--vacuum"] : []))
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("can not write the snapshot \(disk)/copy.sqlite: No space left on device"), "\(result.stderr)")
            #expect(!result.stderr.contains("not an error"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
        }
    }
}
