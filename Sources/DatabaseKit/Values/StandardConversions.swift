internal import DatabaseKitSQLite
import Foundation

// Conversions of the standard library types. Every integer conversion is exact:
// a value that does not fit the requested width fails to convert (and fetching
// reports an error) instead of wrapping around.

/// The integer types: stored as INTEGER, read from INTEGER or from integral REAL.
protocol DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible, StatementColumnConvertible {}

extension DatabaseInteger {
    public var databaseValue: DatabaseValue {
        guard let int64 = Int64(exactly: self) else {
            // SQLite integers are signed 64-bit: there is no lossless place for this value.
            preconditionFailure("\(Self.self) value \(self) does not fit in SQLite's 64-bit signed INTEGER")
        }
        return DatabaseValue(storage: .int64(int64))
    }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        guard let int64 = Int64(exactly: self) else {
            preconditionFailure("\(Self.self) value \(self) does not fit in SQLite's 64-bit signed INTEGER")
        }
        return sqlite3_bind_int64(sqliteStatement, index, int64)
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue.storage {
        case .int64(let int64): return Self(exactly: int64)
        case .double(let double): return Self(exactly: double)
        default: return nil
        }
    }

    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            guard let value = Self(exactly: sqlite3_column_int64(sqliteStatement, index)) else { return nil }
            self = value
        case SQLITE_FLOAT:
            guard let value = Self(exactly: sqlite3_column_double(sqliteStatement, index)) else { return nil }
            self = value
        default:
            return nil
        }
    }
}

extension Int: DatabaseInteger {}
extension Int8: DatabaseInteger {}
extension Int16: DatabaseInteger {}
extension Int32: DatabaseInteger {}
extension Int64: DatabaseInteger {}
extension UInt: DatabaseInteger {}
extension UInt8: DatabaseInteger {}
extension UInt16: DatabaseInteger {}
extension UInt32: DatabaseInteger {}
extension UInt64: DatabaseInteger {}

extension Bool: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as the integer 0 or 1.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self ? 1 : 0)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, self ? 1 : 0)
    }

    /// Any non-zero number is true.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let int64): return int64 != 0
        case .double(let double): return double != 0
        default: return nil
        }
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER: self = sqlite3_column_int64(sqliteStatement, index) != 0
        case SQLITE_FLOAT: self = sqlite3_column_double(sqliteStatement, index) != 0
        default: return nil
        }
    }
}

extension Double: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as REAL. SQLite stores NaN as NULL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_double(sqliteStatement, index, self)
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue.storage {
        case .int64(let int64): return Double(int64)
        case .double(let double): return double
        default: return nil
        }
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER, SQLITE_FLOAT: self = sqlite3_column_double(sqliteStatement, index)
        default: return nil
        }
    }
}

extension Float: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
        Double.fromDatabaseValue(dbValue).map(Float.init)
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let double = Double(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = Float(double)
    }
}

extension String: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as TEXT (UTF-8).
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        bindText(self, to: sqliteStatement, at: index)
    }

    /// Only TEXT converts to String.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        if case .string(let string) = dbValue.storage { return string }
        return nil
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT else { return nil }
        self = columnString(sqliteStatement, index)
    }
}

extension Data: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as BLOB; empty data is an empty blob, not NULL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        bindBlob(self, to: sqliteStatement, at: index)
    }

    /// BLOB, or the UTF-8 bytes of a TEXT.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let data): return data
        case .string(let string): return Data(string.utf8)
        default: return nil
        }
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_BLOB, SQLITE_TEXT: self = columnData(sqliteStatement, index)
        default: return nil
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// Stored as a 16-byte BLOB.
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { DatabaseValue(storage: .blob(Data($0))) }
    }

    /// A 16-byte BLOB, or a TEXT such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue.storage {
        case .blob(let data) where data.count == 16:
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data) }
            return UUID(uuid: uuid)
        case .string(let string):
            return UUID(uuidString: string)
        default:
            return nil
        }
    }
}

extension Decimal: DatabaseValueConvertible {
    /// Stored as TEXT, so that no digit is lost.
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(NSDecimalNumber(decimal: self).description(withLocale: posixLocale)))
    }

    /// INTEGER, REAL, or a TEXT holding a decimal number.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue.storage {
        case .int64(let int64): return Decimal(int64)
        case .double(let double): return Decimal(double)
        case .string(let string): return Decimal(string: string, locale: posixLocale)
        default: return nil
        }
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")

extension URL: DatabaseValueConvertible {
    /// Stored as its absolute string.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        String.fromDatabaseValue(dbValue).flatMap { URL(string: $0) }
    }
}
