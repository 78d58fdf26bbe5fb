import DatabaseKit
import FoundationEssentials

/// How `dbtool exec` prints result rows. Every format tells NULL from an
/// empty string.
public enum RowFormat: String, Sendable, CaseIterable {
    /// Aligned columns, for people (the default on a terminal). NULL is
    /// `NULL`, an empty text `''`, blobs `x'hex'`.
    case table
    /// RFC 4180 CSV with a header. NULL is an empty unquoted field, an empty
    /// text `""`, blobs `x'hex'`.
    case csv
    /// Tab-separated with a header. NULL is `\N`; tabs, newlines and
    /// backslashes in texts are escaped (`\t`, `\n`, `\\`).
    case tsv
    /// An array of objects (column name to value) per statement that
    /// returns rows, one after the other as `sqlite3 -json` prints them: one
    /// array when a single statement does, `[]` when none does. Blobs are
    /// base64.
    case json
    /// One JSON object per line. Blobs are base64.
    case jsonl
}

/// Writes rows in a format, streaming them except for `table`, which must
/// measure its columns first.
public final class RowWriter {
    private let format: RowFormat
    private let write: (String) throws -> Void
    private var columns: [String] = []
    private var tableRows: [[String]] = []
    private var jsonRowCount = 0
    private var jsonArrayIsOpen = false
    private var hasHeader = false

    /// - parameters:
    ///   - format: How rows are written.
    ///   - write: Receives the output, piece by piece; what it throws (a
    ///     failed write) stops the writer.
    public init(format: RowFormat, write: @escaping (String) throws -> Void) {
        self.format = format
        self.write = write
    }

    /// Starts a result set with these columns.
    public func begin(columns: [String]) throws {
        self.columns = columns
        switch format {
        case .csv:
            if hasHeader { try write("\n") }
            try write(columns.map(csvField).joined(separator: ",") + "\n")
        case .tsv:
            if hasHeader { try write("\n") }
            try write(columns.map(tsvField).joined(separator: "\t") + "\n")
        case .table:
            try flushTable()
            tableRows = [columns.map(escapedTableText)]
        case .json:
            try closeJSONArray()
            try write("[")
            jsonArrayIsOpen = true
        case .jsonl:
            break
        }
        hasHeader = true
    }

    /// Writes one row of the current result set.
    public func add(_ values: [DatabaseValue]) throws {
        switch format {
        case .csv:
            try write(values.map(csvValue).joined(separator: ",") + "\n")
        case .tsv:
            try write(values.map(tsvValue).joined(separator: "\t") + "\n")
        case .table:
            tableRows.append(values.map(tableValue))
        case .json:
            try write((jsonRowCount == 0 ? "\n" : ",\n") + jsonObject(values))
            jsonRowCount += 1
        case .jsonl:
            try write(jsonObject(values) + "\n")
        }
    }

    /// Ends the output.
    public func finish() throws {
        switch format {
        case .table: try flushTable()
        case .json:
            if !hasHeader { try write("[") }
            jsonArrayIsOpen = true
            try closeJSONArray()
        default: break
        }
    }

    private func closeJSONArray() throws {
        guard jsonArrayIsOpen else { return }
        try write(jsonRowCount == 0 ? "]\n" : "\n]\n")
        jsonArrayIsOpen = false
        jsonRowCount = 0
    }

    private func flushTable() throws {
        guard let header = tableRows.first else { return }
        let widths = header.indices.map { column in tableRows.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padded(to: $1) }
                .joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        try write(line(header))
        try write(line(widths.map { String(repeating: "-", count: $0) }))
        for row in tableRows.dropFirst() { try write(line(row)) }
        tableRows = []
    }

    private func jsonObject(_ values: [DatabaseValue]) -> String {
        "{" + zip(columns, values).map { "\(jsonString($0)):\(jsonValue($1))" }.joined(separator: ",") + "}"
    }
}

// MARK: - Value rendering

private func tableValue(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: return "NULL"
    case .int64(let int64): return String(int64)
    case .double(let double): return String(double)
    case .string(let string): return string.isEmpty || string == "NULL" ? "'\(string)'" : escapedTableText(string)
    case .blob(let data): return hexLiteral(data)
    }
}

/// A text in a table: one line, whatever it holds, and no control
/// character reaches the terminal (see ``TerminalText``).
private func escapedTableText(_ text: String) -> String {
    TerminalText.escaped(text, escapingBackslash: true)
}

private func csvField(_ text: String) -> String {
    let needsQuotes = text.isEmpty || text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
    return needsQuotes ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
}

private func csvValue(_ value: DatabaseValue) -> String {
    delimitedValue(value, null: "", text: csvField)
}

private func tsvField(_ text: String) -> String {
    var result = ""
    for character in text {
        switch character {
        case "\\": result += "\\\\"
        case "\t": result += "\\t"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        default: result.append(character)
        }
    }
    return result
}

private func tsvValue(_ value: DatabaseValue) -> String {
    delimitedValue(value, null: "\\N", text: tsvField)
}

/// A value in a delimited format: numbers as is, blobs as hex, NULL and
/// texts as the format says.
private func delimitedValue(_ value: DatabaseValue, null: String, text: (String) -> String) -> String {
    switch value.storage {
    case .null: return null
    case .int64(let int64): return String(int64)
    case .double(let double): return String(double)
    case .string(let string): return text(string)
    case .blob(let data): return hexLiteral(data)
    }
}

/// A JSON value. Doubles use Swift's shortest round-tripping form; infinities,
/// which JSON lacks, are the strings "Infinity" and "-Infinity".
func jsonValue(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: return "null"
    case .int64(let int64): return String(int64)
    case .double(let double):
        if double.isInfinite { return double > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return String(double)
    case .string(let string): return jsonString(string)
    case .blob(let data): return jsonString(data.base64EncodedString())
    }
}

/// A JSON string literal.
func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            result += "\\u" + Decimals.hex(scalar.value, width: 4)
        default:
            result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

private func hexLiteral(_ data: Data) -> String {
    "x'" + data.map { Decimals.hex($0, width: 2, uppercase: true) }.joined() + "'"
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
