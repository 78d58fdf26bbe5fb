internal import DatabaseKitSQLite
import FoundationEssentials

extension Statement {
    /// The indexes of the columns a dump prints: all but those whose name
    /// starts with `grdb_`, which GRDB reserves for its own use.
    var dumpedColumnIndexes: [CInt] {
        columnNames.indices.compactMap { index in
            columnNames[index].hasPrefix("grdb_") ? nil : CInt(index)
        }
    }
}

/// The text of a column of the current row, for the formats that print
/// values as they are (`debug`, `list`, `line`).
enum DumpedText {
    /// Numbers as Swift prints them, text and blobs as UTF-8 text, NULL as
    /// `nullValue`.
    static func plain(_ statement: SQLiteStatement, _ index: CInt, nullValue: String) -> String {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: return nullValue
        case SQLITE_INTEGER: return String(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return String(sqlite3_column_double(statement, index))
        default: return text(statement, index)
        }
    }

    /// A text or blob column as text, up to its first NUL byte (C string
    /// semantics, as GRDB reads it), invalid UTF-8 replaced by U+FFFD.
    static func text(_ statement: SQLiteStatement, _ index: CInt) -> String {
        let bytes = bytes(statement, index)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }

    /// The bytes of a text or blob column.
    static func bytes(_ statement: SQLiteStatement, _ index: CInt) -> UnsafeRawBufferPointer {
        // Blob first: it fixes the representation, and the count is of the
        // bytes returned (https://www.sqlite.org/c3ref/column_blob.html).
        guard let pointer = sqlite3_column_blob(statement, index) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index)))
    }
}

extension DatabaseValue {
    /// The value as SQLite's `quote()` writes it: `NULL`, `42`, `1.5`,
    /// `'O''Brien'`, `X'00FF'`.
    ///
    /// Real numbers are quoted by SQLite itself: its text has 15 significant
    /// digits when its own parser reads them back as the same number, 20
    /// otherwise, and that parser is not C's (the two disagree on some very
    /// small numbers).
    func quotedSQL(_ db: Database) -> String {
        guard case .double(let double) = storage else { return sqlLiteral }
        if let quoted = try? String.fetchOne(db.cachedStatement(sql: "SELECT quote(?)"), arguments: [self]) {
            return quoted
        }
        // The statement can not run (a closed connection): SQLite's
        // formats, checked with C's parser.
        let short = sqliteFormat("%!0.15g", double)
        if Double(short) == double { return short }
        return sqliteFormat("%!0.20e", double)
    }
}

/// `value` formatted by SQLite's printf, whose `!` flag differs from C's.
private func sqliteFormat(_ format: String, _ value: Double) -> String {
    withVaList([value]) { arguments in
        guard let text = sqlite3_vmprintf(format, arguments) else { return String(value) }
        defer { sqlite3_free(text) }
        return String(cString: text)
    }
}

/// The rows of the formats that print one line per row (`debug`, `list`,
/// `quote`): the line of column names before the first row of each
/// statement, when asked, then a line per row.
struct SeparatedRows: Sendable {
    private var isFirstRow = true

    /// Writes the current row of `statement`, after its header when it is
    /// the statement's first row and `header` is true.
    mutating func write(
        _ statement: Statement, header: Bool, separator: String, to stream: inout DumpStream,
        name: (String) -> String = { $0 }, value: (SQLiteStatement, CInt) -> String
    ) {
        let indexes = statement.dumpedColumnIndexes
        if isFirstRow {
            isFirstRow = false
            if header { stream.writeLine(indexes.map { name(statement.columnNames[Int($0)]) }.joined(separator: separator)) }
        }
        let sqliteStatement = statement.sqliteStatement
        stream.writeLine(indexes.map { value(sqliteStatement, $0) }.joined(separator: separator))
    }

    /// Ends a statement: the next row written is the first of another.
    mutating func end() { isFirstRow = true }
}
