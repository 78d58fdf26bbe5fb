import DatabaseKit
import DatabaseKitSQLite
import Foundation
import Testing

@Suite("Values")
struct DatabaseValueConvertibleTests {
    /// Stores `value`, and returns what SQLite stored (typeof) and the value read back.
    private func roundTrip<T: DatabaseValueConvertible>(_ value: T) throws -> (String, T?) {
        let dbQueue = DatabaseQueue()
        return try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(v)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value])
            let type = try String.fetchOne(db, sql: "SELECT typeof(v) FROM t")!
            let dbValue = try DatabaseValue.fetchOne(db, sql: "SELECT v FROM t")!
            return (type, T.fromDatabaseValue(dbValue))
        }
    }

    @Test("integers of every width round-trip at their bounds")
    func integers() throws {
        #expect(try roundTrip(Int.min) == ("integer", Int.min))
        #expect(try roundTrip(Int.max) == ("integer", Int.max))
        #expect(try roundTrip(Int8.min) == ("integer", Int8.min))
        #expect(try roundTrip(Int16.max) == ("integer", Int16.max))
        #expect(try roundTrip(Int32.min) == ("integer", Int32.min))
        #expect(try roundTrip(Int64.max) == ("integer", Int64.max))
        #expect(try roundTrip(UInt8.max) == ("integer", UInt8.max))
        #expect(try roundTrip(UInt16.max) == ("integer", UInt16.max))
        #expect(try roundTrip(UInt32.max) == ("integer", UInt32.max))
        #expect(try roundTrip(UInt64(Int64.max)) == ("integer", UInt64(Int64.max)))
        #expect(try roundTrip(UInt(42)) == ("integer", UInt(42)))
    }

    @Test("an integer out of range is an error, never a silent wrap")
    func integerOutOfRange() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { (db: Database) throws in
            #expect(Int8.fromDatabaseValue(300.databaseValue) == nil)
            #expect(UInt8.fromDatabaseValue((-1).databaseValue) == nil)
            #expect(UInt64.fromDatabaseValue((-1).databaseValue) == nil)
            #expect(Int32.fromDatabaseValue(Int64.max.databaseValue) == nil)
            // A REAL converts rounded toward zero when in range, as in GRDB.
            #expect(Int.fromDatabaseValue(1.5.databaseValue) == 1)
            #expect(Int.fromDatabaseValue((-1.5).databaseValue) == -1)
            #expect(Int64.fromDatabaseValue(1e30.databaseValue) == nil)
            #expect(Int.fromDatabaseValue(2.0.databaseValue) == 2)
            // Fetching reports the conversion error with the value and the column.
            let error = #expect(throws: RowDecodingError.self) { try Int8.fetchAll(db, sql: "SELECT 300 AS n") }
            #expect(error?.description.contains("could not decode Int8 from database value 300") == true)
            #expect(throws: RowDecodingError.self) { try UInt8.fetchOne(db, sql: "SELECT -1") }
            // Reading a statement column applies SQLite's conversions: a text
            // that is not a number reads as 0, as with sqlite3_column_int64.
            #expect(try Int.fetchOne(db, sql: "SELECT 'abc'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT '12'") == 12)
        }
    }

    @Test("UInt64 above Int64.max is stored as REAL, never a trap")
    func uint64Overflow() throws {
        #expect(UInt64.max.databaseValue == Double(UInt64.max).databaseValue)
        let dbQueue = DatabaseQueue()
        let type = try dbQueue.read { db in try String.fetchOne(db, sql: "SELECT typeof(?)", arguments: [UInt64.max]) }
        #expect(type == "real")
    }

    @Test("Bool, Double, Float, String, Data")
    func basics() throws {
        #expect(try roundTrip(true) == ("integer", true))
        #expect(try roundTrip(false) == ("integer", false))
        #expect(Bool.fromDatabaseValue(2.databaseValue) == true)
        #expect(try roundTrip(3.25) == ("real", 3.25))
        #expect(try roundTrip(-0.0).1?.sign == .minus)
        #expect(try roundTrip(Double.infinity) == ("real", Double.infinity))
        #expect(try roundTrip(Float(1.5)) == ("real", Float(1.5)))
        #expect(try roundTrip("héllo 👋") == ("text", "héllo 👋"))
        #expect(try roundTrip("") == ("text", ""))
        #expect(try roundTrip(Data([0, 1, 2, 255])) == ("blob", Data([0, 1, 2, 255])))
        #expect(try roundTrip(Data()) == ("blob", Data()))
        #expect(String.fromDatabaseValue(1.databaseValue) == nil)
        #expect(Data.fromDatabaseValue("abc".databaseValue) == Data("abc".utf8))
        #expect(Double.fromDatabaseValue(2.databaseValue) == 2.0)
    }

    @Test("NaN is stored as NULL (SQLite's behaviour)")
    func nan() throws {
        let (type, value) = try roundTrip(Double.nan)
        #expect(type == "null")
        #expect(value == nil)
    }

    @Test("UUID is a 16-byte blob, and reads from text too")
    func uuid() throws {
        let uuid = UUID()
        #expect(try roundTrip(uuid) == ("blob", uuid))
        #expect(UUID.fromDatabaseValue(uuid.uuidString.databaseValue) == uuid)
        #expect(UUID.fromDatabaseValue(Data([1, 2]).databaseValue) == nil)
    }

    @Test("Decimal is text, without losing digits")
    func decimal() throws {
        let decimal = Decimal(string: "12345678901234567890.123456789")!
        #expect(try roundTrip(decimal) == ("text", decimal))
        #expect(Decimal.fromDatabaseValue(12.databaseValue) == Decimal(12))
        #expect(Decimal.fromDatabaseValue(1.5.databaseValue) == Decimal(1.5))
    }

    @Test("URL is text")
    func url() throws {
        let url = URL(string: "https://example.com/a?b=c")!
        #expect(try roundTrip(url) == ("text", url))
    }

    @Test("Date is UTC text yyyy-MM-dd HH:mm:ss.SSS")
    func dateFormat() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(date.databaseValue == "2023-11-14 22:13:20.123".databaseValue)
        let (type, value) = try roundTrip(date)
        #expect(type == "text")
        #expect(value == date || abs(value!.timeIntervalSince(date)) < 0.0005)
        #expect(Date(timeIntervalSince1970: 0).databaseValue == "1970-01-01 00:00:00.000".databaseValue)
        #expect(Date(timeIntervalSince1970: -1).databaseValue == "1969-12-31 23:59:59.000".databaseValue)
        #expect(Date(timeIntervalSince1970: 951_782_400).databaseValue == "2000-02-29 00:00:00.000".databaseValue)
    }

    @Test("Date reads SQLite's text formats and Unix timestamps")
    func dateParsing() throws {
        func date(_ text: String) -> TimeInterval? { Date.fromDatabaseValue(text.databaseValue)?.timeIntervalSince1970 }
        #expect(date("2023-11-14") == 1_699_920_000)
        #expect(date("2023-11-14 22:13") == 1_699_999_980)
        #expect(date("2023-11-14 22:13:20") == 1_700_000_000)
        #expect(date("2023-11-14T22:13:20") == 1_700_000_000)
        #expect(abs(date("2023-11-14 22:13:20.5")! - 1_700_000_000.5) < 1e-6)
        #expect(date("2023-11-14T22:13:20Z") == 1_700_000_000)
        #expect(date("2023-11-15T00:13:20+02:00") == 1_700_000_000)
        #expect(date("2023-11-14 20:13:20-02:00") == 1_700_000_000)
        #expect(date("not a date") == nil)
        // Out-of-range components carry over, as Foundation's calendar does.
        #expect(date("2023-13-01") == date("2024-01-01"))
        #expect(date("2023-11-14 25:00") == date("2023-11-15 01:00"))
        // Before the Gregorian reform, Foundation's calendar, as GRDB.
        #expect(date("0000-00-00") == -62_170_156_800)
        #expect(Date(timeIntervalSince1970: -62_167_219_200).databaseValue == "0001-01-03 00:00:00.000".databaseValue)
        // Only three digits of fractional seconds count.
        #expect(date("2023-11-14 22:13:20.1239") == date("2023-11-14 22:13:20.123"))
        // A time alone is not a date, nor a numeric text.
        #expect(date("22:13") == nil)
        #expect(date("1700000000") == nil)
        #expect(abs((Date(julianDay: 2_440_587.75)?.timeIntervalSince1970 ?? 0) - 21600) < 0.001)
        #expect(Date.fromDatabaseValue(1_700_000_000.databaseValue)?.timeIntervalSince1970 == 1_700_000_000)
        #expect(Date.fromDatabaseValue(1.5.databaseValue)?.timeIntervalSince1970 == 1.5)
        // SQLite's own date functions understand what DatabaseKit stores.
        let dbQueue = DatabaseQueue()
        let stored = Date(timeIntervalSince1970: 1_700_000_000)
        let unix = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT unixepoch(?)", arguments: [stored]) }
        #expect(unix == 1_700_000_000)
    }

    @Test("RawRepresentable enums")
    func enums() throws {
        enum Color: String, DatabaseValueConvertible { case red, green }
        enum Level: Int, DatabaseValueConvertible {
            case low = 1
            case high = 2
        }
        #expect(try roundTrip(Color.green) == ("text", .green))
        #expect(try roundTrip(Level.high) == ("integer", .high))
        #expect(Color.fromDatabaseValue("blue".databaseValue) == nil)
    }

    @Test("Optional values bind NULL and read NULL as nil")
    func optionals() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            let none: Int? = nil
            let type = try String.fetchOne(db, sql: "SELECT typeof(?)", arguments: [none])
            #expect(type == "null")
            let ints = try Int?.fetchAll(db, sql: "SELECT 1 UNION ALL SELECT NULL")
            #expect(ints == [1, nil])
            let strings = try String?.fetchAll(db, sql: "SELECT 'a' UNION ALL SELECT NULL")
            #expect(strings == ["a", nil])
            #expect(throws: RowDecodingError.self) { try Int.fetchAll(db, sql: "SELECT NULL") }
        }
    }

    @Test("DatabaseValue storage, equality and description")
    func databaseValue() {
        #expect(DatabaseValue.null.isNull)
        #expect(1.databaseValue == 1.0.databaseValue)
        #expect(1.databaseValue.hashValue == 1.0.databaseValue.hashValue)
        #expect(1.databaseValue != "1".databaseValue)
        #expect("a".databaseValue != Data("a".utf8).databaseValue)
        #expect(DatabaseValue.null.description == "NULL")
        // Swift's String(reflecting:), as GRDB prints it.
        #expect("O'Brien".databaseValue.description == #""O\'Brien""#)
        #expect(#"say "hi""#.databaseValue.description == #""say \"hi\"""#)
        #expect(DatabaseValue(value: nil) == .null)
        #expect(DatabaseValue(value: 3) == 3.databaseValue)
        guard case .int64(3) = 3.databaseValue.storage else {
            Issue.record("expected int64 storage")
            return
        }
    }

    @Test("a custom DatabaseValueConvertible type")
    func customType() throws {
        struct Email: DatabaseValueConvertible, Equatable {
            var address: String
            var databaseValue: DatabaseValue { address.databaseValue }
            static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Email? {
                String.fromDatabaseValue(dbValue).map(Email.init)
            }
        }
        #expect(try roundTrip(Email(address: "a@b.c")) == ("text", Email(address: "a@b.c")))
        let dbQueue = DatabaseQueue()
        let emails = try dbQueue.read { db in try Email.fetchAll(db, sql: "SELECT 'x@y.z'") }
        #expect(emails == [Email(address: "x@y.z")])
    }

    /// Reads itself from the statement, and refuses negative integers.
    struct Natural: DatabaseValueConvertible, StatementColumnConvertible, Equatable {
        var value: Int64
        init(value: Int64) { self.value = value }
        init?(sqliteStatement: SQLiteStatement, index: CInt) {
            guard sqlite3_column_type(sqliteStatement, index) == SQLITE_INTEGER else { return nil }
            let value = sqlite3_column_int64(sqliteStatement, index)
            guard value >= 0 else { return nil }
            self.value = value
        }
        var databaseValue: DatabaseValue { value.databaseValue }
        static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Natural? {
            Int64.fromDatabaseValue(dbValue).flatMap { $0 >= 0 ? Natural(value: $0) : nil }
        }
    }

    @Test("fetchOne of a type that reads the statement: value, NULL and no row are values; a refused value throws")
    func statementColumnFetchOne() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws -> Void in
            #expect(try Natural.fetchOne(db, sql: "SELECT ?", arguments: [7]) == Natural(value: 7))
            #expect(try Natural.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Natural.fetchOne(db, sql: "SELECT 1 WHERE 0") == nil)
            #expect(throws: RowDecodingError.self) { try Natural.fetchOne(db, sql: "SELECT ?", arguments: [-1]) }
            // The statement is reset after the error: the same SQL runs again.
            #expect(try Natural.fetchOne(db, sql: "SELECT ?", arguments: [8]) == Natural(value: 8))
            // Through an adapter, the same rules.
            let adapter = SuffixRowAdapter(fromIndex: 1)
            #expect(try Natural.fetchOne(db, sql: "SELECT -5, ?", arguments: [9], adapter: adapter) == Natural(value: 9))
            #expect(throws: RowDecodingError.self) {
                try Natural.fetchOne(db, sql: "SELECT 5, ?", arguments: [-9], adapter: adapter)
            }
        }
    }

    @Test("a column read from the statement tells NULL from zero, and applies SQLite's conversions to the rest")
    func statementColumnZeroAndNull() throws {
        // Numbers are read with one call, and NULL reads as 0: only a zero
        // asks for the column's type. Every kind of zero must stay a value.
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws -> Void in
            let sql = "SELECT 0, 0.0, -0.0, '0', 'abc', NULL, 0.5, '', x'', 7, 2.5"
            let rows = try Row.fetchCursor(db, sql: sql)
            let row = try #require(try rows.next())
            // Zeros of every storage class are 0, not nil.
            for index in 0...4 {
                #expect(row[index] as Int? == 0, "column \(index)")
                #expect(row[index] as Int64? == 0, "column \(index)")
                #expect(row[index] as Int32? == 0, "column \(index)")
                #expect(row[index] as UInt8? == 0, "column \(index)")
                #expect(row[index] as Bool? == false, "column \(index)")
                #expect(row[index] as Double? == 0, "column \(index)")
                #expect(row[index] as Int == 0, "column \(index)")
                #expect(row[index] as Double == 0, "column \(index)")
            }
            // NULL is nil for every type, and an error for a non-optional one.
            #expect(row[5] as Int? == nil)
            #expect(row[5] as Int64? == nil)
            #expect(row[5] as UInt8? == nil)
            #expect(row[5] as Bool? == nil)
            #expect(row[5] as Double? == nil)
            #expect(row[5] as String? == nil)
            #expect(throws: RowDecodingError.self) { try row.decode(Int.self, atIndex: 5) }
            #expect(throws: RowDecodingError.self) { try row.decode(Double.self, atIndex: 5) }
            #expect(throws: RowDecodingError.self) { try row.decode(String.self, atIndex: 5) }
            // SQLite's conversions: a REAL read as an integer is truncated
            // (so 0.5 is false, as GRDB reads a Bool from the statement), an
            // empty text is an empty string, not NULL.
            #expect(row[6] as Int == 0)
            #expect(row[6] as Bool == false)
            #expect(row[7] as String? == "")
            #expect(row[8] as String? == "")
            #expect(row[0] as String == "0")
            #expect(row[9] as Int == 7)
            #expect(row[10] as Double == 2.5)
            #expect(row[10] as String == "2.5")
            // Reading a number first leaves the column's type alone: its
            // text reads afterwards as SQLite gives it.
            #expect(row[4] as String == "abc")
        }
        // Through the fetch methods, which read the statement the same way.
        try dbQueue.read { (db: Database) throws -> Void in
            #expect(try Int.fetchOne(db, sql: "SELECT 0") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Double.fetchOne(db, sql: "SELECT 0.0") == 0)
            #expect(try Double.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Bool.fetchOne(db, sql: "SELECT 0") == false)
            #expect(try String.fetchOne(db, sql: "SELECT ''") == "")
            #expect(try String.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Int?.fetchAll(db, sql: "SELECT column1 FROM (VALUES (0), (NULL), (3))") == [0, nil, 3])
            #expect(throws: RowDecodingError.self) {
                try Int.fetchAll(db, sql: "SELECT column1 FROM (VALUES (0), (NULL), (3))")
            }
        }
    }
}

extension DatabaseValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = value.databaseValue }
}
