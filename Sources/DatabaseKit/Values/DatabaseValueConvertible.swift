internal import DatabaseKitSQLite
import Foundation

/// A raw SQLite statement handle (`sqlite3_stmt *`).
public typealias SQLiteStatement = OpaquePointer

/// A raw SQLite connection handle (`sqlite3 *`).
public typealias SQLiteConnection = OpaquePointer

/// A type that can bind itself to a statement parameter.
public protocol StatementBinding {
    /// Binds the value to the parameter at `index` (1-based) and returns
    /// SQLite's result code.
    func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt
}

/// A type that converts to and from database values.
///
/// Conform your own types by providing ``databaseValue`` and
/// ``fromDatabaseValue(_:)``:
///
/// ```swift
/// struct Email: DatabaseValueConvertible {
///     var address: String
///     var databaseValue: DatabaseValue { address.databaseValue }
///     static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Email? {
///         String.fromDatabaseValue(dbValue).map(Email.init)
///     }
/// }
/// ```
///
/// `RawRepresentable` types whose raw value is convertible (Swift enums) get both
/// requirements for free.
public protocol DatabaseValueConvertible: StatementBinding {
    /// The value to store in the database.
    var databaseValue: DatabaseValue { get }

    /// Returns a value initialized from a database value, or nil when the database
    /// value can not be converted (NULL included, except for `Optional`).
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// The value for a column that a row does not contain, or nil to report
    /// an error. Only `Optional` returns a value (nil).
    static func fromMissingColumn() -> Self?
}

extension DatabaseValueConvertible {
    /// Binds ``databaseValue``.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        databaseValue.bind(to: sqliteStatement, at: index)
    }

    /// Missing columns are an error by default.
    public static func fromMissingColumn() -> Self? { nil }
}

/// A type that reads itself straight from a statement column, without building
/// an intermediate ``DatabaseValue``: the fast path of fetching.
///
/// ```swift
/// extension Celsius: StatementColumnConvertible {
///     init?(sqliteStatement: SQLiteStatement, index: CInt) {
///         guard sqlite3_column_type(sqliteStatement, index) == SQLITE_FLOAT else { return nil }
///         self.init(degrees: sqlite3_column_double(sqliteStatement, index))
///     }
/// }
/// ```
public protocol StatementColumnConvertible {
    /// Reads column `index` (0-based) of the current row, or returns nil when
    /// the column can not be converted (NULL included, except for `Optional`).
    init?(sqliteStatement: SQLiteStatement, index: CInt)
}

extension DatabaseValue: StatementBinding {
    /// Binds the value with the matching `sqlite3_bind_*` function.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        switch storage {
        case .null:
            return sqlite3_bind_null(sqliteStatement, index)
        case .int64(let int64):
            return sqlite3_bind_int64(sqliteStatement, index, int64)
        case .double(let double):
            return sqlite3_bind_double(sqliteStatement, index, double)
        case .string(let string):
            return bindText(string, to: sqliteStatement, at: index)
        case .blob(let data):
            return bindBlob(data, to: sqliteStatement, at: index)
        }
    }
}

/// Binds a text with its byte length, so that NUL characters are kept.
@inline(__always)
func bindText(_ string: String, to sqliteStatement: OpaquePointer, at index: CInt) -> CInt {
    var string = string
    return string.withUTF8 { buffer in
        guard let base = buffer.baseAddress else {
            return dbkit_bind_text_transient(sqliteStatement, index, "", 0)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            dbkit_bind_text_transient(sqliteStatement, index, $0, CInt(buffer.count))
        }
    }
}

/// Binds a blob. Empty data is bound as a zero-length blob, never as NULL
/// (`sqlite3_bind_blob` with a NULL pointer would bind NULL).
@inline(__always)
func bindBlob(_ data: Data, to sqliteStatement: OpaquePointer, at index: CInt) -> CInt {
    if data.isEmpty {
        return sqlite3_bind_zeroblob(sqliteStatement, index, 0)
    }
    return data.withUnsafeBytes { buffer in
        dbkit_bind_blob_transient(sqliteStatement, index, buffer.baseAddress, CInt(buffer.count))
    }
}

// MARK: - Optional

extension Optional: StatementBinding where Wrapped: DatabaseValueConvertible {
    /// Binds the wrapped value, or NULL.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        switch self {
        case .none: return sqlite3_bind_null(sqliteStatement, index)
        case .some(let value): return value.bind(to: sqliteStatement, at: index)
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// The wrapped value's database value, or NULL.
    public var databaseValue: DatabaseValue {
        self?.databaseValue ?? .null
    }

    /// NULL gives `.some(nil)`; other values are converted by `Wrapped`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if dbValue.isNull { return .some(nil) }
        return Wrapped.fromDatabaseValue(dbValue).map { .some($0) }
    }

    /// A missing column decodes as nil.
    public static func fromMissingColumn() -> Wrapped?? { .some(nil) }
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    /// NULL gives `.some(nil)`; other values are converted by `Wrapped`.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL {
            self = Optional<Wrapped>.none  // a successful init whose value is nil
        } else if let value = Wrapped(sqliteStatement: sqliteStatement, index: index) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

// MARK: - RawRepresentable (Swift enums)

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    /// A value whose raw value converts from the database value.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap(Self.init(rawValue:))
    }
}
