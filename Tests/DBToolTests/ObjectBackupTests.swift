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
        // Not dbtool's (no record): never latest.
        let latest = try run(["backup", "verify", "s3://backups/app/latest", "--format", "json"])
        #expect(try json(latest)["archive"] as? String == "s3://backups/\(key)")
        let verify = try run(["backup", "verify", "s3://backups/\(damaged)"])
        #expect(verify.status == 65, "\(verify.stderr)")
        #expect(verify.stderr.contains(damaged))
        let restore = try run(["restore", "s3://backups/\(damaged)", scratch.file("restored")])
        #expect(restore.status == 65)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("restored")))
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
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
    }

    @Test("--sse and --sse-kms-key-id: every object written, the archive (multipart or not) and its record, asks for them; backup list shows them")
    func serverSideEncryption() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        // Random pages: an archive of 7 MB, uploaded in parts of 5 MiB.
        let grow = try run([
            "exec", "--database", database,
            "CREATE TABLE noise(b); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 7) INSERT INTO noise SELECT randomblob(1000000) FROM n",
        ])
        #expect(grow.status == 0, "\(grow.stderr)")
        let kmsKey = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
        for (algorithm, partSize, keyID) in [("AES256", "16", nil), ("aws:kms", "5", nil), ("aws:kms", "6", kmsKey)] {
            let prefix = "sse-\(partSize)/"
            let keyArguments = keyID.map { ["--sse-kms-key-id", $0] } ?? []
            let backup = try run(
                ["backup", "--database", database, "--to", "s3://backups/\(prefix)", "--sse", algorithm, "--part-size", partSize] + keyArguments)
            #expect(backup.status == 0, "\(backup.stderr)")
            let keys = try server.keys(prefix)
            #expect(keys.count == 2, "the archive and its record: \(keys)")
            for key in keys {
                let head = "s3.head_object(Bucket='backups', Key='\(key)')"
                let applied = try server.python("h = \(head); print(h.get('ServerSideEncryption'), h.get('SSEKMSKeyId'))")
                #expect(applied == "\(algorithm) \(keyID ?? "None")", "\(key): \(applied)")
            }
            let list = try run(["backup", "list", "s3://backups/\(prefix)"])
            #expect(list.stdout.contains("sse \(algorithm)" + (keyID.map { " (\($0))" } ?? "")), "\(list.stdout)")
            let json = try run(["backup", "list", "s3://backups/\(prefix)", "--format", "json"])
            #expect(json.stdout.contains("\"serverSideEncryption\" : \"\(algorithm)\""), "\(json.stdout)")
            #expect(json.stdout.contains("serverSideEncryptionKeyID") == (keyID != nil), "\(json.stdout)")
        }
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

    @Test("SIGINT and SIGTERM during an upload: 130, and the multipart upload is aborted, no part left", arguments: [SIGINT, SIGTERM])
    func interruptedUpload(_ signal: Int32) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        // Under backups/slow/ every request takes 0.5 s more, so the upload
        // is still running when the signal arrives, however fast the machine.
        let backup = try BackgroundTool(
            ["backup", "--database", database, "--to", "s3://backups/slow/int/", "--level", "12", "--part-size", "5", "--upload-threads", "2"],
            environment: server.environment, scratch: scratch)
        #expect(waitUntil(timeout: 60) { ((try? server.openUploads("slow/int/")) ?? 0) > 0 }, "the upload never started")
        backup.send(signal)
        let result = backup.wait(timeout: 30)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(try server.openUploads("slow/int/") == 0, "the multipart upload was left: \(result.stderr)")
        #expect(try server.keys("slow/int/").isEmpty)
    }

    @Test("SIGTERM while the upload completes: the whole archive is kept with its record, and the message says so")
    func interruptedCompletion() throws {
        let scratch = TemporaryDirectory()
        let log = scratch.file("requests.log")
        let slow = try ObjectStorageServer(requestLog: log)
        defer { slow.stop() }
        let database = try scratch.makeLargeDatabase()
        let backup = try BackgroundTool(
            ["backup", "--database", database, "--to", "s3://backups/slow/complete/", "--level", "1", "--part-size", "5"],
            environment: slow.environment, scratch: scratch)
        // CompleteMultipartUpload is a POST with the upload's id: the signal arrives while the server holds it.
        let completing = waitUntil(timeout: 120) {
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.contains { $0.contains("\"method\": \"POST\"") && $0.contains("uploadId=") }
        }
        #expect(completing, "the upload never completed")
        backup.send(SIGTERM)
        let result = backup.wait(timeout: 60)
        #expect(result.status == 130, "\(result.stderr)")
        let keys = try slow.keys("slow/complete/")
        let archives = keys.filter { !$0.hasSuffix(".dbtool.json") }
        #expect(archives.count == 1, "\(keys)")
        if let archive = archives.first {
            #expect(keys.contains(archive + ".dbtool.json"), "the archive was left without its record: \(keys)")
            #expect(result.stderr.contains("kept with its record") && !result.stderr.contains("nothing was left behind"), "\(result.stderr)")
            let verify = try dbtool(["backup", "verify", "s3://backups/" + archive], environment: slow.environment)
            #expect(verify.status == 0, "\(verify.stderr)")
        }
        #expect(try slow.openUploads("slow/complete/") == 0)
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
            // Archives only: a backup that completed before the kill has its record beside it.
            for key in try server.keys("kill/") where !verified.contains(key) && !key.hasSuffix(".dbtool.json") {
                verified.insert(key)
                let verify = try run(["backup", "verify", "s3://backups/\(key)"])
                #expect(verify.status == 0, "trial \(trial): \(key) is under its final key but does not verify: \(verify.stderr)")
            }
        }
        let next = try run(["backup", "--database", database, "--to", "s3://backups/kill/", "--format", "json"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try server.openUploads("kill/") == 0)
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
