import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("DatabaseSnapshot")
struct DatabaseSnapshotTests {
    @Test("a snapshot is frozen at its creation")
    func frozen() throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2); DELETE FROM t WHERE a = 1") }
        #expect(try snapshot.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])
        #expect(try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [2])
        // Still frozen after a checkpoint.
        _ = try? dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        #expect(try snapshot.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])
        #expect(try snapshot.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test("async read on a snapshot")
    func asyncRead() async throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try await dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let snapshot = try dbPool.makeSnapshot()
        try await dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try await snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test("a snapshot is read-only, and closes")
    func readOnlyAndClose() throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let snapshot = try dbPool.makeSnapshot()
        expectDatabaseError(.SQLITE_READONLY) { try snapshot.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
        try snapshot.close()
        expectDatabaseError(.SQLITE_MISUSE) { try snapshot.read { try $0.execute(sql: "SELECT 1") } }
        // Once closed, it no longer holds the WAL: a truncating checkpoint completes.
        let (_, _) = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    @Test("DatabaseSnapshotPool: a clear error, because SQLite lacks SQLITE_ENABLE_SNAPSHOT")
    func snapshotPoolUnavailable() throws {
        let directory = TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        #expect(!DatabaseSnapshotPool.isSupportedBySQLite)
        let error = expectDatabaseError(.SQLITE_MISUSE) { try dbPool.makeSnapshotPool() }
        #expect(error?.message?.contains("SQLITE_ENABLE_SNAPSHOT") == true)
        #expect(error?.message?.contains("makeSnapshot()") == true)
        expectDatabaseError(.SQLITE_MISUSE) { try DatabaseSnapshotPool(dbPool) }
        expectDatabaseError(.SQLITE_MISUSE) { try DatabaseSnapshotPool(path: directory.file("db.sqlite")) }
    }
}
