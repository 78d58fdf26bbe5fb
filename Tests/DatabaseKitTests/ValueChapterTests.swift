import DatabaseKit
import Foundation
import Testing

@Suite("Values: date components, NSNumber and Decimal, Data without copy, memory")
struct ValueChapterTests {
    @Test(
        "DatabaseDateComponents writes and reads back each format",
        arguments: [
            ("2026-11-23", DatabaseDateComponents.Format.YMD),
            ("2026-11-23 14:30", .YMD_HM),
            ("2026-11-23 14:30:15", .YMD_HMS),
            ("2026-11-23 14:30:15.250", .YMD_HMSS),
            ("14:30", .HM),
            ("14:30:15", .HMS),
            ("14:30:15.250", .HMSS),
        ])
    func dateComponentsFormats(text: String, format: DatabaseDateComponents.Format) throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t (value TEXT)")
            let parsed = try #require(DatabaseDateComponents.fromDatabaseValue(text.databaseValue))
            #expect(parsed.format == format)
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [parsed])
            #expect(try String.fetchOne(db, sql: "SELECT value FROM t") == text)
            let fetched = try #require(try DatabaseDateComponents.fetchOne(db, sql: "SELECT value FROM t"))
            #expect(fetched == parsed)
            if format.rawValue.hasPrefix("yyyy") {
                #expect(fetched.dateComponents.year == 2026 && fetched.dateComponents.day == 23)
                // SQLite's date functions read the stored text.
                #expect(try String.fetchOne(db, sql: "SELECT date(value) FROM t") == "2026-11-23")
            } else {
                #expect(fetched.dateComponents.year == nil && fetched.dateComponents.hour == 14)
            }
        }
    }

    @Test("DatabaseDateComponents: T separator, time zones, missing components, invalid text")
    func dateComponentsDetails() throws {
        let utc = try #require(DatabaseDateComponents.fromDatabaseValue("2026-11-23T08:00:00Z".databaseValue))
        #expect(utc.format == .YMD_HMS)
        #expect(utc.dateComponents.timeZone?.secondsFromGMT() == 0)
        // As GRDB: the time zone is read, not written.
        #expect(utc.databaseValue == "2026-11-23 08:00:00".databaseValue)
        let offset = try #require(DatabaseDateComponents.fromDatabaseValue("08:00-05:30".databaseValue))
        #expect(offset.dateComponents.timeZone?.secondsFromGMT() == -(5 * 3600 + 30 * 60))
        #expect(offset.databaseValue == "08:00".databaseValue)
        // A missing month or day is written 1.
        let sparse = DatabaseDateComponents(DateComponents(year: 2026, hour: 9), format: .YMD_HM)
        #expect(sparse.databaseValue == "2026-01-01 09:00".databaseValue)
        // Values are not range-checked: "0000-00-00" is an undefined date, not an error.
        let undefined = try #require(DatabaseDateComponents.fromDatabaseValue("0000-00-00".databaseValue))
        #expect(undefined.format == .YMD)
        #expect([undefined.dateComponents.year, undefined.dateComponents.month, undefined.dateComponents.day] == [0, 0, 0])
        #expect(DatabaseDateComponents.fromDatabaseValue("2026-11-23 25:00".databaseValue)?.dateComponents.hour == 25)
        // Fractional seconds keep three digits, truncated.
        let precise = try #require(DatabaseDateComponents.fromDatabaseValue("12:00:00.123999Z".databaseValue))
        #expect(precise.format == .HMSS && precise.dateComponents.nanosecond == 123_000_000)
        #expect(DatabaseDateComponents.fromDatabaseValue("12:00:00.5".databaseValue)?.dateComponents.nanosecond == 500_000_000)
        for invalid in ["", "14", "14:30:", "2026-11-23x", "today", "2026-11-23 12:00Zx", "12:00:00."] {
            #expect(DatabaseDateComponents.fromDatabaseValue(invalid.databaseValue) == nil, "\(invalid)")
        }
        #expect(DatabaseDateComponents.fromDatabaseValue(12.databaseValue) == nil)
    }

    @Test("DatabaseDateComponents in a Codable record is stored as its text")
    func dateComponentsInRecord() throws {
        struct Event: Codable, FetchableRecord, PersistableRecord {
            var id: Int64
            var day: DatabaseDateComponents
        }
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.create(table: "event") { t in
                t.primaryKey("id", .integer)
                t.column("day", .text)
            }
            let day = DatabaseDateComponents(DateComponents(year: 2026, month: 1, day: 2), format: .YMD)
            try Event(id: 1, day: day).insert(db)
            #expect(try String.fetchOne(db, sql: "SELECT day FROM event") == "2026-01-02")
            #expect(try Event.fetchOne(db, key: 1)?.day == day)
            // As JSON, it encodes as the same text.
            #expect(String(decoding: try JSONEncoder().encode([day]), as: UTF8.self) == #"["2026-01-02"]"#)
        }
    }

    @Test("NSNumber and NSDecimalNumber store integers as INTEGER, others as REAL")
    func numbers() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            func storedType(_ value: any DatabaseValueConvertible) throws -> String? {
                try String.fetchOne(db, sql: "SELECT typeof(?)", arguments: [value])
            }
            #expect(try storedType(NSNumber(value: 42)) == "integer")
            #expect(try storedType(NSNumber(value: true)) == "integer")
            #expect(try storedType(NSNumber(value: Int64.max)) == "integer")
            #expect(try storedType(NSNumber(value: UInt64.max)) == "real")
            #expect(try storedType(NSNumber(value: 1.5)) == "real")
            #expect(try storedType(NSDecimalNumber(string: "12")) == "integer")
            #expect(try storedType(NSDecimalNumber(string: "9223372036854775807")) == "integer")
            #expect(try storedType(NSDecimalNumber(string: "12.5")) == "real")
            #expect(try NSNumber.fetchOne(db, sql: "SELECT 42") == NSNumber(value: 42))
            #expect(try NSNumber.fetchOne(db, sql: "SELECT 1.5")?.doubleValue == 1.5)
            #expect(throws: RowDecodingError.self) { try NSNumber.fetchOne(db, sql: "SELECT 'x'") }
            #expect(try NSDecimalNumber.fetchOne(db, sql: "SELECT '3.14159265358979323846'")?.stringValue == "3.14159265358979323846")
            #expect(try NSDecimalNumber.fetchOne(db, sql: "SELECT 7")?.intValue == 7)
            // Decimal keeps every digit: it is stored as TEXT.
            let decimal = try #require(Decimal(string: "12345678901234567890.123456789"))
            #expect(try storedType(decimal) == "text")
            #expect(try Decimal.fetchOne(db, sql: "SELECT ?", arguments: [decimal]) == decimal)
        }
    }

    @Test("withUnsafeData reads a cursor's BLOB without copying it")
    func unsafeData() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t (data BLOB)")
            let large = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
            try db.execute(
                sql: "INSERT INTO t VALUES (?), (NULL), (?), ('text'), (?)", arguments: [Data([1, 2, 3]), Data(), large])
            let cursor = try Row.fetchCursor(db, sql: "SELECT data FROM t ORDER BY rowid")
            var results: [Data?] = []
            while let row = try cursor.next() {
                try row.withUnsafeData(atIndex: 0) { data in
                    // Foundation keeps blobs of up to 14 bytes inline (a copy
                    // with no allocation); larger ones point into SQLite.
                    if let data, data.count > 14 {
                        let address = data.withUnsafeBytes { $0.baseAddress }
                        #expect(address == sqlite3ColumnBlob(cursor.statement.sqliteStatement, 0))
                    }
                    results.append(data.map { Data($0) })
                }
            }
            #expect(results == [Data([1, 2, 3]), nil, Data(), Data("text".utf8), large])
            let copied = try #require(try Row.fetchOne(db, sql: "SELECT data AS d FROM t ORDER BY rowid"))
            #expect(try copied.withUnsafeData(named: "d") { $0 } == Data([1, 2, 3]))
            #expect(try copied.withUnsafeData(named: "missing") { $0 } == nil)
        }
    }

    @Test("releaseMemory finalizes the cached statements; the cache is bounded")
    func releaseMemory() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t (a)")
            for index in 0..<300 {
                _ = try Int.fetchOne(db, sql: "SELECT \(index) FROM t")
            }
            let connection = try #require(db.sqliteConnection)
            #expect(liveStatementCount(connection) <= 256 + 8)
            #expect(try db.primaryKey("t").columns == ["rowid"])
            db.releaseMemory()
            #expect(liveStatementCount(connection) == 0)
            #expect(try db.primaryKey("t").columns == ["rowid"])  // read again after the schema cache is freed
        }
        dbQueue.releaseMemory()
    }
}
