import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("DatabaseQueue")
struct DatabaseQueueTests {
    @Test("init(path:) creates the database file when missing")
    func createsFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("db.sqlite")
        #expect(!FileManager.default.fileExists(atPath: path))
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(dbQueue.path == path)
    }

    @Test("a read-only queue on a missing file fails clearly and creates nothing")
    func readOnlyMissingFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("missing.sqlite")
        var config = Configuration()
        config.readonly = true
        let error = #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: path, configuration: config)
        }
        #expect(error?.resultCode == .SQLITE_CANTOPEN)
        #expect(error?.message?.contains(path) == true)
        #expect(error?.message?.contains("read-only") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("opening a file that is not a database fails with SQLITE_NOTADB")
    func notADatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("garbage.sqlite")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { try DatabaseQueue(path: path) }
        #expect(error?.resultCode == .SQLITE_NOTADB)
    }

    @Test("private in-memory databases are distinct")
    func privateInMemory() throws {
        let queue1 = DatabaseQueue()
        let queue2 = DatabaseQueue()
        try queue1.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let exists = try queue2.read { db in
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 't'")
        }
        #expect(exists == false)
    }

    @Test("shared in-memory databases are shared by name")
    func sharedInMemory() throws {
        let name = "shared-\(UUID().uuidString)"
        let queue1 = try DatabaseQueue(named: name)
        let queue2 = try DatabaseQueue(named: name)
        try queue1.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (42)") }
        #expect(try queue2.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") } == 42)
    }

    @Test("write commits, and rolls back when its block throws")
    func writeTransaction() throws {
        struct Failure: Error {}
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        #expect(throws: Failure.self) {
            try dbQueue.write { db in
                #expect(db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test("read runs in a transaction and rejects writes")
    func readIsReadOnly() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let error = #expect(throws: DatabaseError.self) {
            try dbQueue.read { db in
                #expect(db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.resultCode == .SQLITE_READONLY)
        // Writes work again afterwards.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
    }

    @Test("inDatabase and writeWithoutTransaction run outside of any transaction")
    func noTransaction() throws {
        let dbQueue = DatabaseQueue()
        dbQueue.inDatabase { db in #expect(!db.isInsideTransaction) }
        dbQueue.writeWithoutTransaction { db in #expect(!db.isInsideTransaction) }
        dbQueue.unsafeRead { db in #expect(!db.isInsideTransaction) }
    }

    @Test("inTransaction commits or rolls back as told")
    func inTransaction() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        try dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        try dbQueue.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .rollback
        }
        #expect(try dbQueue.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])
    }

    @Test("unsafeReentrantRead runs inside another access")
    func reentrantRead() throws {
        let dbQueue = DatabaseQueue()
        let value = try dbQueue.write { _ in
            try dbQueue.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT 42") }
        }
        #expect(value == 42)
        // And outside of any access too.
        #expect(try dbQueue.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test("a re-entrant write stops the program with a clear message, never deadlocks")
    func reentrantWriteIsFatal() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = DatabaseQueue()
            try dbQueue.write { _ in
                try dbQueue.write { _ in }
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Database methods are not reentrant"))
    }

    @Test("async read and write")
    func asyncAccess() async throws {
        let dbQueue = DatabaseQueue()
        try await dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
        }
        let sum = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(a) FROM t") }
        #expect(sum == 3)
    }

    @Test("async write rolls back when its block throws")
    func asyncWriteRollback() async throws {
        struct Failure: Error {}
        let dbQueue = DatabaseQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        await #expect(throws: Failure.self) {
            try await dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test("a queue is usable from many threads at once, and serializes accesses")
    func concurrentUse() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        let insideCount = Locked(0)
        let maxInside = Locked(0)
        runOnThreads(200) { i in
            recordingErrors { try dbQueue.write { db in
                let inside = insideCount.withLock { count in
                    count += 1
                    return count
                }
                maxInside.withLock { $0 = max($0, inside) }
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i])
                insideCount.withLock { $0 -= 1 }
            } }
        }
        #expect(maxInside.current == 1)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 200)
    }

    @Test("default connection and dispatch queue label, and the configured label")
    func labels() throws {
        // Synchronous accesses run on the calling thread (see
        // SerializedDatabase): the connection carries the label. Asynchronous
        // ones run on the connection's queue, which carries it too.
        let dbQueue = DatabaseQueue()
        try dbQueue.read { db in
            #expect(db.description == "GRDB.DatabaseQueue")
            #expect(db.configuration.label == nil)
        }
        #expect(asyncAccessQueueLabel { dbQueue.asyncRead($0) } == "GRDB.DatabaseQueue")
        var config = Configuration()
        config.label = "MyDatabase"
        let labeled = DatabaseQueue(configuration: config)
        try labeled.read { db in
            #expect(db.description == "MyDatabase")
        }
        #expect(asyncAccessQueueLabel { labeled.asyncRead($0) } == "MyDatabase")
    }

    @Test("an asynchronous write, then synchronous accesses from the same thread: they run in that order, one at a time")
    func asyncThenSyncOrder() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(v INTEGER)") }
        let events = Locked<[String]>([])
        for round in 0..<50 {
            dbQueue.asyncWrite({ db in
                Thread.sleep(forTimeInterval: round == 0 ? 0.05 : 0)
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [round])
                events.withLock { $0.append("async \(round)") }
            }, completion: { _, result in
                if case .failure(let error) = result { Issue.record(error) }
            })
            // Submitted after the asynchronous write: it sees its row.
            let count = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")! }
            #expect(count == round + 1)
            events.withLock { $0.append("sync \(round)") }
        }
        #expect(events.current == (0..<50).flatMap { ["async \($0)", "sync \($0)"] })
    }

    @Test("close() throws while a statement is alive, then closes; later accesses throw")
    func close() throws {
        let directory = TemporaryDirectory()
        let dbQueue = try directory.makeQueue()
        var statement: Statement? = try dbQueue.write { db in try db.makeStatement(sql: "SELECT 1") }
        let error = #expect(throws: DatabaseError.self) { try dbQueue.close() }
        #expect(error?.resultCode == .SQLITE_BUSY)
        #expect(error?.message?.contains("SELECT 1") == true)
        // Still open.
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)

        statement = nil
        _ = statement
        try dbQueue.close()
        try dbQueue.close()  // closing twice is harmless

        let closedError = #expect(throws: DatabaseError.self) {
            try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        }
        #expect(closedError?.resultCode == .SQLITE_MISUSE)
        #expect(closedError?.message?.contains("closed") == true)
        #expect(throws: DatabaseError.self) { try dbQueue.write { _ in } }
        #expect(throws: DatabaseError.self) { try dbQueue.inDatabase { try $0.execute(sql: "SELECT 1") } }
    }

    @Test("async access after close throws")
    func asyncAfterClose() async throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.close()
        await #expect(throws: DatabaseError.self) {
            try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        }
    }

    @Test("a cursor used outside of its access block throws")
    func escapedCursor() throws {
        let dbQueue = DatabaseQueue()
        let cursor = try dbQueue.read { db in try Int.fetchCursor(db, sql: "SELECT 1") }
        let error = #expect(throws: DatabaseError.self) { try cursor.next() }
        #expect(error?.message?.contains("outside of its database access block") == true)
    }

    @Test("releaseMemory keeps the queue usable")
    func releaseMemory() throws {
        let dbQueue = DatabaseQueue()
        _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        dbQueue.releaseMemory()
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }
}
