/// One line per row, each value an SQL literal, as the `quote` mode of the
/// `sqlite3` command line tool. Stable: suited to tests.
///
/// ```swift
/// // 1,'Arthur',500
/// // 2,'Barbara',NULL
/// try db.dumpSQL("SELECT * FROM player", format: .quote())
/// ```
public struct QuoteDumpFormat: Sendable {
    /// Whether the column names, as SQL strings, are printed above the
    /// first row.
    public var header: Bool
    /// The text between two values.
    public var separator: String
    private var rows = SeparatedRows()

    /// A format with the given options.
    public init(header: Bool = false, separator: String = ",") {
        self.header = header
        self.separator = separator
    }
}

extension QuoteDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        rows.write(statement, header: header, separator: separator, to: &stream, name: { $0.databaseValue.sqlLiteral }) {
            DatabaseValue(sqliteStatement: $0, index: $1).quotedSQL(db)
        }
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        rows.end()
    }
}

extension DumpFormat where Self == QuoteDumpFormat {
    /// One line per row, each value an SQL literal; see ``QuoteDumpFormat``.
    public static func quote(header: Bool = false, separator: String = ",") -> Self {
        QuoteDumpFormat(header: header, separator: separator)
    }
}
