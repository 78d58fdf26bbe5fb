import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The transparent statement cache of the `sql:` methods: a statement that
/// leaves the cache (after a failure, an observer change, a trim or
/// `releaseMemory()`) is never run again, even when its SQL was the last one
/// looked up.
@Suite("Statement cache")
struct StatementCacheTests {
    /// Sees each deleted row.
    final class DeletionRecorder: TransactionObserver, @unchecked Sendable {
        // Safe: callbacks run on the writer's queue; the test reads after the access.
        var deleted: [Int64] = []
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "t" }
        func databaseDidChange(with event: DatabaseEvent) {
            if case .delete = event.kind { deleted.append(event.rowID) }
        }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }

    @Test("a DELETE cached before an observer is added is compiled again, so the observer sees each row")
    func observerAddedAfterCaching() throws {
        let dbQueue = DatabaseQueue()
        let delete = "DELETE FROM t"
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO t (id) VALUES (1), (2)")
            // Cached, and the last SQL looked up, while no observer wants
            // deletions: SQLite may compile it as a truncation, which
            // reports no rows.
            try db.execute(sql: delete)
        }
        let recorder = DeletionRecorder()
        dbQueue.add(transactionObserver: recorder)
        try dbQueue.write { db in
            // Outside of the cache, so that DELETE stays the last SQL looked up.
            try db.makeStatement(sql: "INSERT INTO t (id) VALUES (3), (4)").execute()
            try db.execute(sql: delete)
        }
        #expect(recorder.deleted.sorted() == [3, 4])
    }

    @Test("the same SQL after a failed run compiles a fresh statement and runs")
    func afterFailure() throws {
        let dbQueue = DatabaseQueue()
        let insert = "INSERT INTO t (id, name) VALUES (?, ?)"
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: insert, arguments: [1, "a"])
            #expect(throws: DatabaseError.self) { try db.execute(sql: insert, arguments: [1, "dup"]) }
            try db.execute(sql: insert, arguments: [2, "b"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY id") == ["a", "b"])
        }
    }

    @Test("the last SQL looked up still runs after releaseMemory() and after the cache is trimmed")
    func afterReleaseAndTrim() throws {
        let dbQueue = DatabaseQueue()
        let query = "SELECT count(*) FROM t"
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            #expect(try Int.fetchOne(db, sql: query) == 1)
            db.releaseMemory()
            #expect(try Int.fetchOne(db, sql: query) == 1)
            // More distinct statements than the cache keeps: it is trimmed.
            for index in 0..<300 {
                #expect(try Int.fetchOne(db, sql: "SELECT \(index)") == index)
            }
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            #expect(try Int.fetchOne(db, sql: query) == 2)
        }
    }

    @Test("equal SQL built at run time finds the statement of a literal, and two alternating queries both stay right")
    func equalStringsAndAlternation() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INT)")
            try db.execute(sql: "INSERT INTO t (id, v) VALUES (1, 10), (2, 20)")
            let built = ["SELECT v FROM t", "WHERE id = ?"].joined(separator: " ")
            for id in 1...2 {
                #expect(try Int.fetchOne(db, sql: "SELECT v FROM t WHERE id = ?", arguments: [id]) == id * 10)
                #expect(try Int.fetchOne(db, sql: built, arguments: [id]) == id * 10)
                #expect(try Int.fetchOne(db, sql: "SELECT id FROM t WHERE v = ?", arguments: [id * 10]) == id)
            }
        }
    }
}
