import DatabaseKit
import Foundation
import Testing
import TestSupport

/// Behaviour common to queues and pools, run against both.
@Suite("Shared scenarios: queue and pool")
struct SharedScenarioTests {
    struct Failure: Error {}

    @Test("write commits, and rolls back on error", arguments: WriterKind.allCases)
    func writeRollback(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        #expect(throws: Failure.self) {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try writer.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [2])
    }

    @Test("read rejects writes", arguments: WriterKind.allCases)
    func readIsReadOnly(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        expectDatabaseError(.SQLITE_READONLY) { try writer.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
    }

    @Test("a re-entrant write stops the program", arguments: WriterKind.allCases)
    func reentrantWrite(kind: WriterKind) async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [kind = kind.rawValue as String] in
            let path = NSTemporaryDirectory() + "reentrant-\(UUID().uuidString).sqlite"
            let writer: any DatabaseWriter = kind == "pool" ? try DatabasePool(path: path) : try DatabaseQueue(path: path)
            try writer.write { _ in try writer.write { _ in } }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Database methods are not reentrant"))
    }

    @Test("a cursor escaping its access block throws", arguments: WriterKind.allCases)
    func escapingCursor(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let cursor = try writer.read { db in try Int.fetchCursor(db, sql: "SELECT 1") }
        expectDatabaseError(.SQLITE_MISUSE) { try cursor.next() }
    }

    @Test("async read and write", arguments: WriterKind.allCases)
    func asyncAccess(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try await writer.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") } == 1)
    }

    @Test("asyncWrite always completes, even on a closed database", arguments: WriterKind.allCases)
    func asyncWriteClosed(kind: WriterKind) async throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.close()
        let outcome: Result<Int, any Error> = await withCheckedContinuation { continuation in
            writer.asyncWrite({ _ in 1 }, completion: { _, result in continuation.resume(returning: result) })
        }
        #expect(throws: DatabaseError.self) { try outcome.get() }
    }

    @Test("many threads write and read at once", arguments: WriterKind.allCases)
    func concurrentUse(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        runOnThreads(8) { i in
            for j in 0..<50 {
                recordingErrors { try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i * 100 + j]) } }
                recordingErrors { try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } }
            }
        }
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 400)
    }

    @Test("close, then every access throws", arguments: WriterKind.allCases)
    func close(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.close()
        expectDatabaseError(.SQLITE_MISUSE) { try writer.read { _ in } }
        expectDatabaseError(.SQLITE_MISUSE) { try writer.write { _ in } }
        expectDatabaseError(.SQLITE_MISUSE) { try writer.unsafeRead { try $0.execute(sql: "SELECT 1") } }
    }
}
