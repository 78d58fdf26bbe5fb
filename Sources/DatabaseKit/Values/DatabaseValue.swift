internal import DatabaseKitSQLite
import FoundationEssentials

/// A value stored in a database table: NULL, an integer, a double, a text or a blob.
///
/// ```swift
/// let dbValue = try DatabaseValue.fetchOne(db, sql: "SELECT name FROM player")!
/// switch dbValue.storage {
/// case .null: print("NULL")
/// case .string(let name): print(name)
/// default: print("unexpected")
/// }
/// ```
///
/// See <https://www.sqlite.org/datatype3.html>.
public struct DatabaseValue: Hashable, Sendable {
    /// The SQLite storage classes.
    @frozen
    public enum Storage: Equatable, Sendable {
        /// NULL
        case null
        /// A 64-bit signed integer.
        case int64(Int64)
        /// A 64-bit floating point number.
        case double(Double)
        /// A text, stored as UTF-8.
        case string(String)
        /// A blob.
        case blob(Data)

        /// The stored value: `Int64`, `Double`, `String` or `Data`; nil for NULL.
        public var value: (any DatabaseValueConvertible)? {
            switch self {
            case .null: return nil
            case .int64(let int64): return int64
            case .double(let double): return double
            case .string(let string): return string
            case .blob(let data): return data
            }
        }
    }

    /// The stored value.
    public let storage: Storage

    /// The NULL value.
    public static let null = DatabaseValue(storage: .null)

    /// True when the value is NULL.
    @inlinable public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    /// Creates a value from its storage.
    public init(storage: Storage) {
        self.storage = storage
    }

    /// Creates a value from any convertible value; nil gives NULL.
    public init(value: (any DatabaseValueConvertible)?) {
        self = value?.databaseValue ?? .null
    }

    /// Creates a value from a value of any type, or returns nil when the
    /// type is not ``DatabaseValueConvertible``.
    ///
    /// ```swift
    /// DatabaseValue(value: 1 as Any)           // 1
    /// DatabaseValue(value: NSNull() as Any)    // NULL
    /// DatabaseValue(value: [1, 2] as Any)      // nil
    /// ```
    public init?(value: Any) {
        guard let convertible = value as? any DatabaseValueConvertible else { return nil }
        self = convertible.databaseValue
    }

    /// Reads column `index` of the current row of a statement.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self.init(columnOf: sqliteStatement, at: index)
    }

    /// Reads column `index` of the current row of a statement.
    init(columnOf sqliteStatement: OpaquePointer, at index: CInt) {
        // One call into the statement, then the value's own readers, which
        // skip the statement's per-call bookkeeping (see `columnValue`).
        guard let value = sqlite3_column_value(sqliteStatement, index) else {
            self.init(storage: .null)
            return
        }
        self.init(sqliteValue: value)
    }

    /// Reads a value handed to a custom function or aggregate.
    init(sqliteValue: OpaquePointer) {
        switch sqlite3_value_type(sqliteValue) {
        case SQLITE_NULL:
            storage = .null
        case SQLITE_INTEGER:
            storage = .int64(sqlite3_value_int64(sqliteValue))
        case SQLITE_FLOAT:
            storage = .double(sqlite3_value_double(sqliteValue))
        case SQLITE_TEXT:
            // The text first, then its length: the order in which SQLite
            // never converts the value between the two calls.
            storage = .string(valueString(sqliteValue))
        default:
            storage = .blob(valueData(sqliteValue))
        }
    }

    /// Equality follows SQLite: an integer equals a double of the same value,
    /// and a text never equals a blob.
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.null, .null): return true
        case let (.int64(a), .int64(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int64(a), .double(b)), let (.double(b), .int64(a)): return int64EqualsDouble(a, b)
        case let (.string(a), .string(b)): return a == b
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

    /// Hashing agrees with equality: integral doubles hash as their integer.
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .null:
            hasher.combine(0)
        case .int64(let int64):
            hasher.combine(int64)
        case .double(let double):
            if let int64 = Int64(exactly: double) {
                hasher.combine(int64)
            } else {
                hasher.combine(double)
            }
        case .string(let string):
            hasher.combine(string)
        case .blob(let data):
            hasher.combine(data)
        }
    }
}

private func int64EqualsDouble(_ int64: Int64, _ double: Double) -> Bool {
    guard let exact = Int64(exactly: double) else { return false }
    return exact == int64
}

extension DatabaseValue: CustomStringConvertible {
    /// `NULL`, `1`, `1.5`, `"text"` (quoted and escaped as Swift does),
    /// `Data(3 bytes)`.
    public var description: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let int64): return String(int64)
        case .double(let double): return String(double)
        case .string(let string): return String(reflecting: string)
        case .blob(let data): return "Data(\(data.description))"
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// Returns self.
    public var databaseValue: DatabaseValue { self }

    /// Returns the value itself, NULL included.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

/// Reads a text value without a NUL-terminated copy (texts may hold NUL
/// characters). For the unprotected values of `sqlite3_column_value`: see
/// the note in StandardConversions.swift.
@inline(__always)
func valueString(_ value: OpaquePointer?) -> String {
    guard let bytes = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Reads a blob value. A zero-length blob gives empty data, never nil.
@inline(__always)
func valueData(_ value: OpaquePointer?) -> Data {
    guard let bytes = sqlite3_value_blob(value) else { return Data() }
    let count = Int(sqlite3_value_bytes(value))
    return Data(bytes: bytes, count: count)
}

/// Reads a text column without a NUL-terminated copy (texts may hold NUL characters).
@inline(__always)
func columnString(_ sqliteStatement: OpaquePointer, _ index: CInt) -> String {
    guard let bytes = sqlite3_column_text(sqliteStatement, index) else { return "" }
    let count = Int(sqlite3_column_bytes(sqliteStatement, index))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Reads a blob column. A zero-length blob gives empty data, never nil.
@inline(__always)
func columnData(_ sqliteStatement: OpaquePointer, _ index: CInt) -> Data {
    guard let bytes = sqlite3_column_blob(sqliteStatement, index) else { return Data() }
    let count = Int(sqlite3_column_bytes(sqliteStatement, index))
    return Data(bytes: bytes, count: count)
}
