import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("dbtool backup and restore")
struct BackupCommandTests {
    static let formats = ["tar.zst", "tar.gz", "tar.xz", "tar", "zip"]

    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("every format round-trips the whole directory: rows, other files, modes", arguments: formats)
    func roundTrip(format: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try FileManager.default.createDirectory(atPath: database + "/attachments", withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: database + "/attachments/note.txt"))
        chmod(database + "/attachments/note.txt", 0o640)
        let archive = scratch.file("backup.\(format)")

        let backup = try dbtool(["backup", "--database", database, "--output", archive, "--format", "json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        let report = try json(backup)
        #expect(report["archive"] as? String == archive)
        #expect(report["files"] as? Int == 5)  // the database, its WAL and SHM, its identity, the note
        var info = stat()
        stat(archive, &info)
        #expect(info.st_mode & 0o777 == 0o600)

        let restored = scratch.file("restored/db")
        let restore = try dbtool(["restore", archive, restored])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("integrity_check ok"))
        #expect(try accountTotals(restored) == (1000, 10))
        #expect(FileManager.default.contents(atPath: restored + "/attachments/note.txt") == Data("kept".utf8))
        stat(restored + "/attachments/note.txt", &info)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(!FileManager.default.fileExists(atPath: restored + "/.dbtool-manifest.json"))
        #expect(!FileManager.default.fileExists(atPath: restored + "/.dbtool-backup.lock"))
        #expect(try dbtool(["backup", "verify", archive]).status == 0)
    }

    @Test("a database named by its file: only its own files are archived; symbolic links in a directory are skipped and reported")
    func scope() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        try Data("neighbour".utf8).write(to: URL(fileURLWithPath: database + "/notes.txt"))
        #expect(symlink("/etc/hostname", database + "/link") == 0)

        let fileOnly = scratch.file("file.tar.zst")
        let byFile = try dbtool(["backup", "--database", database + "/db.sqlite", "--output", fileOnly, "--format", "json"])
        #expect(byFile.status == 0, "\(byFile.stderr)")
        let restoredFile = scratch.file("restored-file")
        #expect(try dbtool(["restore", fileOnly, restoredFile, "-q"]).status == 0)
        // The database and its identity, which a restore keeps.
        #expect(try FileManager.default.contentsOfDirectory(atPath: restoredFile).sorted() == [".db.sqlite.dbtool-id", "db.sqlite"])

        let whole = scratch.file("whole.tar.zst")
        let byDirectory = try dbtool(["backup", "--database", database, "--output", whole, "--format", "json"])
        #expect(byDirectory.status == 0, "\(byDirectory.stderr)")
        #expect(try json(byDirectory)["skipped"] as? [String] == ["link"])
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", whole, restored, "-q"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: restored).sorted() == [".db.sqlite.dbtool-id", "db.sqlite", "notes.txt"])
    }

    @Test("commits still in the WAL are in the archive and after restore")
    func walContent() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let pool = try DatabasePool(path: database + "/db.sqlite")
        defer { try? pool.close() }
        try pool.write { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "UPDATE account SET balance = 0 WHERE id = 1")
            try db.execute(sql: "UPDATE account SET balance = 200 WHERE id = 2")
            try db.execute(sql: "CREATE TABLE only_in_wal(x)")
        }
        let archive = scratch.file("wal.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let verify = try dbtool(["backup", "verify", archive, "--format", "json"])
        #expect(verify.status == 0, "\(verify.stderr)")
        let manifest = try #require(try json(verify)["manifest"] as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        let wal = try #require(files.first { $0["path"] as? String == "db.sqlite-wal" })
        #expect((wal["size"] as? Int ?? 0) > 0)

        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", archive, restored, "-q"]).status == 0)
        let dbQueue = try DatabaseQueue(path: restored + "/db.sqlite")
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT balance FROM account WHERE id = 1") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'only_in_wal'") == 1)
        }
    }

    @Test("SIGKILL during a backup leaves no archive under its final name; the next run cleans up and succeeds")
    func killed() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let output = scratch.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        let archive = output + "/db.tar.zst"
        for delay in [0.05, 0.2, 0.5] {
            let process = Process()
            process.executableURL = toolURL
            process.arguments = ["backup", "--database", database, "--output", archive, "--level", "19"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(!FileManager.default.fileExists(atPath: archive), "after \(delay) s")
            #expect(try accountTotals(database).total == 1000)
        }
        let next = try dbtool(["backup", "--database", database, "--output", archive, "--level", "1"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(dbtoolTempFiles(output).isEmpty)
        #expect(try dbtool(["backup", "verify", archive, "-q"]).status == 0)
    }

    @Test("SIGINT and SIGTERM stop a backup cleanly: exit 130, no archive, no temp file", arguments: [SIGINT, SIGTERM])
    func interrupted(signal: Int32) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let output = scratch.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        let process = Process()
        process.executableURL = toolURL
        process.arguments = ["backup", "--database", database, "--output-dir", output, "--level", "19"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Signal it once it is writing its temp archive.
        let deadline = Date(timeIntervalSinceNow: 10)
        while dbtoolTempFiles(output).isEmpty && Date() < deadline { usleep(5_000) }
        Thread.sleep(forTimeInterval: 0.2)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(message)")
        #expect(message.contains("interrupted"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output).isEmpty)
        #expect(dbtoolTempFiles(database).isEmpty)  // the lock file too is gone
    }

    @Test("--keep keeps the newest N archives of this database, and nothing else is touched")
    func retention() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let output = scratch.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: output + "/unrelated.tar.zst"))
        var archives: [String] = []
        for format in ["tar.zst", "tar.gz", "zip", "tar.zst"] {
            let result = try dbtool([
                "backup", "--database", database, "--output-dir", output, "--keep", "2", "--archive-format", format, "--format", "json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            archives.append(try json(result)["archive"] as? String ?? "")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
        let kept = archives.suffix(2).map { URL(fileURLWithPath: $0).lastPathComponent }
        let expected = (kept + kept.map { $0 + ".dbtool.json" } + ["unrelated.tar.zst"]).sorted()
        #expect(names == expected)
        #expect(archives.allSatisfy { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("db-") })
    }

    @Test("the archive format is the one --output's extension names; a contradicting --archive-format is 64, nothing written")
    func archiveFormatFromExtension() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        for (name, format) in [("a.tar.gz", "tar.gz"), ("b.tgz", "tar.gz"), ("c.zip", "zip"), ("d.tar", "tar"), ("e.backup", "tar.zst")] {
            let explicit = name.hasSuffix(".backup") ? ["--archive-format", format] : []
            let result = try dbtool(["backup", "--database", database, "--output", scratch.file(name), "--format", "json"] + explicit)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try json(result)["format"] as? String == format, "\(name)")
            let verified = try dbtool(["backup", "verify", scratch.file(name)])
            #expect(verified.status == 0, "\(name): \(verified.stderr)")
        }
        let agreeing = try dbtool(["backup", "--database", database, "--output", scratch.file("f.zip"), "--archive-format", "zip"])
        #expect(agreeing.status == 0, "\(agreeing.stderr)")

        let contradicting = try dbtool(["backup", "--database", database, "--output", scratch.file("g.tar.gz"), "--archive-format", "tar.zst"])
        #expect(contradicting.status == 64)
        #expect(contradicting.stderr.contains("--archive-format tar.zst contradicts"))
        #expect(contradicting.stderr.contains("g.tar.gz"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("g.tar.gz")))
    }

    @Test("a backup started while another runs on the same database exits 75 at once")
    func overlapping() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let first = Process()
        first.executableURL = toolURL
        first.arguments = ["backup", "--database", database, "--output", scratch.file("first.tar.zst"), "--level", "19"]
        try first.run()
        // The first run holds the lock once it has written its pid.
        let lockPath = database + "/.dbtool-backup.lock"
        let deadline = Date(timeIntervalSinceNow: 10)
        while (try? String(contentsOfFile: lockPath, encoding: .utf8)) != "\(first.processIdentifier)\n" && Date() < deadline {
            usleep(5_000)
        }
        let started = Date()
        let second = try dbtool(["backup", "--database", database, "--output", scratch.file("second.tar.zst")])
        #expect(second.status == 75)
        #expect(second.stderr.contains("another `dbtool backup` (pid \(first.processIdentifier))"))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("second.tar.zst")))
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
    }

    @Test("verify catches a flipped byte", arguments: ["tar", "tar.zst"])
    func flippedByte(format: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("backup.\(format)")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "--archive-format", format, "-q"]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        // In a tar, the database's content starts after two 512-byte headers
        // (folder, then file) and their pax extensions; its middle is data.
        let offset = format == "tar" ? 512 * 8 + 3000 : bytes.count / 2
        bytes[offset] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: archive))
        let verify = try dbtool(["backup", "verify", archive])
        #expect(verify.status == 65)
        #expect(verify.stderr.contains(archive))
        if format == "tar" { #expect(verify.stderr.contains("SHA-256")) }
        let restore = try dbtool(["restore", archive, scratch.file("restored")])
        #expect(restore.status == 65)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("restored")))
    }

    @Test(
        "restore refuses, before writing anything, absolute paths, `..`, links and devices",
        arguments: [
            ("/tmp/evil", CraftedArchive.Kind.file("x"), "an absolute path"),
            ("db/../evil", .file("x"), "a `..` component"),
            ("db/link", .symbolicLink(to: "/etc/passwd"), "a symbolic link"),
            ("db/hard", .hardLink(to: "db/db.sqlite"), "a hard link"),
            ("db/null", .characterDevice, "a special file"),
            ("db/pipe", .fifo, "a special file"),
        ] as [(String, CraftedArchive.Kind, String)])
    func malicious(name: String, kind: CraftedArchive.Kind, why: String) throws {
        let scratch = TemporaryDirectory()
        let archive = scratch.file("evil.tar.gz")
        CraftedArchive.write(archive, entries: [("db/", .directory), ("db/db.sqlite", .file("not much")), (name, kind)])
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        let restore = try dbtool(["restore", archive, scratch.file("restored")])
        #expect(restore.status == 65)
        #expect(restore.stderr.contains(why), "\(restore.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == before)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil"))
        #expect(try dbtool(["backup", "verify", archive]).status == 65)
    }

    @Test("a truncated archive fails cleanly, with nothing left behind", arguments: formats)
    func truncated(format: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let archive = scratch.file("backup.\(format)")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "--archive-format", format, "-q"]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: archive))
        let parent = scratch.file("target")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        let restore = try dbtool(["restore", archive, parent + "/db"])
        #expect(restore.status == 65, "\(restore.stderr)")
        #expect(restore.stderr.contains(archive))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty)
    }

    @Test("restore refuses a non-empty directory; --force replaces it, and keeps it when the restore fails")
    func force() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let good = scratch.file("good.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", good, "-q"]).status == 0)

        // An archive whose manifest matches, but whose database is corrupt.
        let corrupt = try scratch.makeDatabase("corrupt")
        #expect(try dbtool(["checkpoint", "--database", corrupt, "--mode", "truncate", "-q"]).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: corrupt + "/db.sqlite"))
        try handle.seek(toOffset: 4096)  // page 2, the table's b-tree page
        handle.write(Data(repeating: 0xFF, count: 64))
        try handle.close()
        // The backup of a corrupt database fails, and keeps its archive as evidence.
        #expect(try dbtool(["backup", "--database", corrupt, "--output", scratch.file("bad.tar.zst"), "-q"]).status == 65)
        let bad = scratch.file("bad.corrupt.tar.zst")
        #expect(FileManager.default.fileExists(atPath: bad))

        let target = try scratch.makeDatabase("target")
        try DatabaseQueue(path: target + "/db.sqlite").write { db in try db.execute(sql: "UPDATE account SET balance = 1") }
        let before = directoryFingerprint(target)

        let refused = try dbtool(["restore", good, target])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("not empty") && refused.stderr.contains("--force"))
        let failed = try dbtool(["restore", bad, target, "--force"])
        #expect(failed.status == 65, "\(failed.stderr)")
        #expect(failed.stderr.contains("integrity_check") || failed.stderr.contains("can not be read"))
        #expect(directoryFingerprint(target) == before)
        #expect(dbtoolTempFiles(scratch.path).isEmpty)

        let replaced = try dbtool(["restore", good, target, "--force", "--format", "json"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try json(replaced)["replaced"] as? Bool == true)
        #expect(try accountTotals(target).total == 1000)
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }

    @Test("bad arguments are refused before anything is written")
    func badArguments() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let level = try dbtool([
            "backup", "--database", database, "--output", scratch.file("a.tar.gz"), "--archive-format", "tar.gz", "--level", "12",
        ])
        #expect(level.status == 64)
        #expect(level.stderr.contains("--level 12") && level.stderr.contains("0 to 9"))
        let inside = try dbtool(["backup", "--database", database, "--output-dir", database])
        #expect(inside.status == 64)
        #expect(inside.stderr.contains("is the database directory") && inside.stderr.contains("nothing was changed"))
        try Data().write(to: URL(fileURLWithPath: scratch.file("exists.tar.zst")))
        let exists = try dbtool(["backup", "--database", database, "--output", scratch.file("exists.tar.zst")])
        #expect(exists.status == 73)
        #expect(exists.stderr.contains("--force"))
        let missing = try dbtool(["backup", "--database", scratch.file("nothing"), "--output", scratch.file("b.tar.zst")])
        #expect(missing.status == 66)
        let noArchive = try dbtool(["restore", scratch.file("none.tar.zst"), scratch.file("r")])
        #expect(noArchive.status == 66)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["db", "exists.tar.zst"])
    }
}
