import DatabaseKit
import Foundation
import Testing
import TestSupport

/// What a backup or a snapshot must never do: write over the database it
/// copies, prune another database's files, pass off a corrupt database as a
/// good backup, follow a link or hang on a FIFO swapped into DIR.
@Suite("Data safety: backup and snapshot")
struct BackupSafetyTests {
    @Test("no output may be one of the database's own files, links and hard links resolved: 64, the database untouched")
    func outputsOffTheDatabase() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        #expect(symlink(database, scratch.file("link")) == 0)
        #expect(link(database + "/db.sqlite", scratch.file("hard.sqlite")) == 0)
        let targets = [
            database + "/db.sqlite", database + "/db.sqlite-wal", database + "/db.sqlite-shm", database + "/db.sqlite-journal",
            database + "/./db.sqlite", scratch.file("link/db.sqlite"), scratch.file("link/db.sqlite-wal"), scratch.file("hard.sqlite"),
        ]
        for target in targets {
            let snapshot = try dbtool(["snapshot", "--database", database, "--output", target, "--force"])
            #expect(snapshot.status == 64, "snapshot \(target): \(snapshot.stderr)")
            let backup = try dbtool(["backup", "--database", database, "--output", target, "--archive-format", "tar", "--force"])
            #expect(backup.status == 64, "backup \(target): \(backup.stderr)")
        }
        #expect(try accountTotals(database) == (1000, 10))
        let check = try dbtool(["exec", "--database", database, "PRAGMA integrity_check"])
        #expect(check.stdout.contains("ok"))
        // Through a link to the directory, the archive would be inside what it archives.
        let inside = try dbtool(["backup", "--database", database, "--output-dir", scratch.file("link/backups")])
        #expect(inside.status == 64, "\(inside.stderr)")
    }

    /// Two database directories named `db` in different places, as every `dbtool init` makes them.
    private func twoDatabases(_ scratch: TemporaryDirectory) throws -> [String] {
        try FileManager.default.createDirectory(atPath: scratch.file("a"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: scratch.file("b"), withIntermediateDirectories: false)
        return [try scratch.makeDatabase("a/db"), try scratch.makeDatabase("b/db")]
    }

    @Test("a shared output directory: each database's --keep prunes its own archives and snapshots only, and junk is never touched")
    func sharedOutputDirectory() throws {
        let scratch = TemporaryDirectory()
        let databases = try twoDatabases(scratch)
        let shared = scratch.file("shared")
        let junk = ["db-20200101T000000.000Z.tar.zst", "db-20200101T000000.000Z.sqlite", "db-20991231T000000.000Z.tar.zst"]
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        for name in junk { try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: shared + "/" + name)) }
        for round in 0..<3 {
            for database in databases {
                let backup = try dbtool(["backup", "--database", database, "--output-dir", shared, "--keep", "1", "--format", "json"])
                #expect(backup.status == 0, "\(backup.stderr)")
                let snapshot = try dbtool(["snapshot", "--database", database, "--output-dir", shared, "--keep", "1", "--format", "json"])
                #expect(snapshot.status == 0, "\(snapshot.stderr)")
                if round == 2 { #expect(backup.stdout.contains("not counted")) }
            }
            usleep(2_000)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: shared)
        let archives = names.filter { $0.hasSuffix(".tar.zst") && !junk.contains($0) }
        let snapshots = names.filter { $0.hasSuffix(".sqlite") && !junk.contains($0) }
        #expect(archives.count == 2, "one archive per database: \(archives)")
        #expect(snapshots.count == 2, "one snapshot per database: \(snapshots)")
        for name in junk { #expect(names.contains(name), "\(name) was deleted") }
        // `latest` is ambiguous between two databases, never the junk dated 2099.
        let latest = try dbtool(["backup", "verify", shared + "/latest"])
        #expect(latest.status == 64, "\(latest.stderr)")
        #expect(latest.stderr.contains("2 databases"))
        // Each restores to its own content.
        let list = try dbtool(["backup", "list", shared, "--format", "json"])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let entries = try #require(listed["archives"] as? [[String: Any]])
        #expect(entries.filter { $0["verified"] as? Bool == false }.count == 2, "the two junk archives are unverified")
        #expect(Set(entries.compactMap { $0["database"] as? String }.map { $0.split(separator: ":").last.map(String.init) ?? "" })
            == Set(databases.map { $0 + "/db.sqlite" }))
    }

    @Test("a corrupt source: backup and snapshot exit 65, keep the copy as evidence, prune nothing; migrate applies nothing")
    func corruptSource() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE big(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 2000) INSERT INTO big SELECT hex(randomblob(100)) FROM c")
        }
        #expect(try dbtool(["checkpoint", "--database", database, "--mode", "truncate", "-q"]).status == 0)
        let backups = scratch.file("backups")
        for _ in 0..<2 {
            #expect(try dbtool(["backup", "--database", database, "--output-dir", backups, "--keep", "1", "-q"]).status == 0)
            usleep(2_000)
        }
        let good = try FileManager.default.contentsOfDirectory(atPath: backups).filter { $0.hasSuffix(".tar.zst") }
        #expect(good.count == 1)
        // Random bytes over pages 2 to 4.
        let file = try #require(FileHandle(forWritingAtPath: database + "/db.sqlite"))
        try file.seek(toOffset: 4096)
        var generator = SystemRandomNumberGenerator()
        file.write(Data((0..<(3 * 4096)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        try file.close()

        let backup = try dbtool(["backup", "--database", database, "--output-dir", backups, "--keep", "1"])
        #expect(backup.status == 65, "\(backup.stderr)")
        #expect(backup.stderr.contains("corrupt"), "\(backup.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: backups)
        #expect(names.contains(good[0]), "the good archive was pruned")
        let evidence = names.filter { $0.contains(".corrupt.") }
        #expect(evidence.count == 1, "\(names)")
        #expect(backup.stderr.contains(evidence.first ?? "?"))

        let snapshot = try dbtool(["snapshot", "--database", database, "--output-dir", scratch.file("snapshots")])
        #expect(snapshot.status == 65, "\(snapshot.stderr)")
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: scratch.file("snapshots"))
        #expect(snapshots.count == 1 && snapshots[0].contains(".corrupt."), "\(snapshots)")

        let migrations = scratch.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try Data("CREATE TABLE added(x);".utf8).write(to: URL(fileURLWithPath: migrations + "/1_added.sql"))
        let migrate = try dbtool(["migrate", "--database", database, "--migrations", migrations])
        #expect(migrate.status == 65, "\(migrate.stderr)")
        #expect(migrate.stderr.contains("corrupt"))
    }

    @Test("a link swapped in for a file during the backup is never followed: skipped with a warning, its target not archived")
    func swappedLink() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        try Data("public notes".utf8).write(to: URL(fileURLWithPath: database + "/notes.txt"))
        try Data("root-only secret".utf8).write(to: URL(fileURLWithPath: scratch.file("secret")))
        let archive = scratch.file("b.tar")
        let backup = try BackgroundTool(
            ["backup", "--database", database, "--output", archive, "--archive-format", "tar", "--format", "json"], scratch: scratch)
        // Once the backup has walked DIR and is streaming the database.
        #expect(waitUntil { (try? FileManager.default.contentsOfDirectory(atPath: scratch.path))?.contains { $0.hasPrefix(".dbtool-backup-") } == true })
        #expect(symlink(scratch.file("secret"), database + "/n.new") == 0)
        #expect(rename(database + "/n.new", database + "/notes.txt") == 0)
        let result = backup.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let content = try Data(contentsOf: URL(fileURLWithPath: archive))
        #expect(content.range(of: Data("root-only secret".utf8)) == nil, "the link's target was archived")
        #expect(result.stdout.contains("notes.txt"), "the skip is reported: \(result.stdout)")
    }

    @Test("a FIFO in DIR is skipped, never waited on; init on a FIFO named db.sqlite refuses at once (65)")
    func fifos() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        #expect(mkfifo(database + "/pipe", 0o600) == 0)
        let start = Date()
        let backup = try dbtool(["backup", "--database", database, "--output", scratch.file("b.tar.zst"), "--format", "json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("pipe"))
        let directory = scratch.file("fifo")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(mkfifo(directory + "/db.sqlite", 0o600) == 0)
        let initialize = try dbtool(["init", directory])
        #expect(initialize.status == 65, "\(initialize.stderr)")
        #expect(Date().timeIntervalSince(start) < 30)
    }

    @Test("--output names an archive format: an unknown extension is 64 naming the known ones; --encrypt names the .zip it needs")
    func outputExtensions() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let passphrase = scratch.file("key")
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: passphrase))
        let rar = try dbtool(["backup", "--database", database, "--output", scratch.file("x.rar")])
        #expect(rar.status == 64, "\(rar.stderr)")
        #expect(rar.stderr.contains(".tar.zst"))
        let encrypted = try dbtool([
            "backup", "--database", database, "--output", scratch.file("x.tar.zst"), "--encrypt", "--passphrase-file", passphrase,
        ])
        #expect(encrypted.status == 64, "\(encrypted.stderr)")
        #expect(encrypted.stderr.contains(".zip") && !encrypted.stderr.contains("--archive-format tar"), "\(encrypted.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("x.") }.isEmpty)
    }

    @Test("--output-dir NEW on a full disk: 74, and NEW is not left behind", .enabled(if: getuid() == 0))
    func createdDirectoryOnFullDisk() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let disk = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        try #require(mountTmpfs(disk, kilobytes: 256), "mounting a tmpfs failed: this test needs root with CAP_SYS_ADMIN")
        defer { unmount(disk) }
        let result = try dbtool(["backup", "--database", database, "--output-dir", disk + "/new", "--archive-format", "tar"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
    }
}
