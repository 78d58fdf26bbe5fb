internal import DatabaseKitSQLite
import FoundationEssentials

/// The rows of each statement as a JSON array of objects, one object per
/// line, as the `json` mode of the `sqlite3` command line tool.
///
/// ```swift
/// // [{"id":1,"name":"Arthur"},
/// // {"id":2,"name":"Barbara"}]
/// try db.dumpSQL("SELECT * FROM player", format: .json())
/// ```
public struct JSONDumpFormat: Sendable {
    /// The encoder of ``json(encoder:)`` when none is given: slashes are not
    /// escaped, blobs are Base64, and infinite numbers are `"inf"` and
    /// `"-inf"`. It never changes: programs read this output.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        encoder.dataEncodingStrategy = .base64
        return encoder
    }

    /// The encoder of column names and values.
    public var encoder: JSONEncoder
    private var isFirstRow = true

    /// A format that encodes with `encoder`.
    public init(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) {
        self.encoder = encoder
    }
}

extension JSONDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        let isPretty = encoder.outputFormatting.contains(.prettyPrinted)
        if isFirstRow {
            isFirstRow = false
            stream.write(isPretty ? "[\n" : "[")
        } else {
            stream.write(",\n")
        }
        stream.write(isPretty ? "  {" : "{")
        let sqliteStatement = statement.sqliteStatement
        for (position, index) in statement.dumpedColumnIndexes.enumerated() {
            if position > 0 { stream.write(",") }
            if isPretty { stream.write("\n    ") }
            stream.write(try json(statement.columnNames[Int(index)]))
            stream.write(":")
            stream.write(try json(sqliteStatement, index))
        }
        stream.write(isPretty ? "\n  }" : "}")
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if isFirstRow {
            // No row: an empty array, unless the statement returns no columns
            // (an INSERT in a script prints nothing).
            if !statement.columnNames.isEmpty { stream.writeLine("[]") }
        } else {
            if encoder.outputFormatting.contains(.prettyPrinted) { stream.write("\n") }
            stream.writeLine("]")
        }
        isFirstRow = true
    }

    private func json(_ statement: SQLiteStatement, _ index: CInt) throws -> String {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: return "null"
        case SQLITE_INTEGER: return try json(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return try json(sqlite3_column_double(statement, index))
        case SQLITE_BLOB: return try json(Data(DumpedText.bytes(statement, index)))
        default: return try json(DumpedText.text(statement, index))
        }
    }

    private func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension DumpFormat where Self == JSONDumpFormat {
    /// The rows of each statement as a JSON array; see ``JSONDumpFormat``.
    public static func json(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) -> Self {
        JSONDumpFormat(encoder: encoder)
    }
}
