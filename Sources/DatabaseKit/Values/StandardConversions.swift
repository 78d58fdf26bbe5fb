internal import DatabaseKitSQLite
import FoundationEssentials

// Conversions of the standard library types, as GRDB defines them. There are
// two kinds, and they differ on purpose:
//
// - Reading a column of a statement (`init(sqliteStatement:index:)`, used when
//   a fetch or a cursor row reads a non-NULL column) applies SQLite's own
//   conversions (<https://www.sqlite.org/c3ref/column_blob.html>): an INTEGER
//   read as a String is its text, a TEXT read as an Int is parsed as SQLite
//   does.
// - Converting a `DatabaseValue` (`fromDatabaseValue`, used for copied rows
//   and arbitrary values) is stricter: a String comes from TEXT or a UTF-8
//   BLOB, a number from INTEGER or REAL.
//
// Storing never traps: an unsigned integer beyond Int64.max, which SQLite's
// INTEGER can not hold, is stored as REAL.

/// An unsigned integer as SQLite stores it: INTEGER when it fits Int64, REAL
/// beyond.
@inline(__always)
private func databaseValue<T: UnsignedInteger & FixedWidthInteger>(unsigned value: T) -> DatabaseValue {
    if let int64 = Int64(exactly: value) { return DatabaseValue(storage: .int64(int64)) }
    return DatabaseValue(storage: .double(Double(value)))
}

@inline(__always)
private func bind<T: UnsignedInteger & FixedWidthInteger>(unsigned value: T, _ statement: SQLiteStatement, _ index: CInt) -> CInt {
    if let int64 = Int64(exactly: value) { return sqlite3_bind_int64(statement, index, int64) }
    return sqlite3_bind_double(statement, index, Double(value))
}

extension Bool: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as the integer 0 or 1.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self ? 1 : 0)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, self ? 1 : 0)
    }

    /// An INTEGER or REAL is true when it is not zero; other values do not
    /// convert.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let int64): return int64 != 0
        case .double(let double): return double != 0
        default: return nil
        }
    }

    /// SQLite's integer conversion of the column is not zero (a TEXT "1" is
    /// true, "0" or "no" false).
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqlite3_column_int64(sqliteStatement, index) != 0
    }

    /// nil for NULL; one call into SQLite unless the value reads as zero
    /// (see ``columnInt64(_:_:)``). Inlinable, like the other numbers': a
    /// column read in the caller's loop calls the reading function directly,
    /// not through the protocol witness, whose generic convention returns
    /// the value through memory.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Bool? {
        columnInt64(sqliteStatement, index).map { $0 != 0 }
    }
}

extension Int64: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, self)
    }

    /// An INTEGER, or a REAL within the range of Int64, rounded toward zero.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? {
        switch dbValue.storage {
        case .int64(let int64):
            return int64
        case .double(let double):
            // Double(Int64.max) rounds up to 2^63, out of range: hence `<`.
            guard double >= -9_223_372_036_854_775_808.0, double < 9_223_372_036_854_775_808.0 else { return nil }
            return Int64(double)
        default:
            return nil
        }
    }

    /// SQLite's integer conversion of the column.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqlite3_column_int64(sqliteStatement, index)
    }

    /// nil for NULL; one call into SQLite unless the value reads as zero
    /// (see ``columnInt64(_:_:)``).
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Int64? {
        columnInt64(sqliteStatement, index)
    }
}

/// The signed and unsigned integers other than Int64: converted through
/// Int64, and failing to convert when the value does not fit.
@usableFromInline
protocol NarrowDatabaseInteger: FixedWidthInteger, DatabaseValueConvertible, StatementColumnConvertible {}

extension NarrowDatabaseInteger {
    /// Int64's conversion, when the value fits the type.
    @inline(__always)
    static func narrow(_ dbValue: DatabaseValue) -> Self? {
        Int64.fromDatabaseValue(dbValue).flatMap { Self(exactly: $0) }
    }

    /// SQLite's integer conversion of the column, when it fits the type.
    @inline(__always)
    static func narrow(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> Self? {
        Self(exactly: sqlite3_column_int64(sqliteStatement, index))
    }

    /// nil for NULL, or when the value does not fit; one call into SQLite
    /// unless the value reads as zero (see ``columnInt64(_:_:)``).
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self? {
        guard let value = columnInt64(sqliteStatement, index) else { return nil }
        return Self(exactly: value)
    }
}

/// SQLite's integer conversion of a column, nil when it is NULL.
///
/// Called by the inlinable column readers of the number types, which can not
/// call SQLite themselves (its module is imported internally).
///
/// One call into SQLite for the usual column: NULL reads as 0, so only a
/// zero needs `sqlite3_column_type` to tell a NULL from a zero. Reading a
/// number never converts the column's value in place (only the text, blob
/// and byte-count functions do, <https://www.sqlite.org/c3ref/column_blob.html>),
/// so the type read afterwards is still the column's own.
@usableFromInline @inline(__always)
func columnInt64(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> Int64? {
    let value = sqlite3_column_int64(sqliteStatement, index)
    if value == 0 && sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL { return nil }
    return value
}

/// True when the column is NULL.
@inline(__always)
func columnIsNull(_ sqliteStatement: SQLiteStatement, at index: CInt) -> Bool {
    sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL
}

/// SQLite's REAL conversion of a column, nil when it is NULL: as
/// ``columnInt64(_:_:)``, one call unless the value reads as zero.
@usableFromInline @inline(__always)
func columnDouble(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> Double? {
    let value = sqlite3_column_double(sqliteStatement, index)
    if value == 0 && sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL { return nil }
    return value
}

/// The value of a column, nil when it is NULL: one call into SQLite, where
/// `sqlite3_column_type` followed by `sqlite3_column_text` and
/// `sqlite3_column_bytes` would make three. The value is read at once, on
/// the connection's thread, as the `sqlite3_column_*` functions do. It is an
/// "unprotected" value, which the `sqlite3_value_*` functions may read here:
/// connections are opened with `SQLITE_OPEN_NOMUTEX`, and
/// > If SQLite is run in one of reduced mutex modes [...] then there is no
/// > distinction between protected and unprotected sqlite3_value objects
/// (<https://www.sqlite.org/c3ref/value.html>).
@inline(__always)
func columnValue(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> OpaquePointer? {
    guard let value = sqlite3_column_value(sqliteStatement, index), sqlite3_value_type(value) != SQLITE_NULL else { return nil }
    return value
}

extension Int: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int8: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int8? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int16: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int16? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Int32: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int32? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt: NarrowDatabaseInteger {
    /// Stored as INTEGER, or REAL beyond Int64.max.
    public var databaseValue: DatabaseValue { DatabaseKit.databaseValue(unsigned: self) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        DatabaseKit.bind(unsigned: self, sqliteStatement, index)
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt8: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt8? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt16: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt16? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt32: NarrowDatabaseInteger {
    /// Stored as INTEGER.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, Int64(self))
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt32? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension UInt64: NarrowDatabaseInteger {
    /// Stored as INTEGER, or REAL beyond Int64.max.
    public var databaseValue: DatabaseValue { DatabaseKit.databaseValue(unsigned: self) }
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        DatabaseKit.bind(unsigned: self, sqliteStatement, index)
    }
    /// Int64's conversion, when the value fits.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UInt64? { narrow(dbValue) }
    /// SQLite's integer conversion, when the value fits.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Self.narrow(sqliteStatement, index) else { return nil }
        self = value
    }
}

extension Double: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as REAL. SQLite stores NaN as NULL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_double(sqliteStatement, index, self)
    }

    /// An INTEGER or a REAL.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue.storage {
        case .int64(let int64): return Double(int64)
        case .double(let double): return double
        default: return nil
        }
    }

    /// SQLite's REAL conversion of the column.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = sqlite3_column_double(sqliteStatement, index)
    }

    /// nil for NULL; one call into SQLite unless the value reads as zero
    /// (see ``columnDouble(_:_:)``).
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Double? {
        columnDouble(sqliteStatement, index)
    }
}

extension Float: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        sqlite3_bind_double(sqliteStatement, index, Double(self))
    }

    /// An INTEGER or a REAL.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
        switch dbValue.storage {
        case .int64(let int64): return Float(int64)
        case .double(let double): return Float(double)
        default: return nil
        }
    }

    /// SQLite's REAL conversion of the column.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = Float(sqlite3_column_double(sqliteStatement, index))
    }
}

extension String: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as TEXT (UTF-8).
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        bindText(self, to: sqliteStatement, at: index)
    }

    /// A TEXT, or a BLOB that holds valid UTF-8.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        switch dbValue.storage {
        case .string(let string): return string
        case .blob(let data): return String(data: data, encoding: .utf8)
        default: return nil
        }
    }

    /// SQLite's text conversion of the column: an INTEGER or a REAL gives
    /// its text, a BLOB its bytes as UTF-8.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = columnString(sqliteStatement, index)
    }

    /// nil for NULL; one call into SQLite for the text and its length (see
    /// ``columnValue(_:_:)``).
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> String? {
        guard let value = columnValue(sqliteStatement, index) else { return nil }
        return valueString(value)
    }
}

extension Data: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as BLOB; empty data is an empty blob, not NULL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        bindBlob(self, to: sqliteStatement, at: index)
    }

    /// A BLOB, or the UTF-8 bytes of a TEXT.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let data): return data
        case .string(let string): return Data(string.utf8)
        default: return nil
        }
    }

    /// SQLite's blob conversion of the column: the bytes of its value.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self = columnData(sqliteStatement, index)
    }
}
