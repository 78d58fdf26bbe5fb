import DatabaseKit
import Foundation
import Testing

/// Behaviours where DatabaseKit used to differ from GRDB: rows, values,
/// functions and Foundation types return or throw as GRDB does, and never trap.
@Suite("GRDB behaviours: rows, values, functions, Foundation types")
struct GRDBBehaviorTests {
    @Test("Row.decode(_:forColumn:) by name and by Column; row[Column]; descriptions of adapted rows; equality with scopes")
    func rows() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 1 AS id, 'Arthur' AS name, NULL AS score"))
            #expect(try row.decode(String.self, forColumn: "name") == "Arthur")
            #expect(try row.decode(Int.self, forColumn: Column("id")) == 1)
            #expect(try row.decode(Int?.self, forColumn: "score") == nil)
            #expect(row[Column("name")] as String == "Arthur")
            #expect(row[Column("score")] as Int? == nil)
            #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "score") }

            let adapter = RangeRowAdapter(0..<2).addingScopes(["team": SuffixRowAdapter(fromIndex: 2)])
            let adapted = try #require(try Row.fetchOne(db, sql: "SELECT 1 AS id, 'a' AS name, 2 AS id", adapter: adapter))
            #expect(adapted.debugDescription.contains("unadapted: [id:1 name:\"a\" id:2]"))
            #expect(adapted.debugDescription.contains("team: [id:2]"))
            #expect(adapted.unscoped == ["id": 1, "name": "a"])
            let other = try #require(try Row.fetchOne(db, sql: "SELECT 1 AS id, 'a' AS name, 3 AS id", adapter: adapter))
            // The same columns, and different scopes: not equal.
            #expect(adapted.unscoped == other.unscoped)
            #expect(adapted != other)
        }
    }

    @Test("DatabaseValue.description and Storage")
    func databaseValues() {
        #expect(DatabaseValue.null.description == "NULL")
        #expect(1.databaseValue.description == "1")
        #expect(1.5.databaseValue.description == "1.5")
        #expect("a\"b".databaseValue.description == #""a\"b""#)
        #expect(Data([1, 2, 3]).databaseValue.description == "Data(3 bytes)")
        switch "x".databaseValue.storage {
        case .string(let string): #expect(string == "x")
        default: Issue.record("expected a string storage")
        }
    }

    @Test("Foundation values convert; bad URLs and out-of-range numbers are nil, never a trap")
    func foundation() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(try URL.fetchOne(db, sql: "SELECT 'https://example.com/a'")?.absoluteString == "https://example.com/a")
            #expect(URL.fromDatabaseValue("".databaseValue) == nil)
            #expect(try NSNumber.fetchOne(db, sql: "SELECT '12'")?.intValue == 12)
            #expect(try Decimal.fetchOne(db, sql: "SELECT '1.10'") == Decimal(string: "1.10"))
            #expect(try NSString.fetchOne(db, sql: "SELECT 'x'") == "x")
            #expect(try NSData.fetchOne(db, sql: "SELECT x'0102'")?.length == 2)
            #expect(try NSDate.fetchOne(db, sql: "SELECT '1970-01-01 00:00:01'")?.timeIntervalSince1970 == 1)
            #expect(try UUID.fetchOne(db, sql: "SELECT 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'") != nil)
            #expect(Int64.fromDatabaseValue(1e30.databaseValue) == nil)
            #expect(Int32.fromDatabaseValue(Double(Int64.max).databaseValue) == nil)
            #expect(Int.fromDatabaseValue((-2.7).databaseValue) == -2)
        }
    }

    @Test("function arguments out of range are nil; a throwing aggregate step is an SQL error")
    func functions() throws {
        struct Failure: Error {}
        final class Failing: DatabaseAggregate {
            init() {}
            func step(_ dbValues: [DatabaseValue]) throws { throw Failure() }
            func finalize() throws -> (any DatabaseValueConvertible)? { 0 }
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            let asInt64 = DatabaseFunction("asInt64", argumentCount: 1, pure: true) { values in
                Int64.fromDatabaseValue(values[0]).map { "\($0)" } ?? "nil"
            }
            db.add(function: asInt64)
            #expect(try String.fetchOne(db, sql: "SELECT asInt64(1e30)") == "nil")
            #expect(try String.fetchOne(db, sql: "SELECT asInt64(42.9)") == "42")
            db.add(function: DatabaseFunction("failing", argumentCount: 1, aggregate: Failing.self))
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2)")
            let error = expectDatabaseError(.SQLITE_ERROR) { try Int.fetchOne(db, sql: "SELECT failing(a) FROM t") }
            // As GRDB: the message of an error that is not a DatabaseError is its description.
            #expect(error?.message == "Failure()")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 2)
        }
    }
}
