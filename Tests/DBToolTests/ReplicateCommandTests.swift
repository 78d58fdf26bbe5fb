import DBToolCore
import DatabaseKit
import Foundation
import TestSupport
import Testing

/// `dbtool replicate` and `dbtool restore` of a replica, end to end: the
/// built binary, an application process that logs every commit it was told
/// is durable, SIGKILL and SIGTERM, and the real Litestream 0.5.17 reading
/// what dbtool wrote and writing what dbtool reads.
@Suite("Continuous replication", .serialized)
struct ReplicateCommandTests {
    let scratch = TemporaryDirectory()

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let litestream = ProcessInfo.processInfo.environment["DBTOOL_LITESTREAM"] ?? packageRoot + "/.build/s3-venv/bin/litestream"

    /// An application committing a row every 10 ms, logging each commit it
    /// was acknowledged with its time.
    final class AckWriter {
        let signals: String
        let process: Process

        init(database: String, scratch: TemporaryDirectory) throws {
            signals = scratch.file("acks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
            process = try startWorkload(["ack-writer", database + "/db.sqlite", signals])
            #expect(waitUntil { ((try? String(contentsOfFile: signals + "/acks", encoding: .utf8)) ?? "").count > 20 }, "no commit")
        }

        /// Every acknowledged commit: its sequence number and time.
        func acks() -> [(seq: Int, time: Double)] {
            let text = (try? String(contentsOfFile: signals + "/acks", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: " ")
                guard parts.count == 2, let seq = Int(parts[0]), let time = Double(parts[1]) else { return nil }
                return (seq, time)
            }
        }

        func stop() {
            _ = FileManager.default.createFile(atPath: signals + "/stop", contents: nil)
            process.waitUntilExit()
        }

        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { if process.isRunning { kill() } }
    }

    /// The `event` rows of a restored directory (or database file).
    func events(_ path: String) throws -> [Int] {
        let file = FileSystem.isDirectory(path) ? path + "/db.sqlite" : path
        let dbQueue = try DatabaseQueue(path: file)
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            return try Int.fetchAll(db, sql: "SELECT seq FROM event ORDER BY seq")
        }
    }

    /// A request the test server logged (it logs those under `backups/count/`
    /// and `backups/slow/`).
    struct LoggedRequest {
        var time: Double
        var method: String
        var path: String
        var query: String
    }

    /// The requests logged in `log` so far.
    func loggedRequests(_ log: String) -> [LoggedRequest] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let time = json["time"] as? Double
            else { return nil }
            return LoggedRequest(
                time: time, method: json["method"] as? String ?? "", path: json["path"] as? String ?? "",
                query: json["query"] as? String ?? "")
        }
    }

    /// Runs Litestream with `arguments` (`AWS_CA_BUNDLE` unset: it refuses one with plain HTTP).
    func litestream(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolResult {
        try #require(FileManager.default.isExecutableFile(atPath: Self.litestream), "no \(Self.litestream): run `make s3-deps`")
        var merged = testEnvironment.merging(environment) { $1 }
        merged["AWS_CA_BUNDLE"] = nil
        return try run(Self.litestream, arguments, environment: merged)
    }

    private struct FileSystem {
        static func isDirectory(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    @Test(
        "a directory replica: the machine dies (SIGKILL of both) and nothing acknowledged a sync before is lost; the restart goes on without a gap; Litestream restores it"
    )
    func killAndResume() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let app = try AckWriter(database: database, scratch: scratch)
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.2"], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0/0000000000000001-0000000000000001.ltx") })
        Thread.sleep(forTimeInterval: 2)
        let second = try dbtool(["replicate", "--database", database, "--to", scratch.file("other")])
        #expect(second.status == 75 && second.stderr.contains("dbtool replicate"), "\(second.stderr)")

        // The machine dies: both at once.
        replicate.send(SIGKILL)
        app.kill()
        let killedAt = Date().timeIntervalSince1970
        _ = replicate.wait()
        let acks = app.acks()
        let restored = scratch.file("restored")
        let restore = try dbtool(["restore", replica, restored, "--format", "json"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let rows = Set(try events(restored))
        let lost = acks.filter { $0.time < killedAt - 1.2 && !rows.contains($0.seq) }
        #expect(lost.isEmpty, "\(lost.count) commits acknowledged over 1.2 s before the kill are missing (of \(acks.count))")
        #expect(rows.count > acks.count / 2)
        // Nothing the application was not acknowledged, beyond the commit in flight.
        #expect((rows.max() ?? 0) <= (acks.last?.seq ?? 0) + 1)

        // Litestream restores the same state.
        let theirs = scratch.file("litestream.db")
        let restoredByLitestream = try litestream(["restore", "-o", theirs, "file://\(replica)"])
        #expect(restoredByLitestream.status == 0, "\(restoredByLitestream.stderr)")
        #expect(Set(try events(theirs)) == rows)

        // The next start resumes from the replica's position: the log after its last file, nothing sent again.
        let app2 = try AckWriter(database: database, scratch: scratch)
        let resumed = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.2", "--format", "json"], scratch: scratch)
        Thread.sleep(forTimeInterval: 1.5)
        app2.stop()
        Thread.sleep(forTimeInterval: 0.5)
        resumed.send(SIGTERM)
        let stopped = resumed.wait()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("resumed after the replica's TXID"), "\(stopped.stderr)")
        #expect(stopped.stdout.contains("\"stoppedBy\" : \"SIGTERM\""), "\(stopped.stdout)")
        let latest = scratch.file("latest")
        #expect(try dbtool(["restore", replica, latest]).status == 0)
        #expect(try events(latest) == events(database), "the latest state is not the database's")
        let latestByLitestream = scratch.file("latest-litestream.db")
        #expect(try litestream(["restore", "-o", latestByLitestream, "file://\(replica)"]).status == 0)
        #expect(try events(latestByLitestream) == events(database))

        // Status: the last TXID, its lag, the levels.
        let status = try dbtool(["replicate", "status", replica, "--format", "json"])
        #expect(status.status == 0, "\(status.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect((report["txid"] as? String)?.count == 16 && report["lagSeconds"] != nil, "\(report)")
        // Times as every report writes them: RFC 3339, and Unix seconds beside.
        let time = try #require(report["time"] as? String)
        let unix = try #require(report["timeUnix"] as? Double)
        #expect(
            abs((ISOTime.parse(time)?.timeIntervalSince1970 ?? 0) - unix) < 0.01 && abs(unix - Date().timeIntervalSince1970) < 600,
            "\(report)")
        let text = try dbtool(["replicate", "status", replica])
        #expect(text.stdout.contains("level 0:"), "\(text.stdout)")

        // Verify: sound; then a flipped byte, then a missing file, are 65 naming them.
        let sound = try dbtool(["replicate", "verify", replica])
        #expect(sound.status == 0 && sound.stdout.contains("is sound"), "\(sound.stdout)\(sound.stderr)")
        let levelZero = try FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/0").sorted()
        let victim = replica + "/ltx/0/" + levelZero[levelZero.count - 2]
        var bytes = try #require(FileManager.default.contents(atPath: victim))
        bytes[bytes.count - 20] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: victim))
        let damaged = try dbtool(["replicate", "verify", replica])
        #expect(damaged.status == 65 && damaged.stderr.contains(levelZero[levelZero.count - 2]), "\(damaged.stderr)")
        try FileManager.default.removeItem(atPath: victim)
        let gap = try dbtool(["replicate", "verify", replica, "--format", "json"])
        #expect(gap.status == 65 && gap.stderr.contains("the chain stops at TXID"), "\(gap.stderr)")
        #expect(gap.stdout.contains("\"status\" : 65"), "\(gap.stdout)")
    }

    @Test(
        "restore --txid and --at: a state in the past, every commit acknowledged a second before it, none after it, with levels merged underneath"
    )
    func pointInTime() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let app = try AckWriter(database: database, scratch: scratch)
        // Short compaction levels: restores cross merged files of levels 1 to 3 as after a day.
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1", "--compaction-levels", "0.3s,0.9s,1.8s"],
            scratch: scratch)
        Thread.sleep(forTimeInterval: 3)
        app.stop()
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        for level in 1...3 {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/\(level)")) ?? []
            #expect(!files.isEmpty, "no file at level \(level)")
        }
        let acks = app.acks()
        try #require(acks.count > 50)
        let commitTimes = try Dictionary(
            uniqueKeysWithValues: DatabaseQueue(path: database + "/db.sqlite").read { db in
                try Row.fetchAll(db, sql: "SELECT seq, (at - 2440587.5) * 86400 AS t FROM event")
            }.map { ($0["seq"] as Int, $0["t"] as Double) })

        for fraction in [0.3, 0.5, 0.8] {
            let target = acks[Int(Double(acks.count) * fraction)].time
            let at = ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: target))
            let directory = scratch.file("at-\(fraction)")
            let restore = try dbtool(["restore", replica, directory, "--at", at])
            #expect(restore.status == 0, "\(restore.stderr)")
            let rows = Set(try events(directory))
            let missing = acks.filter { $0.time < target - 1 && !rows.contains($0.seq) }
            #expect(missing.isEmpty, "--at \(at): \(missing.count) commits acknowledged a second before are missing")
            let late = rows.filter { (commitTimes[$0] ?? 0) > target + 0.001 }
            #expect(late.isEmpty, "--at \(at): \(late.count) rows committed after it")
            // Litestream's -timestamp reads the same moment from the same files.
            let theirs = scratch.file("at-\(fraction)-litestream.db")
            let restoredByLitestream = try litestream(["restore", "-o", theirs, "-timestamp", at, "file://\(replica)"])
            #expect(restoredByLitestream.status == 0, "\(restoredByLitestream.stderr)")
            #expect(Set(try events(theirs)) == rows, "-timestamp \(at) gives another state than --at")
        }
        let early = try dbtool(["restore", replica, scratch.file("txid-3"), "--txid", "3", "--format", "json"])
        #expect(early.status == 0 && early.stdout.contains("\"txid\" : \"0000000000000003\""), "\(early.stdout)\(early.stderr)")
        let beyond = try dbtool(["restore", replica, scratch.file("txid-far"), "--txid", "ffffff"])
        #expect(beyond.status == 66, "\(beyond.stderr)")
        let past = try dbtool(["restore", replica, scratch.file("too-early"), "--at", "2001-01-01T00:00:00Z"])
        #expect(past.status == 66, "\(past.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("too-early")))
    }

    @Test("boot scripts: --if-db-not-exists keeps a database that is there, --if-replica-exists an empty replica; both 0")
    func bootRestore() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0") })
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)

        let kept = try dbtool(["restore", replica, database, "--if-db-not-exists"])
        #expect(kept.status == 0 && kept.stdout.contains("Nothing restored"), "\(kept.stdout)\(kept.stderr)")
        let fresh = try dbtool(["restore", replica, scratch.file("fresh"), "--if-db-not-exists"])
        #expect(fresh.status == 0 && fresh.stdout.contains("Restored"), "\(fresh.stdout)\(fresh.stderr)")

        try FileManager.default.createDirectory(atPath: scratch.file("empty-replica"), withIntermediateDirectories: false)
        let nothing = try dbtool([
            "restore", scratch.file("empty-replica"), scratch.file("none"), "--if-replica-exists", "--format", "json",
        ])
        #expect(nothing.status == 0 && nothing.stdout.contains("\"skipped\""), "\(nothing.stdout)\(nothing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("none")))
        let refused = try dbtool(["restore", scratch.file("empty-replica"), scratch.file("none")])
        #expect(refused.status == 66, "\(refused.stderr)")
    }

    @Test("logs: under journald's stream no time and a syslog priority; --log-format json gives one object per line")
    func serviceLogs() throws {
        let database = try scratch.makeDatabase()
        // A service's stderr is journald's stream: $JOURNAL_STREAM names its device and inode.
        func replicate(_ extra: [String], journal: Bool) throws -> [String] {
            let log = scratch.file("log-\(UUID().uuidString)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let stream = journal ? "JOURNAL_STREAM=$(stat -c %d:%i \"$LOG\") " : "JOURNAL_STREAM=1:2 "
            process.arguments =
                [
                    "-c", "exec 2>\"$LOG\"; \(stream)exec \"$0\" \"$@\"", toolURL.path, "replicate", "--database", database,
                    "--to", scratch.file("replica"), "--sync-interval", "0.1",
                ] + extra
            process.environment = testEnvironment.merging(["LOG": log]) { _, new in new }
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            #expect(waitUntil { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\n") }, "no log line")
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        let journaled = try replicate([], journal: true)
        #expect(
            !journaled.isEmpty
                && journaled.allSatisfy { $0.hasPrefix("<6>dbtool replicate \(database)/db.sqlite: ") || $0.hasPrefix("<4>") },
            "\(journaled)")
        // A $JOURNAL_STREAM inherited while stderr goes elsewhere keeps the times.
        let elsewhere = try replicate([], journal: false)
        #expect(elsewhere.first.map { ISOTime.parse(String($0.prefix { $0 != " " })) != nil } == true, "\(elsewhere)")

        let json = try replicate(["--log-format", "json"], journal: true)
        #expect(!json.isEmpty)
        for line in json {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(
                object?["command"] == "replicate" && object?["database"] == database + "/db.sqlite" && object?["level"] == "info", "\(line)"
            )
            #expect(object?["time"].flatMap(ISOTime.parse) != nil && object?["message"]?.isEmpty == false, "\(line)")
        }
    }

    @Test("--follow: a read-only copy that keeps up with the replica; every read sees a whole state, never half of a file")
    func follow() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let app = try AckWriter(database: database, scratch: scratch)
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
        #expect(waitUntil { replicaHoldsState(replica) })
        let copy = scratch.file("copy")
        let follower = try BackgroundTool(
            ["restore", replica, copy, "--follow", "--follow-interval", "0.2", "--format", "json"], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: copy + "/db.sqlite") })
        // A reader of the copy, waiting for locks as applications do: each
        // state is whole (seq runs 1...max without a hole).
        var reads = 0
        var highest = 0
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            guard let reader = try? DatabaseQueue(path: copy + "/db.sqlite", configuration: configuration) else { continue }
            let state = try reader.read { db -> (count: Int, max: Int)? in
                guard try db.tableExists("event") else { return nil }
                let row = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(max(seq), 0) AS m FROM event")!
                return (row["n"], row["m"])
            }
            try reader.close()
            if let state {
                #expect(state.count == state.max, "a read saw \(state.count) rows up to seq \(state.max)")
                highest = max(highest, state.max)
                reads += 1
            }
            usleep(20_000)
        }
        #expect(reads > 20 && highest > 50, "\(reads) reads, up to seq \(highest)")
        app.stop()
        Thread.sleep(forTimeInterval: 1)
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        Thread.sleep(forTimeInterval: 0.6)
        follower.send(SIGTERM)
        let followed = follower.wait()
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stdout.contains("\"follow\""), "\(followed.stdout)")
        #expect(try events(copy) == events(database), "the copy did not catch up")
    }

    /// A WAL database of `rows` rows of 4 KB in `blob` (20 MB by default),
    /// beside the usual tables, and a connection to change it.
    private func makeBlobDatabase(rows: Int = 5000) throws -> (directory: String, connection: DatabaseQueue) {
        let database = try scratch.makeDatabase()
        let bulk = try DatabaseQueue(path: database + "/db.sqlite")
        try bulk.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE blob(id INTEGER PRIMARY KEY, data BLOB)")
            try db.execute(
                sql:
                    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) INSERT INTO blob SELECT i, randomblob(4000) FROM c",
                arguments: [rows])
        }
        return (database, bulk)
    }

    /// What a running dbtool has written so far (its `wchar`); -1 once it is gone.
    private func bytesWritten(by tool: BackgroundTool) -> Int64 {
        let io = (try? String(contentsOfFile: "/proc/\(tool.process.processIdentifier)/io", encoding: .utf8)) ?? ""
        return io.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap {
            Int64($0.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
            ?? -1
    }

    @Test(
        "--follow of a 20 MB database: each update writes about what changed, the copy has no log, a reader that stays open sees every state and waits under 300 ms"
    )
    func followInPlace() throws {
        let (database, bulk) = try makeBlobDatabase()
        let replica = scratch.file("replica")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
        #expect(waitUntil { replicaHoldsState(replica) })
        let copy = scratch.file("copy")
        let follower = try BackgroundTool(["restore", replica, copy, "--follow", "--follow-interval", "0.1"], scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("following") })
        let written = { bytesWritten(by: follower) }
        let before = written()
        // A reader's wait is counted from SQLite's first busy answer: the
        // follower's locks, not a loaded machine's scheduling.
        let busy = BusyClock()
        var configuration = Configuration()
        configuration.busyMode = busy.busyMode(timeout: 10)
        configuration.readonly = true
        let reader = try DatabaseQueue(path: copy + "/db.sqlite", configuration: configuration)
        var seen = Set<Int>()
        var longest = 0.0
        for round in 1...30 {
            try bulk.write { db in
                try db.execute(
                    sql: "UPDATE blob SET data = randomblob(4000) WHERE id = ?; INSERT INTO account VALUES (?, 1)",
                    arguments: [round, 1000 + round])
            }
            busy.reset()
            let accounts = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM account") ?? 0 }
            longest = max(longest, busy.elapsed())
            seen.insert(accounts)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(
            waitUntil(timeout: 10) { ((try? reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM account") }) ?? 0) == 40 })
        try reader.close()
        let after = written()
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)
        try bulk.close()
        #expect(seen.count > 5, "the open reader saw \(seen.sorted()): the updates never reached it")
        #expect(longest < 0.3, "a read waited \(longest) s")
        #expect(before > 0 && after - before < 8 << 20, "the follower wrote \(after - before) bytes for 30 small updates of a 20 MB copy")
        #expect(!FileManager.default.fileExists(atPath: copy + "/db.sqlite-wal"), "the copy has a write-ahead log")
        #expect(try accountTotals(copy).accounts == 40)
    }

    @Test(
        "--follow run again on the copy a follower left goes on from its TXID: after SIGTERM, and after SIGKILL mid-update (rolled back first); another replica or a replaced copy is refused"
    )
    func followResumes() throws {
        let (database, bulk) = try makeBlobDatabase()
        defer { try? bulk.close() }
        let replica = scratch.file("replica")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"], scratch: scratch)
        defer { if replicate.process.isRunning { replicate.send(SIGKILL) } }
        #expect(waitUntil { replicaHoldsState(replica) })
        let copy = scratch.file("copy")
        let command = ["restore", replica, copy, "--follow", "--follow-interval", "0.1"]
        let insert = { (id: Int) in try bulk.write { db in try db.execute(sql: "INSERT INTO account VALUES (?, 1)", arguments: [id]) } }
        let caughtUp = { (accounts: Int) in waitUntil(timeout: 20) { ((try? accountTotals(copy).accounts) ?? 0) == accounts } }

        var follower = try BackgroundTool(command, scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("following") }, "\(follower.stderrSoFar)")
        try insert(1001)
        #expect(caughtUp(11))
        let inode = try FileManager.default.attributesOfItem(atPath: copy + "/db.sqlite")[.systemFileNumber] as? Int
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)
        let stateFile = URL(fileURLWithPath: copy + "/.db.sqlite.dbtool-follow")
        let stateAtStop = try Data(contentsOf: stateFile)

        // Stopped while the primary goes on; started again: no restore, the copy's own file, what changed.
        for id in 1002...1005 { try insert(id) }
        follower = try BackgroundTool(command + ["--format", "json"], scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("going on from there") }, "\(follower.stderrSoFar)")
        #expect(caughtUp(15))
        #expect(
            bytesWritten(by: follower) < 4 << 20,
            "the resumed follower wrote \(bytesWritten(by: follower)) bytes for four rows of a 20 MB copy")
        #expect(try FileManager.default.attributesOfItem(atPath: copy + "/db.sqlite")[.systemFileNumber] as? Int == inode)

        // Killed while it writes the pages of a 20 MB update (its journal
        // written, the database changing): the next start rolls it back, then goes on.
        let modified = { (try? FileManager.default.attributesOfItem(atPath: copy + "/db.sqlite")[.modificationDate] as? Date) ?? nil }
        let idle = modified()
        try bulk.write { db in try db.execute(sql: "UPDATE blob SET data = randomblob(4000); INSERT INTO account VALUES (1006, 1)") }
        #expect(
            waitUntil(timeout: 20, interval: 0.001) {
                FileManager.default.fileExists(atPath: copy + "/db.sqlite-journal") && modified() != idle
            })
        follower.send(SIGKILL)
        _ = follower.wait()
        #expect(FileManager.default.fileExists(atPath: copy + "/db.sqlite-journal"), "the kill came after the update's commit")
        // The position is recorded now and then, not at each update: a kill
        // may leave it some updates behind the copy. As behind as it gets
        // here: rows 1002-1005 are in the copy, the position before them.
        try stateAtStop.write(to: stateFile)
        follower = try BackgroundTool(command, scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("going on from there") }, "\(follower.stderrSoFar)")
        #expect(caughtUp(16), "\(follower.stderrSoFar)")
        #expect(follower.stderrSoFar.contains("rolled back a transaction"), "\(follower.stderrSoFar)")
        try insert(1007)
        #expect(caughtUp(17))
        // One follower at a time writes the copy.
        let second = try dbtool(command)
        #expect(second.status == 75 && !second.stderr.contains("going on"), "\(second.stderr)")
        let holder = "`dbtool restore --follow` (pid \(follower.process.processIdentifier)) is following a replica into "
        #expect(second.stderr.contains(holder) && second.stderr.contains("/copy"), "\(second.stderr)")
        // Nor does a restore.
        let restore = try dbtool(["restore", replica, copy, "--force"])
        #expect(restore.status == 75 && restore.stderr.contains(holder), "\(restore.stderr)")
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        let blobs = { (path: String) in
            try DatabaseQueue(path: path).read { db in try Data.fetchAll(db, sql: "SELECT data FROM blob ORDER BY id") }
        }
        #expect(try blobs(copy + "/db.sqlite") == blobs(database + "/db.sqlite"))
        #expect(try DatabaseQueue(path: copy + "/db.sqlite").read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        #expect(try FileManager.default.attributesOfItem(atPath: copy + "/db.sqlite")[.systemFileNumber] as? Int == inode)

        // Killed right after its restore: the copy arrived with its position, and the next start goes on from it.
        let fresh = scratch.file("fresh-copy")
        var killed = try BackgroundTool(["restore", replica, fresh, "--follow"], scratch: scratch)
        #expect(waitUntil(interval: 0.001) { killed.stderrSoFar.contains("restored") }, "\(killed.stderrSoFar)")
        killed.send(SIGKILL)
        _ = killed.wait()
        killed = try BackgroundTool(["restore", replica, fresh, "--follow"], scratch: scratch)
        #expect(waitUntil { killed.stderrSoFar.contains("going on from there") }, "\(killed.stderrSoFar)")
        killed.send(SIGTERM)
        #expect(killed.wait().status == 0)

        // Another replica into the same copy, or a copy replaced since: refused, the copy as it was.
        let other = try dbtool(["restore", scratch.file("other-replica"), copy, "--follow"])
        #expect(other.status == 73 && other.stderr.contains("is the copy of a follower of"), "\(other.stderr)")
        try FileManager.default.copyItem(atPath: copy + "/db.sqlite", toPath: scratch.file("replaced.sqlite"))
        #expect(rename(scratch.file("replaced.sqlite"), copy + "/db.sqlite") == 0)
        let replaced = try dbtool(["restore", replica, copy, "--follow"])
        #expect(replaced.status == 73 && replaced.stderr.contains("was replaced or removed"), "\(replaced.stderr)")
        try Data("{".utf8).write(to: URL(fileURLWithPath: copy + "/.db.sqlite.dbtool-follow"))
        let damaged = try dbtool(["restore", replica, copy, "--follow"])
        #expect(damaged.status == 65 && damaged.stderr.contains("not the state of a follower"), "\(damaged.stderr)")
        // --force restores it anew.
        follower = try BackgroundTool(command + ["--force"], scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("restored") }, "\(follower.stderrSoFar)")
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)
        #expect(try accountTotals(copy).accounts == 17)
        #expect(FileManager.default.fileExists(atPath: copy + "/.db.sqlite.dbtool-follow"))
        // A backup of the copy archives the database, not where its follower stood.
        let archive = scratch.file("copy.tar.zst")
        #expect(try dbtool(["backup", "--database", copy, "--output", archive, "-q"]).status == 0)
        #expect(try dbtool(["restore", archive, scratch.file("from-backup"), "-q"]).status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("from-backup")).sorted() == [
                ".db.sqlite.dbtool-id", "db.sqlite",
            ])
    }

    @Test("--follow run again after the replica dropped what followed its TXID: the copy goes to the newest snapshot, writing what differs")
    func followRebuildsFromSnapshot() throws {
        let (database, bulk) = try makeBlobDatabase()
        defer { try? bulk.close() }
        let replica = scratch.file("replica")
        let replicateCommand = ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1"]
        var replicate = try BackgroundTool(replicateCommand, scratch: scratch)
        defer { if replicate.process.isRunning { replicate.send(SIGKILL) } }
        #expect(waitUntil { replicaHoldsState(replica) })
        let copy = scratch.file("copy")
        let command = ["restore", replica, copy, "--follow", "--follow-interval", "0.1"]
        var follower = try BackgroundTool(command, scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("following") }, "\(follower.stderrSoFar)")
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)

        // The primary goes on, a snapshot is taken, and everything else goes
        // (as retention leaves a replica after a long stop).
        try bulk.write { db in
            try db.execute(sql: "INSERT INTO account VALUES (1001, 1), (1002, 1)")
            try db.execute(sql: "UPDATE blob SET data = randomblob(4000) WHERE id = 77")
        }
        let levelZero = { (try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/0")) ?? [] }
        #expect(waitUntil { levelZero().count >= 2 })
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        replicate = try BackgroundTool(replicateCommand + ["--snapshot-interval", "0.0003"], scratch: scratch)
        let snapshots = { (try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/9")) ?? [] }
        // Published (not a temp file), and past the first TXID.
        let published = { (name: String) in name.hasSuffix(".ltx") && !name.hasPrefix(".") && !name.hasSuffix("-0000000000000001.ltx") }
        #expect(waitUntil(timeout: 30) { snapshots().contains(where: published) }, "\(snapshots())")
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        for level in 0...8 { try? FileManager.default.removeItem(atPath: replica + "/ltx/\(level)") }

        follower = try BackgroundTool(command, scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("went to its snapshot") }, "\(follower.stderrSoFar)")
        #expect(waitUntil { (try? accountTotals(copy).accounts) == 12 })
        // The snapshot's 20 MB go to the follower's scratch file; then only
        // what differs is journaled and written (the whole copy: over 60 MB).
        #expect(bytesWritten(by: follower) < 28 << 20, "the follower wrote \(bytesWritten(by: follower)) bytes for a snapshot of 20 MB")
        follower.send(SIGTERM)
        #expect(follower.wait().status == 0)
        let blobs = { (path: String) in
            try DatabaseQueue(path: path).read { db in try Data.fetchAll(db, sql: "SELECT data FROM blob ORDER BY id") }
        }
        #expect(try blobs(copy + "/db.sqlite") == blobs(database + "/db.sqlite"), "the copy's blobs differ from the primary's")
    }

    @Test(
        "--follow behind a gap in level 0 (compacted, then removed): the follower reads the other levels and catches up; while level 0 goes on, one listing a poll"
    )
    func followAcrossLevels() throws {
        let server = try ObjectStorageServer(requestLog: scratch.file("requests.log"))
        defer { server.stop() }
        let database = try scratch.makeDatabase()
        let app = try AckWriter(database: database, scratch: scratch)
        let replica = scratch.file("replica")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.1", "--compaction-levels", "1s"], scratch: scratch)
        #expect(waitUntil { replicaHoldsState(replica) })
        let copy = scratch.file("copy")
        let follower = try BackgroundTool(["restore", replica, copy, "--follow", "--follow-interval", "0.1"], scratch: scratch)
        #expect(waitUntil { follower.stderrSoFar.contains("at TXID") }, "\(follower.stderrSoFar)")
        // A reader keeps the copy: the follower stays where it is.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: copy + "/db.sqlite", configuration: configuration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM event")
        }
        Thread.sleep(forTimeInterval: 3)
        // Retention's work, by hand: the level-0 files level 1 holds go away.
        let level = { (number: Int) in
            ((try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/\(number)")) ?? []).filter { $0.hasSuffix(".ltx") }
        }
        let maxTXID = { (name: String) in UInt64(name.dropLast(4).split(separator: "-")[1], radix: 16) ?? 0 }
        let compacted = level(1).map(maxTXID).max() ?? 0
        let removed = level(0).filter { maxTXID($0) <= compacted }
        for name in removed { try FileManager.default.removeItem(atPath: replica + "/ltx/0/" + name) }
        #expect(compacted > 0 && removed.count > 5, "level 1 reaches \(compacted); \(removed.count) level-0 files removed")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        try reader.close()
        Thread.sleep(forTimeInterval: 1)
        app.stop()
        Thread.sleep(forTimeInterval: 1)
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        #expect(waitUntil(timeout: 10) { (try? self.events(copy)) == (try? self.events(database)) }, "the copy did not catch up")
        follower.send(SIGTERM)
        let followed = follower.wait()
        #expect(followed.status == 0, "\(followed.stderr)")
        // Through level 1, not back to the snapshot.
        #expect(!followed.stderr.contains("went to its snapshot"), "\(followed.stderr)")

        // On object storage, with level 0 going on: a listing a poll, not one a level.
        let objectDatabase = try scratch.makeDatabase("object-db")
        let objectApp = try AckWriter(database: objectDatabase, scratch: scratch)
        let objectReplicate = try BackgroundTool(
            ["replicate", "--database", objectDatabase, "--to", "s3://backups/count/follow/", "--sync-interval", "0.2", "--no-compaction"],
            environment: server.environment, scratch: scratch)
        #expect(waitUntil { objectReplicate.stderrSoFar.contains("snapshot") }, "\(objectReplicate.stderrSoFar)")
        Thread.sleep(forTimeInterval: 1)
        let objectCopy = scratch.file("object-copy")
        let objectFollower = try BackgroundTool(
            ["restore", "s3://backups/count/follow/", objectCopy, "--follow", "--follow-interval", "0.5"], environment: server.environment,
            scratch: scratch)
        #expect(waitUntil { objectFollower.stderrSoFar.contains("at TXID") }, "\(objectFollower.stderrSoFar)")
        let start = Date().timeIntervalSince1970
        Thread.sleep(forTimeInterval: 5)
        let end = Date().timeIntervalSince1970
        objectFollower.send(SIGTERM)
        #expect(objectFollower.wait().status == 0)
        objectApp.stop()
        objectReplicate.send(SIGTERM)
        #expect(objectReplicate.wait().status == 0)
        // The follower's listings (without compaction, the replicator lists only as it starts).
        let listings = loggedRequests(scratch.file("requests.log")).filter {
            $0.time >= start && $0.time < end && $0.query.contains("list-type=2")
        }
        // 10 polls in 5 s: about 10 listings, where listing every level made 90.
        #expect(listings.count <= 14, "\(listings.count) listings in 5 s of polls every 0.5 s")
    }

    @Test("a snapshot of a 60 MB database going up a slow link: level-0 files go up beside it, and SIGKILL loses under 1.5 s of commits")
    func lanes() throws {
        let log = scratch.file("requests.log")
        let server = try ObjectStorageServer(requestLog: log)
        defer { server.stop() }
        let (database, bulk) = try makeBlobDatabase(rows: 15000)
        try bulk.close()
        let app = try AckWriter(database: database, scratch: scratch)
        // Every request under backups/slow/ takes 0.5 s more: the 60 MB snapshot takes seconds to go up.
        let replicate = try BackgroundTool(
            [
                "replicate", "--database", database, "--to", "s3://backups/slow/lanes/", "--sync-interval", "0.2", "--snapshot-interval",
                "0.004",
                "--no-compaction",
            ], environment: server.environment, scratch: scratch)
        let requests = { self.loggedRequests(log) }
        #expect(
            waitUntil(timeout: 90) { requests().contains { $0.path.contains("/0009/") } }, "no snapshot went up: \(replicate.stderrSoFar)")
        let snapshotStart = requests().first { $0.path.contains("/0009/") }!.time
        Thread.sleep(forTimeInterval: 2.5)
        replicate.send(SIGKILL)
        app.kill()
        let killedAt = Date().timeIntervalSince1970
        _ = replicate.wait()
        // Level-0 files went up while the snapshot did: the longest stretch without one.
        let levelZero = requests().filter { $0.path.contains("/0000/") && $0.method == "PUT" && $0.time >= snapshotStart - 1 }.map(\.time)
        let gaps = zip(levelZero, levelZero.dropFirst()).map { $1 - $0 } + [killedAt - (levelZero.last ?? 0)]
        #expect(
            levelZero.count >= 3 && (gaps.max() ?? 99) < 1.5, "level-0 uploads while the snapshot went up: \(levelZero.count), gaps \(gaps)"
        )
        let restored = scratch.file("restored")
        let restore = try dbtool(["restore", "s3://backups/slow/lanes/", restored], environment: server.environment)
        #expect(restore.status == 0, "\(restore.stderr)")
        let rows = Set(try events(restored))
        let lost = app.acks().filter { $0.time < killedAt - 1.5 && !rows.contains($0.seq) }
        #expect(lost.isEmpty, "\(lost.count) commits acknowledged over 1.5 s before the kill are missing")
    }

    @Test("a large snapshot's upload is completed just after a level-0 upload: a server that pauses to assemble it pauses after a sync")
    func snapshotCompletesAfterSync() throws {
        let log = scratch.file("requests.log")
        let server = try ObjectStorageServer(requestLog: log)
        defer { server.stop() }
        let (database, bulk) = try makeBlobDatabase(rows: 6000)
        try bulk.close()
        let app = try AckWriter(database: database, scratch: scratch)
        defer { app.stop() }
        // A 24 MB snapshot (five parts) every 5.4 s, level 0 every second.
        let replicate = try BackgroundTool(
            [
                "replicate", "--database", database, "--to", "s3://backups/count/aligned/", "--sync-interval", "1", "--snapshot-interval",
                "0.0015", "--no-compaction",
            ], environment: server.environment, scratch: scratch)
        let completions = {
            self.loggedRequests(log).filter { $0.path.contains("/aligned/0009/") && $0.method == "POST" && $0.query.contains("uploadId=") }
        }
        #expect(waitUntil(timeout: 120) { completions().count >= 3 }, "\(completions().count) snapshots: \(replicate.stderrSoFar)")
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0, "\(replicate.stderrSoFar)")
        // Each snapshot's last part went up, then a level-0 file, then the
        // completion. Without the wait the completion follows the last part
        // at once, and no level-0 upload came between them in 9 snapshots.
        let requests = loggedRequests(log).filter { $0.path.contains("/aligned/") }
        var previous = 0.0
        for completion in completions().prefix(3) {
            let parts = requests.filter {
                $0.path.contains("/0009/") && $0.method == "PUT" && $0.query.contains("partNumber=") && $0.time > previous
                    && $0.time < completion.time
            }
            let lastPart = parts.map(\.time).max() ?? completion.time
            let between = requests.filter {
                $0.path.contains("/0000/") && $0.method == "PUT" && $0.time > lastPart && $0.time < completion.time
            }
            #expect(
                parts.count >= 4 && !between.isEmpty,
                "\(parts.count) parts; level-0 uploads between the last and the completion: \(between.count)")
            previous = completion.time
        }
    }

    @Test("memory: once a 60 MB transaction is shipped in 5 MiB parts, the replicator gives its buffers back")
    func buffersGoBack() throws {
        let log = scratch.file("requests.log")
        let server = try ObjectStorageServer(requestLog: log)
        defer { server.stop() }
        let database = try scratch.makeDatabase()
        let app = try DatabaseQueue(path: database + "/db.sqlite")
        try app.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE blob(id INTEGER PRIMARY KEY, data BLOB)")
        }
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", "s3://backups/count/memory/", "--sync-interval", "0.2", "--no-compaction"],
            environment: server.environment, scratch: scratch)
        #expect(waitUntil(timeout: 60) { replicate.stderrSoFar.contains("snapshot") }, "\(replicate.stderrSoFar)")
        try app.write { db in
            try db.execute(
                sql:
                    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 15000) INSERT INTO blob SELECT i, randomblob(4000) FROM c"
            )
        }
        // Shipped: the multipart upload of its level-0 file was completed
        // (the server logs the requests under backups/count/).
        let completed = {
            self.loggedRequests(log).contains { $0.path.contains("/memory/0000/") && $0.method == "POST" && $0.query.contains("uploadId=") }
        }
        #expect(waitUntil(timeout: 120, completed), "\(replicate.stderrSoFar)")
        Thread.sleep(forTimeInterval: 2)
        // About 4.6 MiB; 15.8 MiB when glibc keeps the freed parts resident
        // in the lane's heap (its threshold for mappings raised).
        let status = (try? String(contentsOfFile: "/proc/\(replicate.process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let anonymous = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }.flatMap { Int($0.split(separator: " ")[1]) }
        #expect(
            anonymous.map { $0 < 8 << 10 } == true, "RssAnon after the transaction: \(anonymous.map { "\($0 >> 10) MiB" } ?? "unknown")")
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        try app.close()
    }

    @Test("an application that copied its log whole before the start writes on: SQLite starts the log over, and no full image follows")
    func startAfterApplicationCheckpoint() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let app = try DatabaseQueue(path: database + "/db.sqlite")
        try app.write { db in try db.execute(sql: "CREATE TABLE big(data BLOB); INSERT INTO big VALUES (randomblob(400000))") }
        // Every frame copied, the log not yet started over: replicate's read
        // transaction begins on SQLite's read lock 0, and the next write restarts the log.
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        let salt = { () -> UInt32? in
            guard let header = FileManager.default.contents(atPath: database + "/db.sqlite-wal"), header.count >= 32 else { return nil }
            return header[16..<20].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let before = try #require(salt())
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.2"], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0/0000000000000001-0000000000000001.ltx") })
        for id in 11...15 {
            try app.write { db in try db.execute(sql: "INSERT INTO account VALUES (?, 7)", arguments: [id]) }
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0/0000000000000006-0000000000000006.ltx") })
        #expect(salt() == before &+ 1, "the log did not start over: the test shows nothing")
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        #expect(!replicate.stderrSoFar.contains("full image"), "\(replicate.stderrSoFar)")
        let files = try FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/0").sorted()
        let sizes = try files.dropFirst().map { name in
            try FileManager.default.attributesOfItem(atPath: replica + "/ltx/0/" + name)[.size] as? Int ?? 0
        }
        let listing = zip(files.dropFirst(), sizes).map { "\($0) \($1)" }
        #expect(sizes.allSatisfy { $0 < 64 << 10 }, "a file after the first holds an image: \(listing)")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try accountTotals(restored).accounts == 15)
        try app.close()
    }

    @Test("requests to the store: at one sync a second under a steady writer, at most 1.6 a second, and no HEAD before a PUT")
    func requestEconomy() throws {
        let log = scratch.file("requests.log")
        let server = try ObjectStorageServer(requestLog: log)
        defer { server.stop() }
        let database = try scratch.makeDatabase()
        let app = try AckWriter(database: database, scratch: scratch)
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", "s3://backups/count/economy/", "--sync-interval", "1"],
            environment: server.environment,
            scratch: scratch)
        #expect(waitUntil { replicate.stderrSoFar.contains("snapshot: TXID 1") })
        Thread.sleep(forTimeInterval: 3)
        let start = Date().timeIntervalSince1970
        Thread.sleep(forTimeInterval: 40)
        let end = Date().timeIntervalSince1970
        app.stop()
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        let requests = loggedRequests(log).filter { $0.time >= start && $0.time < end }
        let rate = Double(requests.count) / (end - start)
        let methods = Dictionary(grouping: requests, by: \.method).mapValues(\.count)
        #expect(rate <= 1.6, "\(requests.count) requests in \(Int(end - start)) s: \(methods)")
        #expect(methods["HEAD"] == nil, "\(methods)")
        #expect((methods["PUT"] ?? 0) >= 30, "\(methods)")
    }

    @Test(
        "the store away (seconds; minutes in make stress): files wait in the outbox, within its limit, go up in order when it answers, and nothing is lost"
    )
    func storeAway() throws {
        // `make stress` keeps the store away for three minutes.
        let stress = ProcessInfo.processInfo.environment["DBTOOL_STRESS"] != nil
        let outage: TimeInterval = stress ? 180 : 4
        let server = try ObjectStorageServer()
        // A proxy in front of the store that drops every connection while `blocked` exists.
        let blocked = scratch.file("blocked")
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: ObjectStorageServer.python)
        proxy.arguments = [
            "-c",
            """
            import os, socket, sys, threading
            target = sys.argv[1].rsplit(":", 1)
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            print(listener.getsockname()[1], flush=True)
            def pipe(a, b):
                try:
                    while data := a.recv(65536):
                        b.sendall(data)
                except OSError:
                    pass
                for s in (a, b):
                    try: s.shutdown(socket.SHUT_RDWR)
                    except OSError: pass
            def serve(client):
                if os.path.exists(sys.argv[2]):
                    client.close()
                    return
                upstream = socket.create_connection((target[0].split("//")[1], int(target[1])))
                threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
                pipe(upstream, client)
            while True:
                client, _ = listener.accept()
                threading.Thread(target=serve, args=(client,), daemon=True).start()
            """, server.endpoint, blocked,
        ]
        let output = Pipe()
        proxy.standardOutput = output
        try proxy.run()
        defer { if proxy.isRunning { kill(proxy.processIdentifier, SIGKILL) } }
        let port = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        var environment = server.environment
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(port)"

        let database = try scratch.makeDatabase()
        let app = try AckWriter(database: database, scratch: scratch)
        let replicate = try BackgroundTool(
            [
                "replicate", "--database", database, "--to", "s3://backups/away/", "--sync-interval", "0.2", "--retries", "1",
                "--outbox-limit", "1",
            ],
            environment: environment, scratch: scratch)
        #expect(waitUntil { (try? server.keys("away/0000/").count) ?? 0 > 0 })
        _ = FileManager.default.createFile(atPath: blocked, contents: nil)
        // The outbox's size, each second of the outage.
        let outbox = database + "/.dbtool-replicate/ltx/0"
        func outboxBytes() -> Int {
            let root = database + "/.dbtool-replicate"
            let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
            return names.reduce(0) { $0 + (((try? FileManager.default.attributesOfItem(atPath: root + "/" + $1))?[.size] as? Int) ?? 0) }
        }
        // 4 MB more while it is away, 100 KB a transaction: more than the outbox may hold.
        #expect(try dbtool(["exec", "--database", database, "CREATE TABLE bulk(b BLOB)"]).status == 0)
        var largest = 0
        for _ in 0..<40 {
            let insert =
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25) INSERT INTO bulk SELECT randomblob(4000) FROM n"
            #expect(try dbtool(["exec", "--database", database, insert]).status == 0)
            largest = max(largest, outboxBytes())
        }
        let end = Date().addingTimeInterval(outage)
        while Date() < end {
            largest = max(largest, outboxBytes())
            Thread.sleep(forTimeInterval: 0.5)
        }
        // Few files when they are large: the limit stops the syncs, not a count.
        let waiting = (try? FileManager.default.contentsOfDirectory(atPath: outbox).count) ?? 0
        #expect(waiting > 0, "\(waiting) files in the outbox while the store is away")
        // The limit, give or take the file a sync writes while under it (a few transactions).
        #expect(largest > 1 << 20 && largest < 2 << 20, "the outbox held \(largest) bytes at most, with a 1 MiB limit")
        try FileManager.default.removeItem(atPath: blocked)
        Thread.sleep(forTimeInterval: 3)
        app.stop()
        Thread.sleep(forTimeInterval: 1)
        replicate.send(SIGTERM)
        let stopped = replicate.wait()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("does not answer") && stopped.stderr.contains("answers again"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("outbox over") && stopped.stderr.contains("syncing again"), "\(stopped.stderr)")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", "s3://backups/away/", restored], environment: server.environment).status == 0)
        #expect(try events(restored) == events(database))
        let bulk = "SELECT count(*), sum(length(b)) FROM bulk"
        #expect(try dbtool(["exec", "--database", restored, bulk]).stdout == dbtool(["exec", "--database", database, bulk]).stdout)

        // SIGTERM while an upload waits out the store's retries: still a clean stop (0), the files left in the outbox said.
        let again = try BackgroundTool(
            [
                "replicate", "--database", database, "--to", "s3://backups/away/", "--sync-interval", "0.2", "--retries", "5",
                "--shutdown-timeout", "2", "--format", "json",
            ],
            environment: environment, scratch: scratch)
        Thread.sleep(forTimeInterval: 1.5)  // started: the next uploads meet the store away
        _ = FileManager.default.createFile(atPath: blocked, contents: nil)
        let app2 = try AckWriter(database: database, scratch: scratch)
        Thread.sleep(forTimeInterval: 1.5)
        app2.stop()
        again.send(SIGTERM)
        let interrupted = again.wait(timeout: 30)
        #expect(interrupted.status == 0, "\(interrupted.stderr)")
        #expect(interrupted.stdout.contains("\"stoppedBy\" : \"SIGTERM\""), "\(interrupted.stdout)")
    }

    @Test(
        "a full disk under the database: syncs wait, the log keeps the commits, and all of them ship once space is back",
        .enabled(if: getuid() == 0))
    func fullDisk() throws {
        let disk = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        try #require(
            OperatorSafetyTests.mountFullDisk(disk, kilobytes: 4096), "mounting a tmpfs failed: this test needs root with CAP_SYS_ADMIN")
        defer { OperatorSafetyTests.unmount(disk) }
        let database = disk + "/db"
        #expect(try dbtool(["init", database, "--quiet"]).status == 0)
        #expect(try dbtool(["exec", "--database", database, "CREATE TABLE event(seq INTEGER PRIMARY KEY, at REAL)"]).status == 0)
        let replica = scratch.file("replica")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "1"], scratch: scratch)
        #expect(waitUntil { FileManager.default.fileExists(atPath: replica + "/ltx/0") })
        // Commits, then the disk fills before the next sync can write its file.
        // A sync may slip in between (it then ships them all, and finds nothing
        // to write while the disk is full): the round is played again.
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        var committed = 0
        for _ in 0..<5 {
            for seq in committed + 1...committed + 200 {
                try dbQueue.write { db in try db.execute(sql: "INSERT INTO event VALUES (?, 0)", arguments: [seq]) }
            }
            committed += 200
            let filler = disk + "/filler"
            _ = FileManager.default.createFile(atPath: filler, contents: nil)
            let handle = try #require(FileHandle(forWritingAtPath: filler))
            for size in [64 * 1024, 4096, 1] {
                let block = Data(count: size)
                while (try? handle.write(contentsOf: block)) != nil {}
            }
            try handle.close()
            Thread.sleep(forTimeInterval: 2.5)
            try FileManager.default.removeItem(atPath: filler)
            Thread.sleep(forTimeInterval: 2)
            if replicate.stderrSoFar.contains("could not write to the outbox") { break }
        }
        replicate.send(SIGTERM)
        let stopped = replicate.wait()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("could not write to the outbox"), "\(stopped.stderr)")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try events(restored) == Array(1...committed))
        try dbQueue.close()
    }

    @Test("under systemd: READY=1 once the replica holds the database, WATCHDOG=1 within its period, STOPPING=1 on SIGTERM")
    func serviceNotifications() throws {
        let database = try scratch.makeDatabase()
        let socket = scratch.file("notify.sock")
        // A listener on the notification socket, as systemd is.
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: ObjectStorageServer.python)
        listener.arguments = [
            "-c",
            """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(sys.argv[1])
            open(sys.argv[1] + ".bound", "w").close()
            s.settimeout(0.2)
            end = time.time() + 8
            while time.time() < end:
                try:
                    message = s.recv(4096).decode()
                except socket.timeout:
                    continue
                print(repr(message), flush=True)
                if message.startswith("STOPPING=1"):
                    break
            """, socket,
        ]
        let output = Pipe()
        listener.standardOutput = output
        try listener.run()
        defer { if listener.isRunning { kill(listener.processIdentifier, SIGKILL) } }
        #expect(waitUntil { FileManager.default.fileExists(atPath: socket + ".bound") })
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", scratch.file("replica"), "--sync-interval", "0.1"],
            environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "400000"], scratch: scratch)
        Thread.sleep(forTimeInterval: 1.5)
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        listener.waitUntilExit()
        let messages = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = messages.split(separator: "\n")
        #expect(lines.first?.hasPrefix("'READY=1") == true, "\(messages)")
        #expect(lines.filter { $0 == "'WATCHDOG=1'" }.count >= 3, "\(messages)")
        #expect(lines.last == "'STOPPING=1'", "\(messages)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("replica") + "/ltx/0/0000000000000001-0000000000000001.ltx"))
    }

    @Test("--config: Litestream's YAML file replicates two databases in one process; dbtool and Litestream 0.5.17 restore both")
    func configurationFile() throws {
        let server = try ObjectStorageServer()
        let first = try scratch.makeDatabase("first")
        let second = try scratch.makeDatabase("second")
        let firstApp = try AckWriter(database: first, scratch: scratch)
        let secondApp = try AckWriter(database: second, scratch: scratch)
        let directoryReplica = scratch.file("second-replica")
        let metrics = scratch.file("second.prom")
        // Global S3 settings, one replica per database in each of Litestream's
        // spellings, a dbtool section, and keys dbtool does not use.
        let file = scratch.file("litestream.yml")
        try """
        addr: ":9090"
        access-key-id: \(server.accessKeyId)
        secret-access-key: ${CONFIG_TEST_SECRET}
        endpoint: \(server.endpoint)
        region: us-east-1
        force-path-style: true
        snapshot:
          interval: 1h
          retention: 24h
        dbs:
          - path: \(first)/db.sqlite
            replica:
              type: s3
              bucket: backups
              path: configured/first
              sync-interval: 200ms
          - path: \(second)/db.sqlite
            monitor-interval: 1s
            replicas:
              - url: file://\(directoryReplica)
                sync-interval: 200ms
            dbtool:
              metrics-file: \(metrics)
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let secret = ["CONFIG_TEST_SECRET": server.secretAccessKey]
        let replicate = try BackgroundTool(["replicate", "--config", file], environment: secret, scratch: scratch)
        #expect(
            waitUntil {
                FileManager.default.fileExists(atPath: directoryReplica + "/ltx/0")
                    && ((try? server.keys("configured/first/")) ?? []).count > 1
            })
        Thread.sleep(forTimeInterval: 1.5)
        firstApp.stop()
        secondApp.stop()
        Thread.sleep(forTimeInterval: 0.5)
        replicate.send(SIGTERM)
        let stopped = replicate.wait()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("litestream.yml:1: addr is not used by dbtool"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("litestream.yml:18: monitor-interval is not used by dbtool"), "\(stopped.stderr)")
        #expect(
            stopped.stdout.contains("Replicated \(first)/db.sqlite") && stopped.stdout.contains("Replicated \(second)/db.sqlite"),
            "\(stopped.stdout)")
        #expect((try? String(contentsOfFile: metrics, encoding: .utf8))?.contains("dbtool_replicate_shipped_txid") == true)

        // dbtool restores both replicas...
        let firstCopy = scratch.file("first-copy")
        #expect(try dbtool(["restore", "s3://backups/configured/first/", firstCopy], environment: server.environment).status == 0)
        #expect(try events(firstCopy) == events(first))
        let secondCopy = scratch.file("second-copy")
        #expect(try dbtool(["restore", directoryReplica, secondCopy]).status == 0)
        #expect(try events(secondCopy) == events(second))
        // ...and so does Litestream, from the same file.
        for database in [first, second] {
            let restored = scratch.file(UUID().uuidString + ".db")
            let result = try litestream(["restore", "-config", file, "-o", restored, database + "/db.sqlite"], environment: secret)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(try events(restored) == events(database))
        }

        // A wrong type is 64 naming the line; a setting dbtool can not honour is refused.
        try "dbs:\n  - path: \(first)\n    replica:\n      url: s3://backups/x\n      sync-interval: [1]\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let wrong = try dbtool(["replicate", "--config", file])
        #expect(wrong.status == 64 && wrong.stderr.contains("litestream.yml:5: sync-interval takes a duration"), "\(wrong.stderr)")
        try "dbs:\n  - path: \(first)\n    replica:\n      url: s3://backups/x\n      sse-kms-key-id: k\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let refused = try dbtool(["replicate", "--config", file])
        #expect(refused.status == 64 && refused.stderr.contains("litestream.yml:5: sse-kms-key-id"), "\(refused.stderr)")
        #expect(try dbtool(["replicate", "--config", file, "--to", directoryReplica]).status == 64)
    }

    @Test("object storage both ways: Litestream restores what dbtool replicates to S3, dbtool restores what Litestream replicates")
    func objectStorageInterop() throws {
        let server = try ObjectStorageServer()
        let database = try scratch.makeDatabase()
        let app = try AckWriter(database: database, scratch: scratch)
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", "s3://backups/ours/", "--sync-interval", "0.2"], environment: server.environment,
            scratch: scratch)
        Thread.sleep(forTimeInterval: 2)
        app.stop()
        Thread.sleep(forTimeInterval: 0.5)
        replicate.send(SIGTERM)
        let stopped = replicate.wait()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try server.keys("ours/0000/").count > 3)

        func config(_ path: String, prefix: String) throws -> String {
            let file = scratch.file("litestream-\(prefix).yml")
            try """
            dbs:
              - path: \(path)
                replicas:
                  - type: s3
                    bucket: backups
                    path: \(prefix)
                    endpoint: \(server.endpoint)
                    region: us-east-1
                    force-path-style: true
                    access-key-id: \(server.accessKeyId)
                    secret-access-key: \(server.secretAccessKey)
                    sync-interval: 200ms
            """.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        // A moment in the middle: object stores list upload times to the second only.
        let acks = app.acks()
        let target = acks[acks.count / 2].time
        let atDirectory = scratch.file("at-s3")
        let at = try dbtool(
            [
                "restore", "s3://backups/ours/", atDirectory, "--at",
                ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: target)),
            ],
            environment: server.environment)
        #expect(at.status == 0, "\(at.stderr)")
        let rowsAt = Set(try events(atDirectory))
        #expect(acks.filter { $0.time < target - 1 && !rowsAt.contains($0.seq) }.isEmpty, "commits before --at are missing")
        #expect(
            rowsAt.filter { seq in acks.first { $0.seq == seq }.map { $0.time > target + 0.2 } ?? true }.isEmpty,
            "rows acknowledged after --at")

        let theirs = scratch.file("from-ours.db")
        let restoredByLitestream = try litestream([
            "restore", "-config", try config(database + "/db.sqlite", prefix: "ours"), "-o", theirs, database + "/db.sqlite",
        ])
        #expect(restoredByLitestream.status == 0, "\(restoredByLitestream.stdout)\(restoredByLitestream.stderr)")
        #expect(try events(theirs) == events(database))

        // Litestream replicates another database; dbtool restores it.
        let other = try scratch.makeDatabase("other")
        let otherApp = try AckWriter(database: other, scratch: scratch)
        let configuration = try config(other + "/db.sqlite", prefix: "theirs")
        let process = Process()
        process.executableURL = workloadURL
        process.arguments = ["exec-unblocked", Self.litestream, "replicate", "-config", configuration]
        var environment = testEnvironment
        environment["AWS_CA_BUNDLE"] = nil
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        Thread.sleep(forTimeInterval: 2)
        otherApp.stop()
        Thread.sleep(forTimeInterval: 1)
        process.terminate()
        #expect(waitUntil(timeout: 15) { !process.isRunning })
        let ours = scratch.file("from-theirs")
        let restore = try dbtool(["restore", "s3://backups/theirs/", ours], environment: server.environment)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try events(ours) == events(other))
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-26T21:55:21.123Z`.
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
