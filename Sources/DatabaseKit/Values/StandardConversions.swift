internal import DatabaseKitSQLite
import Foundation

// Conversions of the standard library types. Every integer conversion is exact:
// a value that does not fit the requested width fails to convert (and fetching
// reports an error) instead of wrapping around.

/// The integer types: stored as INTEGER, read from INTEGER or from integral REAL.
///
/// Each type implements the requirements itself (through the inlined helpers
/// below) rather than inheriting a protocol extension's default: a default
/// would be called through a generic thunk on every column read.
protocol DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible, StatementColumnConvertible {}

@inline(__always)
private func integerDatabaseValue<T: FixedWidthInteger>(_ value: T) -> DatabaseValue {
    DatabaseValue(storage: .int64(exactInt64(value)))
}

@inline(__always)
private func exactInt64<T: FixedWidthInteger>(_ value: T) -> Int64 {
    guard let int64 = Int64(exactly: value) else {
        // SQLite integers are signed 64-bit: there is no lossless place for this value.
        preconditionFailure("\(T.self) value \(value) does not fit in SQLite's 64-bit signed INTEGER")
    }
    return int64
}

@inline(__always)
private func integer<T: FixedWidthInteger>(_ type: T.Type, from dbValue: DatabaseValue) -> T? {
    switch dbValue.storage {
    case .int64(let int64): return T(exactly: int64)
    case .double(let double): return T(exactly: double)
    default: return nil
    }
}

/// Reads an integer column with a single call into SQLite's column API.
///
/// `sqlite3_column_value` returns an "unprotected" value, which the SQLite
/// documentation says is not thread-safe to read: DatabaseKit only reads it on
/// the connection's own thread, inside its access block.
@inline(__always)
private func integer<T: FixedWidthInteger>(_ type: T.Type, _ sqliteStatement: OpaquePointer, _ index: CInt) -> T? {
    let value = sqlite3_column_value(sqliteStatement, index)
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return T(exactly: sqlite3_value_int64(value))
    case SQLITE_FLOAT: return T(exactly: sqlite3_value_double(value))
    default: return nil
    }
}

extension Int: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of Int.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int? { integer(Int.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(Int.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int8: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of Int8.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int8? { integer(Int8.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(Int8.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int16: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of Int16.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int16? { integer(Int16.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(Int16.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int32: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of Int32.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int32? { integer(Int32.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(Int32.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int64: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of Int64.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? { integer(Int64.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(Int64.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of UInt.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt? { integer(UInt.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(UInt.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt8: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of UInt8.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt8? { integer(UInt8.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(UInt8.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt16: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of UInt16.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt16? { integer(UInt16.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(UInt16.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt32: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of UInt32.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt32? { integer(UInt32.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(UInt32.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt64: DatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue(self) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, exactInt64(self))
    }

    /// INTEGER, or an integral REAL, within the range of UInt64.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt64? { integer(UInt64.self, from: dbValue) }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = integer(UInt64.self, sqliteStatement, index) else { return nil }
        self = value
    }
}

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
        let value = sqlite3_column_value(sqliteStatement, index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = sqlite3_value_int64(value) != 0
        case SQLITE_FLOAT: self = sqlite3_value_double(value) != 0
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
        let value = sqlite3_column_value(sqliteStatement, index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER, SQLITE_FLOAT: self = sqlite3_value_double(value)
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
        let value = sqlite3_column_value(sqliteStatement, index)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        self = valueString(value)
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
        let value = sqlite3_column_value(sqliteStatement, index)
        switch sqlite3_value_type(value) {
        case SQLITE_BLOB, SQLITE_TEXT: self = valueData(value)
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
