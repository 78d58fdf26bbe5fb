import DatabaseKit
import Foundation
import Testing
import TestSupport

/// A restart of `replicate` costs what changed, not the database: from the
/// replica's position in the same log, or the pages that changed since,
/// and a full image only when nothing tells what the replica holds. Every
/// state restores right.
@Suite("Replication: restarts ship what changed", .serialized)
struct ReplicationRestartTests {
    let scratch = TemporaryDirectory()

    /// A WAL database directory of about `megabytes` MB (rows of 4 KB of random bytes).
    func database(megabytes: Int) throws -> String {
        let database = try scratch.makeDatabase()
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE blob(id INTEGER PRIMARY KEY, data BLOB)")
        }
        let rows = megabytes * 250
        for start in stride(from: 0, to: rows, by: 2500) {
            try dbQueue.write { db in
                try db.execute(
                    sql: "WITH RECURSIVE c(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM c WHERE i < ?) INSERT INTO blob SELECT i, randomblob(4000) FROM c",
                    arguments: [start + 1, min(start + 2500, rows)])
            }
        }
        try dbQueue.close()
        return database
    }

    /// The bytes of every LTX file of a directory replica.
    func replicaBytes(_ replica: String) -> Int64 {
        var total: Int64 = 0
        for case let relative as String in FileManager.default.enumerator(atPath: replica) ?? FileManager.default.enumerator(atPath: "/dev/null")!
        where relative.hasSuffix(".ltx") {
            total += FileSystemInfo.size(replica + "/" + relative)
        }
        return total
    }

    /// One run of replicate until it has started (its first line), then SIGTERM; its stderr.
    @discardableResult
    func replicateOnce(_ database: String, _ replica: String, kill: Bool = false) throws -> String {
        let run = try BackgroundTool(
            ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.2", "--no-compaction"], scratch: scratch)
        #expect(waitUntil(timeout: 120) { run.stderrSoFar.contains("snapshot") || run.stderrSoFar.contains("resumed") }, "\(run.stderrSoFar)")
        Thread.sleep(forTimeInterval: 1)
        run.send(kill ? SIGKILL : SIGTERM)
        let result = run.wait(timeout: 120)
        #expect(result.status == (kill ? 137 : 0), "\(result.stderr)")
        return result.stderr
    }

    /// The rows of the `blob` table, as a checksum.
    func content(_ path: String) throws -> String {
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            return try String.fetchOne(db, sql: "SELECT count(*) || ':' || sum(length(data)) || ':' || hex(max(data)) FROM blob") ?? ""
        }
    }

    /// Changes a few rows through a connection of the application's, closed after (the last one: SQLite
    /// checkpoints and removes the log) or kept open (the log stays).
    func change(_ database: String, rows: ClosedRange<Int>, keepingLog: Bool) throws -> DatabaseQueue? {
        let app = try DatabaseQueue(path: database + "/db.sqlite")
        try app.write { db in try db.execute(sql: "UPDATE blob SET data = randomblob(4000) WHERE id BETWEEN ? AND ?", arguments: [rows.lowerBound, rows.upperBound]) }
        if keepingLog { return app }
        try app.close()
        return nil
    }

    @Test("restarts after clean stops: the log after the replica's position, or the pages changed since; every state restores")
    func cleanRestarts() throws {
        let database = try database(megabytes: 20)
        let replica = scratch.file("replica")
        #expect(try replicateOnce(database, replica).contains("snapshot: TXID 1"))
        let first = replicaBytes(replica)
        #expect(first > 15_000_000, "\(first)")
        // The application's last connection closed: SQLite checkpointed the log away.
        _ = try change(database, rows: 1...3, keepingLog: false)
        let changed = try replicateOnce(database, replica)
        #expect(changed.contains("the pages changed since the replica's TXID"), "\(changed)")
        // The log kept by an open connection: the run resumes in it.
        let app = try change(database, rows: 10...12, keepingLog: true)
        #expect(try replicateOnce(database, replica).contains("snapshot") == false)
        try change(database, rows: 20...21, keepingLog: true)?.close()
        let resumed = try replicateOnce(database, replica)
        #expect(resumed.contains("resumed"), "\(resumed)")
        try app?.close()
        // Nothing changed: nothing sent.
        let same = try replicateOnce(database, replica)
        #expect(same.contains("it holds the database as it is") || same.contains("resumed after"), "\(same)")
        let added = replicaBytes(replica) - first
        #expect(added < 1 << 20, "restarts added \(added) bytes")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try content(restored + "/db.sqlite") == content(database + "/db.sqlite"))
        #expect(try dbtool(["replicate", "verify", replica]).status == 0)
        // The replication state describes the replica, not the database: a
        // backup of the directory leaves it (and the outbox) out.
        #expect(FileManager.default.fileExists(atPath: database + "/.dbtool-replicate-state"))
        let archive = scratch.file("directory.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive, "-q"]).status == 0)
        let unpacked = scratch.file("unpacked")
        #expect(try dbtool(["restore", archive, unpacked, "-q"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: unpacked).sorted() == [".db.sqlite.dbtool-id", "db.sqlite"])
    }

    @Test("after SIGKILL while the application writes: the next run resumes in the log, nothing lost, nothing sent twice")
    func killedRestart() throws {
        let database = try database(megabytes: 20)
        let replica = scratch.file("replica")
        try replicateOnce(database, replica)
        let first = replicaBytes(replica)
        let app = try change(database, rows: 1...2, keepingLog: true)
        try replicateOnce(database, replica, kill: true)
        try app?.write { db in try db.execute(sql: "UPDATE blob SET data = randomblob(4000) WHERE id = 100") }
        let resumed = try replicateOnce(database, replica)
        #expect(resumed.contains("resumed after the replica's TXID"), "\(resumed)")
        try app?.close()
        #expect(replicaBytes(replica) - first < 1 << 20)
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try content(restored + "/db.sqlite") == content(database + "/db.sqlite"))
    }

    @Test("nothing tells what the replica holds (its state lost, the log gone): a full image, and every state still restores")
    func unknownReplica() throws {
        let database = try database(megabytes: 5)
        let replica = scratch.file("replica")
        try replicateOnce(database, replica)
        _ = try change(database, rows: 1...2, keepingLog: false)
        try FileManager.default.removeItem(atPath: database + "/.dbtool-replicate-state")
        let full = try replicateOnce(database, replica)
        #expect(full.contains("a full image as TXID"), "\(full)")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try content(restored + "/db.sqlite") == content(database + "/db.sqlite"))
        #expect(try dbtool(["replicate", "verify", replica]).status == 0)
    }

    @Test("restore --at T around restarts: every commit acknowledged a sync interval before T, none after it (but those made while it was stopped, shipped at the restart)")
    func pointInTimeAcrossRestarts() throws {
        let database = try scratch.makeDatabase()
        let replica = scratch.file("replica")
        let app = try ReplicateCommandTests.AckWriter(database: database, scratch: scratch)
        var windows: [(from: Double, to: Double)] = []  // while replicate ran and shipped
        var downtimes: [(from: Double, to: Double)] = []
        for round in 0..<3 {
            let run = try BackgroundTool(
                ["replicate", "--database", database, "--to", replica, "--sync-interval", "0.2", "--no-compaction"], scratch: scratch)
            #expect(waitUntil(timeout: 30) { run.stderrSoFar.contains("snapshot") || run.stderrSoFar.contains("resumed") })
            let started = Date().timeIntervalSince1970
            if round > 0 { downtimes[round - 1].to = started + 0.5 }
            Thread.sleep(forTimeInterval: 2)
            let stopping = Date().timeIntervalSince1970
            run.send(SIGTERM)
            #expect(run.wait().status == 0)
            windows.append((started + 0.5, stopping))
            downtimes.append((stopping - 0.3, .infinity))
            Thread.sleep(forTimeInterval: 0.5)
        }
        app.stop()
        let acks = app.acks()
        for (index, window) in windows.enumerated() {
            for fraction in [0.3, 0.9] {
                let target = window.from + (window.to - window.from) * fraction
                let restored = scratch.file("at-\(index)-\(fraction)")
                let at = ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: target))
                let result = try dbtool(["restore", replica, restored, "--at", at])
                #expect(result.status == 0, "\(result.stderr)")
                let rows = Set(try ReplicateCommandTests().events(restored))
                let shippedLater = { (time: Double) in downtimes.contains { time >= $0.from && time <= $0.to } }
                let missing = acks.filter { $0.time < target - 0.25 && !rows.contains($0.seq) && !shippedLater($0.time) }
                #expect(missing.isEmpty, "--at \(at): \(missing.count) commits acknowledged before it are missing, the first at \(missing.first?.time ?? 0)")
                // A commit is after T when it began after T: its row's time is
                // taken inside the transaction (an acknowledgement's time may
                // lag its commit under load).
                let extra = try commitTimes(restored).filter { $0.value > target + 0.05 }
                #expect(extra.isEmpty, "--at \(at): \(extra.count) commits made after it: \(extra.sorted { $0.key < $1.key }.prefix(3))")
            }
        }
    }

    /// The time (seconds since 1970) each restored `event` row was written,
    /// taken inside its transaction.
    private func commitTimes(_ directory: String) throws -> [Int: Double] {
        let dbQueue = try DatabaseQueue(path: directory + "/db.sqlite")
        defer { try? dbQueue.close() }
        return try dbQueue.read { db in
            var times: [Int: Double] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT seq, (at - 2440587.5) * 86400.0 AS time FROM event") {
                times[row["seq"]] = row["time"]
            }
            return times
        }
    }

    @Test("a 200 MB database: three restarts after clean stops and one after SIGKILL add under 10 MiB to its replica")
    func largeDatabase() throws {
        let database = try database(megabytes: 200)
        let replica = scratch.file("replica")
        try replicateOnce(database, replica)
        let first = replicaBytes(replica)
        #expect(first > 190_000_000, "\(first)")
        for round in 0..<3 {
            _ = try change(database, rows: (round * 10 + 1)...(round * 10 + 5), keepingLog: false)
            try replicateOnce(database, replica)
        }
        let app = try change(database, rows: 500...505, keepingLog: true)
        try replicateOnce(database, replica, kill: true)
        try replicateOnce(database, replica)
        try app?.close()
        let added = replicaBytes(replica) - first
        #expect(added < 10 << 20, "four restarts added \(ByteCount(added)) to the replica")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", replica, restored]).status == 0)
        #expect(try content(restored + "/db.sqlite") == content(database + "/db.sqlite"))
    }
}

/// Bytes as MiB, for messages.
private struct ByteCount: CustomStringConvertible {
    let bytes: Int64
    init(_ bytes: Int64) { self.bytes = bytes }
    var description: String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}
