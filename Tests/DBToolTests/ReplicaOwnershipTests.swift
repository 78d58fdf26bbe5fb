import DatabaseKit
import Foundation
import Testing
import TestSupport

/// One owner per replica, end to end: the record a replica keeps, the
/// refusal of another database whatever the timing, the adoption of a
/// replica Litestream wrote, `replicate verify` on a replica two databases
/// wrote, and the identity a restore from the replica keeps.
@Suite("Data safety: one owner per replica", .serialized)
struct ReplicaOwnershipTests {
    let scratch = TemporaryDirectory()

    /// A WAL database directory `name` with a row.
    func walDatabase(_ name: String) throws -> String {
        let database = try scratch.makeDatabase(name)
        let result = try dbtool(["exec", "--database", database, "PRAGMA journal_mode = WAL; INSERT INTO account VALUES (500, 1)"])
        try #require(result.status == 0, "\(result.stderr)")
        return database
    }

    /// Replicates `database` to `replica` until a snapshot is there, then stops it with SIGTERM.
    func replicateOnce(_ database: String, to replica: String, environment: [String: String] = [:]) throws -> ToolResult {
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], environment: environment, scratch: scratch)
        _ = waitUntil(timeout: 30) {
            replicate.stderrSoFar.contains("snapshot") || replicate.stderrSoFar.contains("resumed") || !replicate.process.isRunning
        }
        Thread.sleep(forTimeInterval: 0.3)
        replicate.send(SIGTERM)
        return replicate.wait()
    }

    /// Every file of a directory replica, with its bytes.
    func fingerprint(_ replica: String) -> [String: Data] {
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: replica) else { return result }
        for case let relative as String in enumerator {
            result[relative] = FileManager.default.contents(atPath: replica + "/" + relative) ?? Data()
        }
        return result
    }

    @Test("a second database onto a replica: 73 naming both databases, the replica untouched; the owner goes on")
    func secondDatabaseRefused() throws {
        let first = try walDatabase("first")
        let second = try walDatabase("second")
        let replica = scratch.file("replica")
        let owned = try replicateOnce(first, to: replica)
        #expect(owned.status == 0, "\(owned.stderr)")
        let record = try String(contentsOfFile: replica + "/dbtool-replica.json", encoding: .utf8)
        #expect(record.contains(first + "/db.sqlite"), "\(record)")
        let before = fingerprint(replica)
        let refused = try dbtool(["replicate", "--database", second, "--to", replica])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains(first + "/db.sqlite") && refused.stderr.contains(second + "/db.sqlite"), "\(refused.stderr)")
        #expect(fingerprint(replica) == before, "the replica changed")
        #expect(try replicateOnce(first, to: replica).status == 0)
        #expect(try dbtool(["replicate", "verify", replica]).status == 0)
    }

    @Test("two databases started at the same moment onto one empty replica: exactly one replicates, the other exits 73", arguments: 0..<5)
    func race(_ round: Int) throws {
        let first = try walDatabase("first-\(round)")
        let second = try walDatabase("second-\(round)")
        let replica = scratch.file("replica-\(round)")
        let runs = try [first, second].map { database in
            try BackgroundTool(["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
        }
        Thread.sleep(forTimeInterval: 2)
        for run in runs { run.send(SIGTERM) }
        let statuses = runs.map { $0.wait() }.map(\.status).sorted()
        #expect(statuses == [0, 73], "round \(round): \(statuses)")
        let verify = try dbtool(["replicate", "verify", replica])
        #expect(verify.status == 0, "round \(round): \(verify.stderr)")
    }

    @Test("on S3: the record is created with If-None-Match; another database is refused 73")
    func objectStorage() throws {
        let server = try ObjectStorageServer()
        defer { server.stop() }
        let first = try walDatabase("first")
        let second = try walDatabase("second")
        #expect(try replicateOnce(first, to: "s3://backups/owned/", environment: server.environment).status == 0)
        #expect(try server.keys("owned/").contains("owned/dbtool-replica.json"))
        let refused = try dbtool(["replicate", "--database", second, "--to", "s3://backups/owned/"], environment: server.environment)
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains(first + "/db.sqlite"), "\(refused.stderr)")
    }

    @Test("a replica Litestream wrote is adopted by the first dbtool that replicates there, and refused to any other")
    func litestreamReplicaAdopted() throws {
        let litestream = ReplicateCommandTests.litestream
        try #require(FileManager.default.isExecutableFile(atPath: litestream), "run `make s3-deps`")
        let database = try walDatabase("theirs")
        let other = try walDatabase("other")
        let replica = scratch.file("litestream-replica")
        let process = Process()
        process.executableURL = workloadURL
        process.arguments = ["exec-unblocked", litestream, "replicate", database + "/db.sqlite", "file://" + replica]
        var environment = testEnvironment
        environment["AWS_CA_BUNDLE"] = nil
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: replica + "/ltx/0") }, "Litestream wrote nothing")
        Thread.sleep(forTimeInterval: 1.5)
        process.terminate()
        #expect(waitUntil(timeout: 15) { !process.isRunning })
        #expect(!FileManager.default.fileExists(atPath: replica + "/dbtool-replica.json"))
        let adopted = try replicateOnce(database, to: replica)
        #expect(adopted.status == 0, "\(adopted.stderr)")
        #expect(FileManager.default.fileExists(atPath: replica + "/dbtool-replica.json"))
        let refused = try dbtool(["replicate", "--database", other, "--to", replica])
        #expect(refused.status == 73, "\(refused.stderr)")
        // Litestream still reads the replica, record and all.
        let restored = scratch.file("restored-by-litestream.db")
        var litestreamEnvironment = testEnvironment
        litestreamEnvironment["AWS_CA_BUNDLE"] = nil
        let restore = try run(litestream, ["restore", "-o", restored, "file://" + replica], environment: litestreamEnvironment)
        #expect(restore.status == 0, "\(restore.stdout)\(restore.stderr)")
    }

    @Test("replicate verify fails a replica whose files come from two databases, naming them (65)")
    func verifyTwoHistories() throws {
        let first = try walDatabase("first")
        let second = try walDatabase("second")
        let ours = scratch.file("ours")
        let theirs = scratch.file("theirs")
        for (database, replica) in [(first, ours), (second, theirs)] {
            let replicate = try BackgroundTool(
                ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1", "--no-compaction"], scratch: scratch)
            #expect(waitUntil { replicate.stderrSoFar.contains("snapshot") })
            for value in 0..<4 {
                #expect(try dbtool(["exec", "--database", database, "INSERT INTO account VALUES (\(200 + value), 1)"]).status == 0)
                Thread.sleep(forTimeInterval: 0.3)
            }
            replicate.send(SIGTERM)
            #expect(replicate.wait().status == 0)
        }
        #expect(try dbtool(["replicate", "verify", ours]).status == 0)
        // The other database's file of the same TXID, in place of ours: what two databases writing one replica leave.
        let levelZero = try FileManager.default.contentsOfDirectory(atPath: ours + "/ltx/0").sorted()
        try #require(levelZero.count >= 3, "\(levelZero)")
        let swapped = levelZero[levelZero.count - 2]
        try #require(FileManager.default.fileExists(atPath: theirs + "/ltx/0/" + swapped), "\(swapped) is not in the other replica")
        try FileManager.default.removeItem(atPath: ours + "/ltx/0/" + swapped)
        try FileManager.default.copyItem(atPath: theirs + "/ltx/0/" + swapped, toPath: ours + "/ltx/0/" + swapped)
        let mixed = try dbtool(["replicate", "verify", ours])
        #expect(mixed.status == 65, "\(mixed.stderr)")
        #expect(mixed.stderr.contains("mixes two histories") && mixed.stderr.contains(swapped), "\(mixed.stderr)")
        // Without the record, the files' own nodes still tell the two databases apart.
        try FileManager.default.removeItem(atPath: ours + "/dbtool-replica.json")
        let unowned = try dbtool(["replicate", "verify", ours])
        #expect(unowned.status == 65 && unowned.stderr.contains("two databases"), "\(unowned.stderr)")
    }

    @Test("a database restored from its replica keeps the owner's identity: it replicates there again, where another is refused")
    func restoredDatabaseKeepsOwnership() throws {
        let database = try walDatabase("original")
        let replica = scratch.file("replica")
        #expect(try replicateOnce(database, to: replica).status == 0)
        let restored = scratch.file("new-machine/db")
        let restore = try dbtool(["restore", replica, restored])
        #expect(restore.status == 0, "\(restore.stderr)")
        let identity = { (path: String) in try String(contentsOfFile: path + "/.db.sqlite.dbtool-id", encoding: .utf8) }
        #expect(try identity(restored) == identity(database))
        #expect(try dbtool(["exec", "--database", restored, "PRAGMA journal_mode = WAL"]).status == 0)
        let resumed = try replicateOnce(restored, to: replica)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try dbtool(["replicate", "verify", replica]).status == 0)
    }
}
