internal import DatabaseKitSQLite
import FoundationEssentials

/// One line per row, values separated by `|`, for reading while debugging.
/// The output may change between releases: do not parse it or test it.
///
/// ```swift
/// // 1|Arthur|500
/// // 2|Barbara|1000
/// try db.dumpSQL("SELECT * FROM player", format: .debug())
/// ```
///
/// Blobs print as text when they are UTF-8, as a UUID when they are 16
/// bytes, and as an SQL literal (`X'00FF'`) otherwise.
public struct DebugDumpFormat: Sendable {
    /// Whether the column names are printed above the first row.
    public var header: Bool
    /// The text between two values.
    public var separator: String
    /// The text of NULL.
    public var nullValue: String
    private var rows = SeparatedRows()

    /// A format with the given options.
    public init(header: Bool = false, separator: String = "|", nullValue: String = "") {
        self.header = header
        self.separator = separator
        self.nullValue = nullValue
    }
}

extension DebugDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let format = self
        rows.write(statement, header: header, separator: separator, to: &stream) { format.text($0, $1) }
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        rows.end()
    }

    private func text(_ statement: SQLiteStatement, _ index: CInt) -> String {
        guard sqlite3_column_type(statement, index) == SQLITE_BLOB else {
            return DumpedText.plain(statement, index, nullValue: nullValue)
        }
        let bytes = DumpedText.bytes(statement, index)
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if bytes.count == 16 {
            return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)).uuidString
        }
        return Data(bytes).databaseValue.sqlLiteral
    }
}

extension DumpFormat where Self == DebugDumpFormat {
    /// One line per row, values separated by `separator`, for reading while
    /// debugging; see ``DebugDumpFormat``.
    public static func debug(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        DebugDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
