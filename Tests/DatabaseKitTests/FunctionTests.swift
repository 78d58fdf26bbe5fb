import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Custom SQL functions and aggregates")
struct FunctionTests {
    static let reverse = DatabaseFunction("reverse", argumentCount: 1, pure: true) { dbValues in
        guard let string = String.fromDatabaseValue(dbValues[0]) else { return nil }
        return String(string.reversed())
    }

    struct MaxLength: DatabaseAggregate {
        var maxLength = 0
        mutating func step(_ dbValues: [DatabaseValue]) {
            if let string = String.fromDatabaseValue(dbValues[0]) {
                maxLength = max(maxLength, string.count)
            }
        }
        func finalize() -> (any DatabaseValueConvertible)? { maxLength }
    }

    struct Failing: DatabaseAggregate {
        struct Oops: Error, CustomStringConvertible { var description: String { "oops in step" } }
        mutating func step(_ dbValues: [DatabaseValue]) throws { throw Oops() }
        func finalize() -> (any DatabaseValueConvertible)? { nil }
    }

    @Test("a scalar function: result, NULL, every value type")
    func scalar() throws {
        let dbQueue = DatabaseQueue()
        let identity = DatabaseFunction("identity", argumentCount: 1) { $0[0] }
        try dbQueue.write { (db: Database) throws in
            db.add(function: Self.reverse)
            db.add(function: identity)
            #expect(try String.fetchOne(db, sql: "SELECT reverse('foo')") == "oof")
            #expect(try String.fetchOne(db, sql: "SELECT reverse(NULL)") == nil)
            for value: DatabaseValue in [
                .null, 1.databaseValue, 2.5.databaseValue, "é".databaseValue, "".databaseValue,
                Data([0, 1]).databaseValue, Data().databaseValue,
            ] {
                #expect(try DatabaseValue.fetchOne(db, sql: "SELECT identity(?)", arguments: [value]) == value)
            }
            // A function used with the table data.
            try db.execute(sql: "CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('ab'), ('cd')")
            #expect(try String.fetchAll(db, sql: "SELECT reverse(name) FROM t ORDER BY 1") == ["ba", "dc"])
            // A pure function can be used in an index on an expression.
            try db.execute(sql: "CREATE INDEX t_reverse ON t(reverse(name))")
        }
    }

    @Test("a variadic function, and functions that differ by argument count")
    func variadic() throws {
        let dbQueue = DatabaseQueue()
        let count = DatabaseFunction("countArguments") { $0.count }
        let two = DatabaseFunction("countArguments", argumentCount: 2) { _ in "two" }
        try dbQueue.write { (db: Database) throws in
            db.add(function: count)
            #expect(try Int.fetchOne(db, sql: "SELECT countArguments()") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT countArguments(1, 2, 3)") == 3)
            db.add(function: two)
            #expect(try String.fetchOne(db, sql: "SELECT countArguments(1, 2)") == "two")
            #expect(try Int.fetchOne(db, sql: "SELECT countArguments(1)") == 1)
        }
        #expect(count.id != two.id)
        #expect(count.id == DatabaseFunction("COUNTARGUMENTS") { _ in nil }.id)
    }

    @Test("errors thrown by a function become SQL errors with their message")
    func errors() throws {
        let dbQueue = DatabaseQueue()
        struct Custom: Error, CustomStringConvertible { var description: String { "custom failure" } }
        let failing = DatabaseFunction("failing", argumentCount: 0) { _ in throw Custom() }
        let failingDatabase = DatabaseFunction("failingDatabase", argumentCount: 0) { _ in
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_CHECK, message: "not allowed")
        }
        try dbQueue.write { (db: Database) throws in
            db.add(function: failing)
            db.add(function: failingDatabase)
            do {
                _ = try Int.fetchOne(db, sql: "SELECT failing()")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.message == "custom failure")
                #expect(error.sql == "SELECT failing()")
            }
            do {
                _ = try Int.fetchOne(db, sql: "SELECT failingDatabase()")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
                #expect(error.message == "not allowed")
            }
        }
    }

    @Test("remove(function:) makes the function unknown")
    func remove() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            db.add(function: Self.reverse)
            #expect(try String.fetchOne(db, sql: "SELECT reverse('ab')") == "ba")
            db.remove(function: Self.reverse)
            #expect(throws: DatabaseError.self) { try String.fetchOne(db, sql: "SELECT reverse('ab')") }
        }
    }

    @Test("an aggregate: groups, empty input, errors in step")
    func aggregate() throws {
        let dbQueue = DatabaseQueue()
        let maxLength = DatabaseFunction("maxLength", argumentCount: 1, pure: true, aggregate: MaxLength.self)
        let failing = DatabaseFunction("failingAggregate", argumentCount: 1, aggregate: Failing.self)
        try dbQueue.write { (db: Database) throws in
            db.add(function: maxLength)
            db.add(function: failing)
            try db.execute(
                sql: """
                    CREATE TABLE t (team TEXT, name TEXT);
                    INSERT INTO t VALUES ('a', 'x'), ('a', 'xyz'), ('b', 'xy'), ('b', NULL);
                    """)
            #expect(try Int.fetchOne(db, sql: "SELECT maxLength(name) FROM t") == 3)
            let rows = try Row.fetchAll(db, sql: "SELECT team, maxLength(name) FROM t GROUP BY team ORDER BY team")
            #expect(rows.map { $0[1] as Int } == [3, 2])
            // No rows: a fresh aggregate gives the result.
            #expect(try Int.fetchOne(db, sql: "SELECT maxLength(name) FROM t WHERE 0") == 0)
            do {
                _ = try Int.fetchOne(db, sql: "SELECT failingAggregate(name) FROM t")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.message == "oops in step")
            }
            // The connection is still usable.
            #expect(try Int.fetchOne(db, sql: "SELECT maxLength(name) FROM t") == 3)
        }
    }

    @Test("prepareDatabase adds a function to every connection of a pool")
    func everyConnection() throws {
        let directory = TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: Self.reverse) }
        let dbPool = try DatabasePool(path: directory.file("db.sqlite"), configuration: configuration)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('abc')") }
        #expect(try dbPool.write { db in try String.fetchOne(db, sql: "SELECT reverse(name) FROM t") } == "cba")
        #expect(try dbPool.read { db in try String.fetchOne(db, sql: "SELECT reverse(name) FROM t") } == "cba")
        // Several readers at once, each with its own connection.
        let results = try (0..<4).map { _ in
            try dbPool.read { db in try String.fetchOne(db, sql: "SELECT reverse('xy')") }
        }
        #expect(results == Array(repeating: "yx", count: 4))
    }
}
