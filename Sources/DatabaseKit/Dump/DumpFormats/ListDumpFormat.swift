/// One line per row, values separated by `|`, as the `list` mode of the
/// `sqlite3` command line tool.
///
/// ```swift
/// // 1|Arthur|500
/// // 2|Barbara|1000
/// try db.dumpSQL("SELECT * FROM player", format: .list())
/// ```
public struct ListDumpFormat: Sendable {
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

extension ListDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let nullValue = nullValue
        rows.write(statement, header: header, separator: separator, to: &stream) { DumpedText.plain($0, $1, nullValue: nullValue) }
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        rows.end()
    }
}

extension DumpFormat where Self == ListDumpFormat {
    /// One line per row, values separated by `separator`; see ``ListDumpFormat``.
    public static func list(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        ListDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
