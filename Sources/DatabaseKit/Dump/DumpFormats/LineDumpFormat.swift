/// One line per value, `column = value`, rows separated by a blank line, as
/// the `line` mode of the `sqlite3` command line tool.
///
/// ```swift
/// //    id = 1
/// //  name = Arthur
/// // score = 500
/// //
/// //    id = 2
/// // ...
/// try db.dumpSQL("SELECT * FROM player", format: .line())
/// ```
public struct LineDumpFormat: Sendable {
    /// The text of NULL.
    public var nullValue: String
    private var isFirstRow = true

    /// A format with the given options.
    public init(nullValue: String = "") {
        self.nullValue = nullValue
    }
}

extension LineDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        let indexes = statement.dumpedColumnIndexes
        guard !indexes.isEmpty else { return }
        if isFirstRow {
            isFirstRow = false
        } else {
            stream.write("\n")
        }
        let names = indexes.map { statement.columnNames[Int($0)] }
        let width = names.map(\.count).max() ?? 0
        let sqliteStatement = statement.sqliteStatement
        for (name, index) in zip(names, indexes) {
            // Right-aligned names, as sqlite3 prints them.
            stream.write(String(repeating: " ", count: width - name.count) + name)
            stream.write(" = ")
            stream.writeLine(DumpedText.plain(sqliteStatement, index, nullValue: nullValue))
        }
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if !isFirstRow { stream.margin() }
        isFirstRow = true
    }
}

extension DumpFormat where Self == LineDumpFormat {
    /// One line per value; see ``LineDumpFormat``.
    public static func line(nullValue: String = "") -> Self {
        LineDumpFormat(nullValue: nullValue)
    }
}
