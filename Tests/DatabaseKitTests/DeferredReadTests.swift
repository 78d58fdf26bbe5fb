import DatabaseKit
import DatabaseKitSQLite
import Foundation
import Testing
import TestSupport

/// A `DatabasePool` read defers its transaction: its first statement runs
/// alone, and holds its snapshot until something else needs the transaction.
/// Each test lets a write commit between two steps of one read, and checks
/// that the read saw one state of the database from its start to its end.
@Suite("DatabasePool reads that defer their transaction")
struct DeferredReadTests {
    private func makePool(_ directory: TemporaryDirectory) throws -> DatabasePool {
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"))
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT)")
            for id in 1...5 {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [id, id * 10])
            }
        }
        return dbPool
    }

    /// Inserts a row from another thread, and returns once it is committed.
    private func commitInsert(_ dbPool: DatabasePool, id: Int) {
        runOnThreads(1) { _ in
            recordingErrors { try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?, 0)", arguments: [id]) } }
        }
    }

    /// True when the connection is outside of any transaction, with no
    /// statement holding a snapshot.
    private func isIdle(_ connection: SQLiteConnection) -> Bool {
        var statement = sqlite3_next_stmt(connection, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return false }
            statement = sqlite3_next_stmt(connection, current)
        }
        return sqlite3_get_autocommit(connection) != 0
    }

    private static let count = "SELECT COUNT(*) FROM t"

    @Test("a first statement with a row: the same statement again, another one, with new arguments")
    func firstStatementWithRow() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let results = try dbPool.read { db -> [Int?] in
            let first = try Int.fetchOne(db, sql: Self.count)
            commitInsert(dbPool, id: 100)
            let sameStatement = try Int.fetchOne(db, sql: Self.count)
            let other = try Int.fetchOne(db, sql: "SELECT MAX(id) FROM t")
            return [first, sameStatement, other]
        }
        #expect(results == [5, 5, 5])
        let withArguments = try dbPool.read { db -> [Int?] in
            let first = try Int.fetchOne(db, sql: "SELECT a FROM t WHERE id = ?", arguments: [1])
            commitInsert(dbPool, id: 101)
            let second = try Int.fetchOne(db, sql: "SELECT a FROM t WHERE id = ?", arguments: [101])
            return [first, second, try Int.fetchOne(db, sql: Self.count)]
        }
        #expect(withArguments == [10, nil, 6])
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: Self.count) } == 7)
    }

    @Test("a first statement with no row runs again in the transaction, so the next ones see what it saw")
    func firstStatementWithoutRow() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let results = try dbPool.read { db -> [Int?] in
            let missing = try Int.fetchOne(db, sql: "SELECT a FROM t WHERE id = 200")
            commitInsert(dbPool, id: 200)
            let again = try Int.fetchOne(db, sql: "SELECT a FROM t WHERE id = 200")
            return [missing, again, try Int.fetchOne(db, sql: Self.count)]
        }
        #expect(results == [nil, nil, 5])
        let all = try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT id FROM t WHERE id >= 200") }
        #expect(all == [200])
    }

    @Test("a first statement with many rows, and a cursor left after its first row")
    func manyRows() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let ids = try dbPool.read { db -> [[Int]] in
            let first = try Int.fetchAll(db, sql: "SELECT id FROM t ORDER BY id")
            commitInsert(dbPool, id: 300)
            return [first, try Int.fetchAll(db, sql: "SELECT id FROM t ORDER BY id")]
        }
        #expect(ids == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
        let cursorIds = try dbPool.read { db -> [Int] in
            let cursor = try Int.fetchCursor(db, sql: "SELECT id FROM t ORDER BY id")
            var ids = [try cursor.next() ?? -1]
            commitInsert(dbPool, id: 301)
            // Another statement while the cursor is on its first row, then the rest of the cursor.
            ids.append(try Int.fetchOne(db, sql: Self.count) ?? -1)
            while let id = try cursor.next() { ids.append(id) }
            return ids
        }
        #expect(cursorIds == [1, 6, 2, 3, 4, 5, 300])
    }

    @Test("a prepared statement: rebinding it, or executing it, begins the transaction first")
    func preparedStatement() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let results = try dbPool.read { db -> [Int?] in
            let statement = try db.makeStatement(sql: "SELECT COUNT(*) FROM t WHERE id >= ?")
            let first = try Int.fetchOne(statement, arguments: [1])
            commitInsert(dbPool, id: 400)
            try statement.setArguments([2])
            let rebound = try Int.fetchOne(statement)
            try db.execute(sql: "SELECT 1")
            return [first, rebound, try Int.fetchOne(statement, arguments: [1])]
        }
        #expect(results == [5, 4, 5])
    }

    @Test("a failed first statement takes no snapshot; the next ones share one")
    func failedFirstStatement() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let results = try dbPool.read { db -> [Int?] in
            expectDatabaseError(.SQLITE_ERROR) { try Int.fetchOne(db, sql: "SELECT x FROM missing") }
            commitInsert(dbPool, id: 500)
            let first = try Int.fetchOne(db, sql: Self.count)
            commitInsert(dbPool, id: 501)
            return [first, try Int.fetchOne(db, sql: Self.count)]
        }
        #expect(results == [6, 6])
    }

    @Test("inside the read: a transaction, a constant transaction date, no nested BEGIN, savepoints")
    func transactionState() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        try dbPool.read { db in
            #expect(db.isInsideTransaction)
            let date = try db.transactionDate
            _ = try Int.fetchOne(db, sql: Self.count)
            #expect(db.isInsideTransaction)
            Thread.sleep(forTimeInterval: 0.002)
            #expect(try db.transactionDate == date)
            expectDatabaseError(.SQLITE_ERROR) { try db.execute(sql: "BEGIN") }
            try db.inSavepoint {
                let count = try Int.fetchOne(db, sql: Self.count)
                #expect(count == 5)
                return .commit
            }
            #expect(try db.transactionDate == date)
        }
        try dbPool.read { db in
            // Before any statement too.
            expectDatabaseError(.SQLITE_ERROR) { try db.execute(sql: "BEGIN") }
            return ()
        }
    }

    @Test("after a read, whatever it ran and however it ended, the reader holds no snapshot")
    func noSnapshotLeft() throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        struct Failure: Error {}
        let reads: [(Database) throws -> Void] = [
            { db in _ = try Int.fetchOne(db, sql: Self.count) },
            { db in _ = try Int.fetchOne(db, sql: "SELECT a FROM t WHERE id = 999") },
            { db in _ = try Int.fetchCursor(db, sql: "SELECT id FROM t").next() },
            { db in _ = try Int.fetchAll(db, sql: "SELECT id FROM t") },
            { db in
                _ = try Int.fetchOne(db, sql: Self.count)
                _ = try Int.fetchOne(db, sql: Self.count)
            },
            { db in
                _ = try Int.fetchOne(db, sql: Self.count)
                throw Failure()
            },
            { db in
                _ = try Int.fetchOne(db, sql: Self.count)
                _ = try Int.fetchOne(db, sql: Self.count)
                throw Failure()
            },
        ]
        for read in reads {
            var connection: SQLiteConnection?
            do {
                try dbPool.read { db in
                    connection = db.sqliteConnection
                    try read(db)
                }
            } catch is Failure {}
            #expect(isIdle(try #require(connection)))
            try dbPool.read { db in
                let connection = try #require(db.sqliteConnection)
                #expect(isIdle(connection))
            }
        }
        // A cursor that outlives its read (a misuse) does not keep its snapshot.
        var connection: SQLiteConnection?
        let escaped = try dbPool.read { db in
            connection = db.sqliteConnection
            let cursor = try Int.fetchCursor(db, sql: "SELECT id FROM t")
            _ = try cursor.next()
            return cursor
        }
        #expect(isIdle(try #require(connection)))
        withExtendedLifetime(escaped) {}
        // No reader holds the WAL: a truncating checkpoint empties it.
        try dbPool.writeWithoutTransaction { db in
            let result = try db.checkpoint(.truncate)
            #expect(result.walFrameCount == 0)
        }
    }

    @Test("async reads defer their transaction too")
    func asyncRead() async throws {
        let directory = TemporaryDirectory()
        let dbPool = try makePool(directory)
        let results = try await dbPool.read { db -> [Int?] in
            let first = try Int.fetchOne(db, sql: Self.count)
            commitInsert(dbPool, id: 600)
            return [first, try Int.fetchOne(db, sql: Self.count)]
        }
        #expect(results == [5, 5])
    }
}
