internal import DatabaseKitSQLite
import FoundationEssentials

/// A raw SQLite statement handle (`sqlite3_stmt *`).
public typealias SQLiteStatement = OpaquePointer

/// A raw SQLite connection handle (`sqlite3 *`).
public typealias SQLiteConnection = OpaquePointer

/// A raw SQLite value handle (`sqlite3_value *`).
public typealias SQLiteValue = OpaquePointer

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
/// `RawRepresentable` types whose raw value is convertible (Swift enums) get
/// both requirements for free, and so do `Codable` types, stored as JSON
/// (see ``databaseJSONEncoder()``).
public protocol DatabaseValueConvertible: SQLExpressible, StatementBinding {
    /// The value to store in the database.
    var databaseValue: DatabaseValue { get }

    /// Returns a value initialized from a database value, or nil when the database
    /// value can not be converted (NULL included, except for `Optional`).
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// The value for a column that a row does not contain, or nil to report
    /// an error. Only `Optional` returns a value (nil): do not implement it.
    static func fromMissingColumn() -> Self?

    /// The decoder of the JSON that a `Decodable` value is stored as.
    static func databaseJSONDecoder() -> JSONDecoder

    /// The encoder of the JSON that an `Encodable` value is stored as.
    static func databaseJSONEncoder() -> JSONEncoder
}

extension DatabaseValueConvertible {
    /// Binds ``databaseValue``.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        databaseValue.bind(to: sqliteStatement, at: index)
    }

    /// Missing columns are an error by default.
    public static func fromMissingColumn() -> Self? { nil }

    /// The value, as an SQL expression: a bound argument.
    public var sqlExpression: SQLExpression { .value(databaseValue) }

    /// The decoder of the JSON that `Decodable` values are stored as: Base64
    /// data, dates in milliseconds since 1970, and an error for non-finite
    /// numbers.
    public static func databaseJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }

    /// The encoder of the JSON that `Encodable` values are stored as: Base64
    /// data, dates in milliseconds since 1970, sorted keys, and an error for
    /// non-finite numbers.
    public static func databaseJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

/// A type that reads itself straight from a statement column, without building
/// an intermediate ``DatabaseValue``: the fast path of fetching.
///
/// ```swift
/// extension Celsius: StatementColumnConvertible {
///     init?(sqliteStatement: SQLiteStatement, index: CInt) {
///         self.init(degrees: sqlite3_column_double(sqliteStatement, index))
///     }
/// }
/// ```
public protocol StatementColumnConvertible {
    /// The value of a column, nil when it is NULL or can not be converted.
    /// The default implementation returns nil for NULL, and calls
    /// ``init(sqliteStatement:index:)`` otherwise. Do not implement it.
    static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self?

    /// Reads column `index` (0-based) of the current row, which is not NULL,
    /// or returns nil when it can not be converted.
    init?(sqliteStatement: SQLiteStatement, index: CInt)
}

extension StatementColumnConvertible {
    @inline(__always)
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self? {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL { return nil }
        return Self(sqliteStatement: sqliteStatement, index: index)
    }
}

extension DatabaseValue: StatementBinding {
    /// Binds the value with the matching `sqlite3_bind_*` function.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        bindInline(to: sqliteStatement, at: index)
    }

    /// ``bind(to:at:)``, inlined in the binding loops.
    @inline(__always)
    func bindInline(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
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
            dbkit_bind_text_transient(sqliteStatement, index, $0, CInt(clamping: buffer.count))
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
        dbkit_bind_blob_transient(sqliteStatement, index, buffer.baseAddress, CInt(clamping: buffer.count))
    }
}

// MARK: - Optional

extension Optional: StatementBinding where Wrapped: StatementBinding {
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

    /// The wrapped value when `Wrapped` converts the database value, `.some(nil)`
    /// for another NULL, nil for a value that does not convert.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if let value = Wrapped.fromDatabaseValue(dbValue) { return .some(value) }
        if dbValue.isNull { return .some(nil) }
        return nil
    }

    /// A missing column decodes as nil.
    public static func fromMissingColumn() -> Wrapped?? { .some(nil) }
}

/// True when the column of the current row is NULL (for the inlinable
/// accessors, which can not call SQLite themselves).
@usableFromInline
func columnIsNull(_ sqliteStatement: SQLiteStatement, _ index: CInt) -> Bool {
    sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    /// The wrapped value, `.some(nil)` for NULL, nil for a value that does
    /// not convert.
    ///
    /// Inlinable, so that it is specialized for the wrapped type where it is
    /// used (`row["id"] as Int64?`): the generic version looks up the
    /// metadata of `Optional<Wrapped>` on every call.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Wrapped?? {
        if let value = Wrapped.fromStatement(sqliteStatement, atUncheckedIndex: index) { return .some(value) }
        if columnIsNull(sqliteStatement, index) { return .some(nil) }
        return nil
    }

    /// The wrapped value read from a non-NULL column.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = .some(value)
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

extension StatementBinding where Self: RawRepresentable, RawValue: StatementBinding {
    /// Binds the raw value.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        rawValue.bind(to: sqliteStatement, at: index)
    }
}

extension StatementColumnConvertible where Self: RawRepresentable, RawValue: StatementColumnConvertible {
    /// A value whose raw value reads from the column.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let rawValue = RawValue(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self.init(rawValue: rawValue)
    }
}

extension SQLExpressible where Self: RawRepresentable, RawValue: SQLExpressible {
    /// The raw value's expression.
    public var sqlExpression: SQLExpression { rawValue.sqlExpression }
}
