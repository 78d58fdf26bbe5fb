import DatabaseKit
import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// The replication session against a database another connection writes:
/// its files rebuild the database page for page, and the real Litestream
/// restores them, at the latest TXID and at an earlier one.
@Suite("Replication: the WAL shipped as LTX files", .serialized)
struct ReplicationSessionTests {
    typealias Interop = LitestreamInteropTests

    @Test("every commit, through the application's checkpoints and the session's, reaches the replica; Litestream restores it")
    func shipsEveryCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let replica = directory.file("replica")
        let app = try Interop.makeDatabase(path, rows: 500, value: "hex(randomblob(40))")
        let session = try ReplicationSession(database: path, outbox: replica)
        try session.startWithImage(after: 0)
        var rowsAt: [UInt64: [String]] = [:]
        for round in 1...40 {
            try app.write { db in
                try db.execute(sql: "INSERT INTO t(v) SELECT 'round \(round) ' || hex(randomblob(200)) FROM t LIMIT 20")
                if round % 10 == 0 { try db.execute(sql: "DELETE FROM t WHERE id % 7 = \(round % 7)") }
            }
            // The application checkpoints too: harmless, the session pins the log.
            if round % 9 == 0 { try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") } }
            if round % 3 == 0, let name = try session.sync() {
                rowsAt[name.maxTXID] = try app.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
            }
            if round % 13 == 0 { try session.checkpoint() }
        }
        try session.sync()
        let finalRows = try app.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        let names = Interop.files(in: replica, level: 0)
        #expect(names.map(\.maxTXID) == Array(1...session.txid), "\(names)")
        // The session's checkpoints let the log start over: files come from several of its lives.
        let salts = try Set(names.dropFirst().map { try LTXDecoder(from: Interop.source("\(replica)/\($0.path)")).header.walSalt1 })
        #expect(salts.count >= 3, "the log never restarted: \(salts)")

        // Our applier: the latest state, page for page.
        let built = directory.file("built.db")
        let applied = try Interop.apply(names.map { "\(replica)/\($0.path)" }, into: built)
        #expect(applied.txid == session.txid)
        // While the session reads, a TRUNCATE checkpoint can not finish: that is the point.
        let pinned = try app.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(pinned?[0] as Int? == 1, "a checkpoint restarted the log under the session")
        try session.close()
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(FileManager.default.contents(atPath: built) == FileManager.default.contents(atPath: path), "not the same pages")

        // Litestream: the latest, and an earlier TXID.
        let latest = directory.file("latest.db")
        try Interop.run(["restore", "-o", latest, "file://\(replica)"])
        #expect(try Interop.rows(latest) == finalRows)
        let (earlierTXID, earlierRows) = try #require(rowsAt.min { $0.key < $1.key })
        let earlier = directory.file("earlier.db")
        try Interop.run(["restore", "-o", earlier, "-txid", LTXFileName.hex(earlierTXID), "file://\(replica)"])
        #expect(try Interop.rows(earlier) == earlierRows)
        try app.close()
    }

    @Test("a log that is not the one the session read (the database replaced under it) is refused, not shipped")
    func replacedLogRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let app = try Interop.makeDatabase(path, rows: 10, value: "x")
        let session = try ReplicationSession(database: path, outbox: directory.file("replica"))
        try session.startWithImage(after: 0)
        try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('a')") }
        #expect(try session.sync() != nil)
        // Another database's live log, moved over this one's.
        let other = try Interop.makeDatabase(directory.file("other.db"), rows: 10, value: "'y'")
        try other.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try other.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('b')") }
        try FileManager.default.copyItem(atPath: directory.file("other.db-wal"), toPath: directory.file("copy-wal"))
        #expect(rename(directory.file("copy-wal"), path + "-wal") == 0)
        #expect(throws: ReplicationSession.LogReplaced.self) { try session.sync() }
        #expect(Interop.files(in: directory.file("replica"), level: 0).count == 2)
        try other.close()
    }

    @Test("a log the application copied whole before the session began restarts at the next write: every commit shipped")
    func applicationRestartsCopiedLog() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let replica = directory.file("replica")
        let app = try Interop.makeDatabase(path, rows: 100, value: "hex(randomblob(100))")
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        let session = try ReplicationSession(database: path, outbox: replica)
        try session.startWithImage(after: 0)
        let salt = try #require(session.position).salt1
        // SQLite lets this writer start the log over: the session's read
        // transaction began with every frame copied, and needs none.
        try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('first after the start')") }
        try session.sync()
        #expect(session.position?.salt1 == salt &+ 1, "the log did not restart: the test shows nothing")
        try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('second')") }
        try session.sync()
        try session.close()
        let names = Interop.files(in: replica, level: 0)
        #expect(names.map(\.maxTXID) == [1, 2, 3])
        let built = directory.file("built.db")
        _ = try Interop.apply(names.map { "\(replica)/\($0.path)" }, into: built)
        let expected = try app.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        #expect(try Interop.rows(built) == expected)
        try app.close()
    }

    @Test("a snapshot prepared right after a full checkpoint keeps its pages while the next writer starts the log over")
    func snapshotAcrossLogRestart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let app = try Interop.makeDatabase(path, rows: 300, value: "hex(randomblob(100))")
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let session = try ReplicationSession(database: path, outbox: directory.file("replica"))
        try session.startWithImage(after: 0)
        try app.write { db in try db.execute(sql: "UPDATE t SET v = 'before ' || hex(randomblob(100))") }
        try session.sync()
        // Every frame copied: the snapshot's read transaction and the
        // session's both read the database file alone (read mark 0), the
        // old frames still in the log.
        #expect(try session.checkpoint())
        let expected = try app.read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        let plan = try session.prepareImage()
        #expect(!plan.state.pages.isEmpty, "the log held no frames: nothing for a restart to overwrite")
        // The next writer starts the log over: its frames land where the
        // snapshot's were (all of them: it writes more), with other salts.
        try app.write { db in
            try db.execute(sql: "UPDATE t SET v = 'after ' || hex(randomblob(100))")
            try db.execute(sql: "INSERT INTO t(v) SELECT hex(randomblob(500)) FROM t")
        }
        let walSize = FileSystem.size(path + "-wal")
        #expect(plan.state.pages.values.allSatisfy { $0 + 4096 <= walSize }, "the new log is shorter than the old frames")
        try session.sync()
        let snapshot = try plan.write(into: directory.file("images"), cancelled: { false })
        plan.finish()
        let built = directory.file("built.db")
        _ = try Interop.apply([snapshot], into: built)
        #expect(try Interop.rows(built) == expected)
        try session.close()
        try app.close()
    }

    @Test("a writer committing every 0.2 ms, checkpointing every 50 pages, while the session syncs and checkpoints: no commit lost")
    func concurrentWriter() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let replica = directory.file("replica")
        try Interop.makeDatabase(path, rows: 100, value: "x").close()
        let stop = Locked(false)
        let commits = Locked(0)
        let writer = Thread {
            recordingErrors {
                var configuration = Configuration()
                configuration.busyMode = .timeout(10)
                let app = try DatabaseQueue(path: path, configuration: configuration)
                try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 50") }
                while !stop.withLock({ $0 }) {
                    try app.write { db in
                        try db.execute(sql: "INSERT INTO t(v) VALUES (hex(randomblob(100)))")
                        try db.execute(sql: "UPDATE t SET v = 'changed' WHERE id = abs(random()) % 100")
                    }
                    commits.withLock { $0 += 1 }
                    usleep(200)
                }
                try app.close()
            }
        }
        writer.start()
        let session = try ReplicationSession(database: path, outbox: replica)
        try session.startWithImage(after: 0)
        let deadline = Date().addingTimeInterval(3)
        // The shipping lane's rounds: a sync every 20 ms, a checkpoint past
        // 40 pages (past 160, copied beside the lane first).
        while !(Date() >= deadline && writer.isFinished) {
            if Date() >= deadline { stop.withLock { $0 = true } }
            try session.sync()
            try ShippingTick.checkpointIfDue(session, pages: 40)
            Thread.sleep(forTimeInterval: 0.02)
        }
        try session.sync()
        try session.close()
        #expect(commits.withLock { $0 } > 100)
        #expect(session.checkpoints > 0, "the session never got the write lock from the writer")
        let names = Interop.files(in: replica, level: 0)
        #expect(names.map(\.maxTXID) == Array(1...session.txid))
        let built = directory.file("built.db")
        _ = try Interop.apply(names.map { "\(replica)/\($0.path)" }, into: built)
        let app = try DatabaseQueue(path: path)
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let rows = try app.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        #expect(rows == 100 + commits.withLock { $0 })
        #expect(FileManager.default.contents(atPath: built) == FileManager.default.contents(atPath: path), "not the same pages")
        try app.close()
        let latest = directory.file("latest.db")
        try Interop.run(["restore", "-o", latest, "file://\(replica)"])
        #expect(FileManager.default.contents(atPath: latest) == FileManager.default.contents(atPath: path), "Litestream's restore differs")
    }

    @Test("a long log is copied beside the session while it syncs; the checkpoint after copies the rest and the log restarts")
    func copyAhead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let replica = directory.file("replica")
        let app = try Interop.makeDatabase(path, rows: 2000, value: "hex(randomblob(1000))")
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let session = try ReplicationSession(database: path, outbox: replica)
        try session.startWithImage(after: 0)
        try app.write { db in try db.execute(sql: "UPDATE t SET v = hex(randomblob(1000))") }
        try session.sync()
        let longLog = session.walPages()
        #expect(longLog > 500, "the log holds \(longLog) pages")
        #expect(try session.startCopyingAhead())
        #expect(!(try session.startCopyingAhead()), "a second copy started beside the first")
        // The session goes on syncing while the copy runs.
        for round in 1...20 {
            try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('during \(round)')") }
            try session.sync()
        }
        let copied = Date().addingTimeInterval(30)
        while session.isCopyingAhead && Date() < copied { Thread.sleep(forTimeInterval: 0.01) }
        #expect(!session.isCopyingAhead)
        // What the checkpoint has left to copy: the 20 commits after the copy's start.
        let rest = try #require(session.pagesAfterCopy)
        #expect(rest > 0 && rest < 100, "\(rest) pages after the copy")
        #expect(try session.checkpoint())
        #expect(session.pagesAfterCopy == nil)
        #expect(session.walPages() == 0, "a log that restarts at the next write still counts \(session.walPages()) pages")
        // The next writer starts the log over: the session counts its frames, not the file's size.
        try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('after')") }
        try session.sync()
        let frames = session.walPages()
        #expect(frames > 0 && frames < 10, "\(frames) pages counted in the new log")
        #expect(FileSystem.size(path + "-wal") / 4120 > longLog / 2, "SQLite shrank the log file: the test shows nothing")
        let names = Interop.files(in: replica, level: 0)
        #expect(names.map(\.maxTXID) == Array(1...session.txid))
        let salts = try Set(names.dropFirst().map { try LTXDecoder(from: Interop.source("\(replica)/\($0.path)")).header.walSalt1 })
        #expect(salts.count == 2, "the log did not restart once: \(salts)")

        // A close while a copy runs stops it and returns; the application checkpoints after.
        try app.write { db in try db.execute(sql: "UPDATE t SET v = hex(randomblob(1000))") }
        try session.sync()
        #expect(try session.startCopyingAhead())
        try session.close()
        #expect(!session.isCopyingAhead)
        let built = directory.file("built.db")
        _ = try Interop.apply(Interop.files(in: replica, level: 0).map { "\(replica)/\($0.path)" }, into: built)
        let truncated = try app.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(truncated?[0] as Int? == 0, "the log stayed pinned after the close")
        #expect(FileManager.default.contents(atPath: built) == FileManager.default.contents(atPath: path), "not the same pages")
        try app.close()
    }
}
