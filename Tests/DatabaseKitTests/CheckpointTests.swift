import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Checkpoint")
struct CheckpointTests {
    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try dbPool.write { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")  // keep frames in the WAL
            try db.execute(sql: "CREATE TABLE t(a)")
            for i in 0..<100 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
        }
        return dbPool
    }

    private func walSize(_ directory: TemporaryDirectory) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: directory.file("db.sqlite-wal"))[.size] as? Int) ?? -1
    }

    @Test("every mode checkpoints every frame when nothing prevents it", arguments: Database.CheckpointMode.allCases)
    func modes(mode: Database.CheckpointMode) throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        #expect(try walSize(directory) > 0)
        let (walFrames, checkpointed) = try dbPool.writeWithoutTransaction { db in try db.checkpoint(mode) }
        #expect(checkpointed == walFrames)
        if mode == .truncate {
            // SQLite reports the WAL as it is afterwards: empty.
            #expect(walFrames == 0)
            #expect(try walSize(directory) == 0)
        } else {
            #expect(walFrames > 0)
        }
    }

    @Test("a database that is not in WAL mode reports -1 frames")
    func notWAL() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let result = try dbQueue.writeWithoutTransaction { db in try db.checkpoint(.full) }
        #expect(result.walFrameCount == -1 && result.checkpointedFrameCount == -1)
    }

    @Test("an in-memory database has no WAL: -1 frames, in every mode", arguments: Database.CheckpointMode.allCases)
    func inMemory(mode: Database.CheckpointMode) throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let result = try dbQueue.writeWithoutTransaction { db in try db.checkpoint(mode) }
        #expect(result.walFrameCount == -1 && result.checkpointedFrameCount == -1)
    }

    @Test("a blocking checkpoint prevented by a reader is reported as SQLITE_BUSY, never as success")
    func blockedByReader() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        // A snapshot holds a read transaction on the current state...
        let snapshot = try dbPool.makeSnapshot()
        // ... then more frames are written after it.
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1000)") }
        for mode in [Database.CheckpointMode.full, .restart, .truncate] {
            let error = expectDatabaseError(.SQLITE_BUSY) {
                try dbPool.writeWithoutTransaction { db in try db.checkpoint(mode) }
            }
            #expect(error?.message?.contains("could not complete") == true)
        }
        // Passive never blocks, and reports how far it got.
        let (walFrames, checkpointed) = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        #expect(checkpointed < walFrames)
        try snapshot.close()
        let (after, done) = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        #expect(after == done)
    }

    @Test("a blocking checkpoint waits for a reader within the busy timeout")
    func waitsWithTimeout() throws {
        let directory = TemporaryDirectory()
        var config = Configuration()
        config.busyMode = .timeout(10)
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"), configuration: config)
        try dbPool.write { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        }
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        // What is checked is the order (the checkpoint returned after the
        // reader went away), not a duration the scheduler could stretch.
        let closed = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            closed.withLock { $0 = true }  // before: the checkpoint can end as soon as the reader is gone
            try? snapshot.close()
        }
        let (walFrames, checkpointed) = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        #expect(closed.current, "the checkpoint returned before the snapshot was being closed")
        #expect(walFrames == checkpointed)
    }
}
