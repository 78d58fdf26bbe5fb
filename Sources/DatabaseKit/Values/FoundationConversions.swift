internal import DatabaseKitSQLite
import FoundationEssentials

// Conversions of Foundation's value types, as GRDB defines them (their
// Objective-C counterparts are in FoundationReferenceTypes.swift).

extension UUID: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as a 16-byte BLOB.
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { DatabaseValue(storage: .blob(Data($0))) }
    }

    /// A 16-byte BLOB, or a TEXT such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue.storage {
        case .blob(let data) where data.count == 16:
            return UUID(bytes: data)
        case .string(let string):
            return UUID(uuidString: string)
        default:
            return nil
        }
    }

    /// The same conversions, read from the column.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_TEXT:
            guard let uuid = UUID(uuidString: columnString(sqliteStatement, index)) else { return nil }
            self = uuid
        case SQLITE_BLOB:
            guard sqlite3_column_bytes(sqliteStatement, index) == 16,
                let bytes = sqlite3_column_blob(sqliteStatement, index)
            else { return nil }
            self = UUID(bytes: Data(bytes: bytes, count: 16))
        default:
            return nil
        }
    }

    /// A UUID from 16 bytes.
    private init(bytes data: Data) {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data.prefix(16)) }
        self.init(uuid: uuid)
    }
}

extension Decimal: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as TEXT, so that no digit is lost.
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(description))
    }

    /// An INTEGER, a REAL, or a TEXT holding a decimal number.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue.storage {
        case .int64(let int64): return Decimal(int64)
        case .double(let double): return Decimal(double)
        case .string(let string): return Decimal(string: string)
        default: return nil
        }
    }

    /// The same conversions, read from the column.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER: self = Decimal(sqlite3_column_int64(sqliteStatement, index))
        case SQLITE_FLOAT: self = Decimal(sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            guard let decimal = Decimal(string: columnString(sqliteStatement, index)) else { return nil }
            self = decimal
        default: return nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// Stored as its absolute string.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

    /// A TEXT (or UTF-8 BLOB) that `URL(string:)` accepts; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        String.fromDatabaseValue(dbValue).flatMap { URL(string: $0) }
    }
}


extension Date: StatementColumnConvertible {
    /// A date read from the column: a number is a Unix timestamp, a TEXT one
    /// of the formats ``Date/fromDatabaseValue(_:)`` accepts.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER, SQLITE_FLOAT:
            self.init(timeIntervalSince1970: sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(sqliteStatement, index) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqliteStatement, index)))
            guard let parsed = DatabaseDateComponents.parse(bytes), let date = date(from: parsed) else { return nil }
            self = date
        default:
            return nil
        }
    }
}
