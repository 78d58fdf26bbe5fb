import DatabaseKit
import Foundation
import Testing
import TestSupport

/// `dbtool backup --to s3://`, `backup list`, `verify` and `restore` from
/// object storage, end to end: the built binary against a real S3-API
/// server on loopback (moto), over HTTP, signed as for AWS.
@Suite("Off-site backups: object storage", .serialized)
struct ObjectBackupTests {
    let server: ObjectStorageServer

    init() throws {
        server = try ObjectStorageServer()
    }

    private func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ToolResult {
        try dbtool(arguments, environment: environment ?? server.environment)
    }

    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\(result.stderr)")
    }

    @Test("every format: backup --to, list (metadata, no download), verify and restore latest")
    func roundTrip() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        var archives: [String] = []
        for format in BackupCommandTests.formats {
            let backup = try run([
                "backup", "--database", database, "--to", "s3://backups/app/", "--archive-format", format, "--format", "json",
            ])
            #expect(backup.status == 0, "\(backup.stderr)")
            let report = try json(backup)
            let archive = try #require(report["archive"] as? String)
            #expect(archive.hasPrefix("s3://backups/app/db-") && archive.hasSuffix("." + format))
            #expect((report["sha256"] as? String)?.count == 64)
            archives.append(archive)

            let verify = try run(["backup", "verify", archive])
            #expect(verify.status == 0, "\(verify.stderr)")
            let restored = scratch.file("restored-\(format)")
            let restore = try run(["restore", archive, restored])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try accountTotals(restored) == (1000, 10))
        }
        let list = try run(["backup", "list", "s3://backups/app/", "--format", "json"])
        #expect(list.status == 0, "\(list.stderr)")
        let listed = try #require(try json(list)["archives"] as? [[String: Any]])
        #expect(listed.compactMap { $0["location"] as? String } == archives)
        #expect(listed.allSatisfy { ($0["pageCount"] as? Int ?? 0) > 0 && ($0["sha256"] as? String)?.count == 64 })

        // `latest` is the newest; restore refuses a non-empty directory as locally.
        let latest = try run(["backup", "verify", "s3://backups/app/latest", "--format", "json"])
        #expect(try json(latest)["archive"] as? String == archives.last)
        let refused = try run(["restore", "s3://backups/app/latest", scratch.file("restored-zip")])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(try accountTotals(scratch.file("restored-zip")) == (1000, 10))
    }

    @Test("small parts, several threads: a database larger than a part streams in order")
    func multipart() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let backup = try run([
            "backup", "--database", database, "--to", "s3://backups/big/", "--archive-format", "tar", "--part-size", "5",
            "--upload-threads", "3", "--format", "json",
        ])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try json(backup)["bytes"] as? Int ?? 0 > 10 << 20)
        let restore = try run(["restore", "s3://backups/big/latest", scratch.file("restored")])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try accountTotals(scratch.file("restored")) == (1000, 10))
        #expect(try server.openUploads("big/") == 0)
    }

    @Test("a wrong secret exits 77 and the secret never appears; a missing bucket 66; no credentials 77")
    func refusals() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        var environment = server.environment
        environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-0123456789"
        for arguments in [
            ["backup", "--database", database, "--to", "s3://backups/app/"], ["backup", "list", "s3://backups/app/"],
            ["backup", "verify", "s3://backups/app/latest"],
        ] {
            let result = try run(arguments, environment: environment)
            #expect(result.status == 77, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("SignatureDoesNotMatch"))
            #expect(!(result.stdout + result.stderr).contains("wrong-secret"))
            #expect(!(result.stdout + result.stderr).contains(server.secretAccessKey))
        }
        let missing = try run(["backup", "--database", database, "--to", "s3://no-such-bucket/app/"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("NoSuchBucket"))

        var none = server.environment
        none["AWS_ACCESS_KEY_ID"] = ""
        none["HOME"] = scratch.path
        let anonymous = try run(["backup", "list", "s3://backups/app/"], environment: none)
        #expect(anonymous.status == 77)
        #expect(anonymous.stderr.contains("no credentials"))

        let insecure = try run(["backup", "list", "s3://backups/app/", "--endpoint", "http://backups.example.com"])
        #expect(insecure.status == 64)
        #expect(insecure.stderr.contains("--allow-insecure-endpoint"))
    }

    @Test("a corrupted object fails verify with 65 and restores nothing")
    func corruptedObject() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let backup = try run(["backup", "--database", database, "--to", "s3://backups/app/", "--archive-format", "tar", "--format", "json"])
        let key = try #require((try json(backup)["archive"] as? String)?.dropFirst("s3://backups/".count))
        // Flip bytes in the middle of the database's data, under a new archive name.
        let damaged = "app/db-20300101T000000.000Z.tar"
        _ = try server.python(
            """
            body = bytearray(s3.get_object(Bucket='backups', Key='\(key)')['Body'].read())
            for i in range(20000, 20100): body[i] ^= 0xFF
            s3.put_object(Bucket='backups', Key='\(damaged)', Body=bytes(body))
            print('ok')
            """)
        let verify = try run(["backup", "verify", "s3://backups/app/latest"])
        #expect(verify.status == 65, "\(verify.stderr)")
        #expect(verify.stderr.contains(damaged))
        let restore = try run(["restore", "s3://backups/\(damaged)", scratch.file("restored")])
        #expect(restore.status == 65)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("restored")))
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }

    @Test("retention on a prefix: archives of made-up dates, GFS rules, --dry-run deletes nothing")
    func retention() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let old = [
            "db-20250101T020000.000Z.tar.zst", "db-20250615T020000.000Z.tar.zst", "db-20260901T020000.000Z.tar.zst",
            "db-20261001T020000.000Z.tar.zst", "db-20261120T020000.000Z.tar.zst", "db-20261121T020000.000Z.tar.zst",
            "db-20261121T140000.000Z.tar.zst",
        ]
        // Another database's series and a stray object stay whatever the rules.
        let others = ["other-20200101T000000.000Z.tar.zst", "notes.txt"]
        for name in old + others { _ = try server.python("s3.put_object(Bucket='backups', Key='keep/\(name)', Body=b'x')") }
        let rules = ["--keep-daily", "2", "--keep-monthly", "3"]
        let dryRun = try run(["backup", "--database", database, "--to", "s3://backups/keep/", "--dry-run", "--format", "json"] + rules)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let wouldDelete = try #require(try json(dryRun)["wouldDelete"] as? [String])
        // Kept: the new one (today, this month), 2026-11-21 14:00 (the second day),
        // 2026-10-01 and 2026-09-01 (the 2nd and 3rd months).
        let expected = [
            "db-20250101T020000.000Z.tar.zst", "db-20250615T020000.000Z.tar.zst", "db-20261120T020000.000Z.tar.zst",
            "db-20261121T020000.000Z.tar.zst",
        ].map { "s3://backups/keep/" + $0 }
        #expect(wouldDelete == expected)
        #expect(try server.keys("keep/").count == old.count + others.count)

        let backup = try run(["backup", "--database", database, "--to", "s3://backups/keep/", "--format", "json"] + rules)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try json(backup)["deleted"] as? [String] == expected)
        let remaining = Set(try server.keys("keep/").map { String($0.dropFirst("keep/".count)) })
        #expect(remaining.isSuperset(of: others))
        #expect(remaining.count == old.count + others.count + 1 - expected.count)
    }

    @Test("an encrypted archive: AES-256 zip that 7z and bsdtar read; verify and restore need the passphrase")
    func encryption() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let passphrase = scratch.file("key")
        try Data("correct horse battery staple\n".utf8).write(to: URL(fileURLWithPath: passphrase))
        let wrong = scratch.file("wrong")
        try Data("nope\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let archive = scratch.file("backup.zip")
        let backup = try run(["backup", "--database", database, "--output", archive, "--encrypt", "--passphrase-file", passphrase])
        #expect(backup.status == 0, "\(backup.stderr)")

        let listing = try runProgram("/usr/bin/7z", ["l", "-slt", "-pcorrect horse battery staple", archive])
        #expect(listing.contains("Method = AES-256"))
        #expect(try runProgram("/usr/bin/7z", ["t", "-pcorrect horse battery staple", archive]).contains("Everything is Ok"))
        let extracted = scratch.file("bsdtar")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: false)
        _ = try runProgram("/usr/bin/bsdtar", ["-x", "-f", archive, "-C", extracted, "--passphrase", "correct horse battery staple"])
        #expect(try accountTotals(extracted + "/db") == (1000, 10))

        #expect(try run(["backup", "verify", archive]).status == 77)
        #expect(try run(["backup", "verify", archive, "--passphrase-file", wrong]).status == 77)
        #expect(try run(["backup", "verify", archive, "--passphrase-file", passphrase]).status == 0)

        let remote = try run([
            "backup", "--database", database, "--to", "s3://backups/secret/", "--encrypt", "--passphrase-file", passphrase,
        ])
        #expect(remote.status == 0, "\(remote.stderr)")
        let restore = try run(["restore", "s3://backups/secret/latest", scratch.file("restored"), "--passphrase-file", passphrase])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try accountTotals(scratch.file("restored")) == (1000, 10))
        #expect(try run(["backup", "--database", database, "--to", "s3://backups/x/", "--encrypt"]).status == 64)
    }

    @Test("the server killed mid-upload: exit 75 naming the endpoint, no object")
    func serverKilled() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let doomed = try ObjectStorageServer()
        var environment = doomed.environment
        environment["DBTOOL_TEST"] = "1"
        let killer = Thread {
            Thread.sleep(forTimeInterval: 1.5)
            doomed.kill()
        }
        killer.start()
        let result = try dbtool(
            [
                "backup", "--database", database, "--to", "s3://backups/app/", "--level", "19", "--part-size", "5", "--retries", "1",
            ], environment: environment)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains(doomed.endpoint))
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }

    @Test("SIGKILL at random moments of uploads: never an object under a final key that does not verify; the next run aborts the stale upload")
    func killedUploads() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        var verified: Set<String> = []
        for trial in 0..<trials(20) {
            let process = Process()
            process.executableURL = toolURL
            process.arguments = ["backup", "--database", database, "--to", "s3://backups/kill/", "--level", "12", "--part-size", "5"]
            process.environment = ProcessInfo.processInfo.environment.merging(server.environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 100_000...1_500_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for key in try server.keys("kill/") where !verified.contains(key) {
                verified.insert(key)
                let verify = try run(["backup", "verify", "s3://backups/\(key)"])
                #expect(verify.status == 0, "trial \(trial): \(key) is under its final key but does not verify: \(verify.stderr)")
            }
        }
        let next = try run(["backup", "--database", database, "--to", "s3://backups/kill/", "--format", "json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try server.openUploads("kill/") == 0)
    }

    @Test("backups to a prefix while two processes commit restore with every commit made before they began")
    func liveWriters() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let path = database + "/db.sqlite"
        let stop = scratch.file("stop")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE ledger(seq INTEGER PRIMARY KEY, amount INT, payload BLOB)")
        }
        let writers = try (0..<2).map { _ in try startWorkload(["transfer", path, stop]) }
        let observer = try DatabaseQueue(path: path)
        func committed() throws -> Int {
            try observer.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM ledger") ?? 0 }
        }
        while try committed() < 20 && writers.allSatisfy(\.isRunning) { usleep(10_000) }
        var backups: [(archive: String, committedBefore: Int)] = []
        for _ in 0..<3 {
            let before = try committed()
            let result = try run(["backup", "--database", database, "--to", "s3://backups/live/", "--timeout", "30", "--format", "json"])
            #expect(result.status == 0, "\(result.stderr)")
            backups.append((try #require(try json(result)["archive"] as? String), before))
        }
        try Data().write(to: URL(fileURLWithPath: stop))
        for writer in writers { writer.waitUntilExit() }
        try observer.close()
        for (index, backup) in backups.enumerated() {
            let restored = scratch.file("restored-\(index)")
            let restore = try run(["restore", backup.archive, restored])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try accountTotals(restored).total == 1000)
            let seq = try DatabaseQueue(path: restored + "/db.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM ledger") ?? 0
            }
            #expect(seq >= backup.committedBefore)
        }
    }
}

/// Runs a program to its end; its stdout (stderr discarded). Fails on a non-zero status.
func runProgram(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(path) \(arguments) exited with \(process.terminationStatus)")
    return String(decoding: data, as: UTF8.self)
}
