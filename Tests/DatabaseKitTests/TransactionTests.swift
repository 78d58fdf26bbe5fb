import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Transactions and savepoints")
struct TransactionTests {
    struct Failure: Error {}

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        return dbQueue
    }

    private func values(_ dbQueue: DatabaseQueue) throws -> [Int] {
        try dbQueue.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") }
    }

    @Test("inTransaction commits, rolls back, and rolls back on throw")
    func inTransaction() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.inDatabase { (db: Database) throws in
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .commit
            }
            try db.inTransaction(.exclusive) {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .rollback
            }
            #expect(throws: Failure.self) {
                try db.inTransaction(.immediate) {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    throw Failure()
                }
            }
            #expect(!db.isInsideTransaction)
        }
        #expect(try values(dbQueue) == [1])
    }

    @Test("a failed COMMIT rolls back and leaves no transaction open")
    func failedCommit() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { (db: Database) throws in
            try db.execute(
                sql: """
                    CREATE TABLE parent(id INTEGER PRIMARY KEY);
                    CREATE TABLE child(parentId INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    """)
            expectDatabaseError(.SQLITE_CONSTRAINT) {
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO child VALUES (1)")
                    return .commit
                }
            }
            #expect(!db.isInsideTransaction)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM child") == 0)
        }
    }

    @Test("savepoints nest: inner rollback keeps outer work")
    func nestedSavepoints() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    return .rollback
                }
                #expect(throws: Failure.self) {
                    try db.inSavepoint {
                        try db.execute(sql: "INSERT INTO t VALUES (4)")
                        throw Failure()
                    }
                }
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (5)")
                    return .commit
                }
                return .commit
            }
            #expect(db.isInsideTransaction)
        }
        #expect(try values(dbQueue) == [1, 2, 5])
    }

    @Test("a savepoint outside of a transaction is a transaction")
    func savepointOutsideTransaction() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.inDatabase { (db: Database) throws in
            try db.inSavepoint {
                #expect(db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .rollback
            }
            #expect(!db.isInsideTransaction)
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .commit
            }
            #expect(!db.isInsideTransaction)
        }
        #expect(try values(dbQueue) == [2])
    }

    @Test("a rolled-back outer savepoint discards released inner ones")
    func outerRollback() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.inSavepoint {
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    return .commit
                }
                return .rollback
            }
        }
        #expect(try values(dbQueue) == [])
    }

    @Test("beginTransaction, commit and rollback")
    func explicit() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.inDatabase { (db: Database) throws in
            try db.beginTransaction(.immediate)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.commit()
            try db.beginTransaction()
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            try db.rollback()
            expectDatabaseError(.SQLITE_ERROR) { try db.commit() }  // no transaction is active
        }
        #expect(try values(dbQueue) == [1])
    }

    @Test("writes are atomic across two connections on a file")
    func atomicAcrossConnections() throws {
        let directory = TemporaryDirectory()
        let writer = try directory.makeQueue()
        let reader = try directory.makeQueue()
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        #expect(throws: Failure.self) {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }
}
