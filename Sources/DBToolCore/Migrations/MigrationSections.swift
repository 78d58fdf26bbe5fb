import Foundation

/// The up and down sections of a migration file's text, found by its
/// markers (``MigrationMarker``).
struct MigrationSections {
    /// One section: its SQL, where it starts, and how it runs.
    struct Section {
        var sql: String
        /// The file line of the section's first SQL line (1-based).
        var firstLine: Int
        var inTransaction: Bool
    }

    let up: Section
    let down: Section?

    /// - throws: ``DBToolError`` (65) naming the file and the line.
    init(path: String, contents: String) throws {
        var text = MigrationSections.normalizingLineEndings(contents)
        let lines = try text.withUTF8 { try LineScan(path: path, bytes: $0) }
        let markers = lines.markers
        guard let first = markers.first else {
            up = Section(sql: text, firstLine: 1, inTransaction: !lines.hasNoTransactionDirective)
            down = nil
            return
        }
        let syntax = first.marker.syntax
        if let other = markers.first(where: { $0.marker.syntax != syntax }) {
            throw DBToolError(
                .dataError,
                "\(path):\(other.line + 1): `\(other.marker.text)` is a \(other.marker.syntax.rawValue) marker in a file of \(syntax.rawValue) markers (line \(first.line + 1))",
                hint: "Write the file's markers in one tool's syntax.")
        }
        let ups = markers.filter { if case .up = $0.marker.kind { true } else { false } }
        let downs = markers.filter { if case .down = $0.marker.kind { true } else { false } }
        guard ups.count == 1, downs.count <= 1, let upMarker = ups.first, downs.allSatisfy({ $0.line > upMarker.line }) else {
            throw DBToolError(
                .dataError, "\(path): expected one `\(syntax.upMarker)` line, optionally followed by one `\(syntax.downMarker)` line",
                hint: "Check the markers of the file.")
        }
        if let line = lines.firstSQLLine, line < upMarker.line {
            throw DBToolError(
                .dataError, "\(path):\(line + 1): SQL before `\(syntax.upMarker)`", hint: "Move it into the up section, or remove it.")
        }
        let downMarker = downs.first
        try MigrationSections.checkStatementBlocks(markers.map { ($0.line, $0.marker) }, upLine: upMarker.line, path: path)
        let fileRunsOutside = markers.contains { $0.marker.kind == .noTransaction }
        // The text between the marker lines, without the newline that ends the last line before the down marker.
        let upEnd = downMarker.map { $0.start - 1 } ?? lines.byteCount
        up = Section(
            sql: text.withUTF8 { LineScan.text($0, from: upMarker.end + 1, to: upEnd) }, firstLine: upMarker.line + 2,
            inTransaction: upMarker.marker.kind == .up(inTransaction: true) && !fileRunsOutside && !lines.hasNoTransactionDirective)
        down = downMarker.map { marker in
            Section(
                sql: text.withUTF8 { LineScan.text($0, from: marker.end + 1, to: lines.byteCount) }, firstLine: marker.line + 2,
                inTransaction: marker.marker.kind == .down(inTransaction: true) && !fileRunsOutside)
        }
    }

    /// The text of a golang-migrate `.up.sql` or `.down.sql` file: plain SQL,
    /// all of it, with no marker.
    static func plain(path: String, contents: String) throws -> Section {
        var text = normalizingLineEndings(contents)
        let lines = try text.withUTF8 { try LineScan(path: path, bytes: $0) }
        if let marker = lines.markers.first {
            throw DBToolError(
                .dataError,
                "\(path):\(marker.line + 1): `\(marker.marker.text)` in a golang-migrate file: its .up.sql and .down.sql files hold plain SQL",
                hint: "Remove the marker, or merge the pair into one VERSION_name.sql file with up and down markers.")
        }
        return Section(sql: text, firstLine: 1, inTransaction: !lines.hasNoTransactionDirective)
    }

    /// What the sections need of a text's lines, found in one pass over its
    /// UTF-8 bytes (a migration may be hundreds of megabytes): the marker
    /// lines and their places, the first line of SQL, and the first line's
    /// directive. Only the lines that may be markers become strings.
    private struct LineScan {
        struct MarkerLine {
            /// The 0-based line index.
            var line: Int
            /// The byte offsets of the line's start and of its end (its
            /// newline, or the end of the text).
            var start: Int
            var end: Int
            var marker: MigrationMarker
        }

        var markers: [MarkerLine] = []
        /// The first line that is neither blank nor a comment.
        var firstSQLLine: Int?
        var hasNoTransactionDirective = false
        let byteCount: Int

        init(path: String, bytes: UnsafeBufferPointer<UInt8>) throws {
            byteCount = bytes.count
            var start = 0
            var line = 0
            while true {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                try classify(line: line, start: start, end: end, bytes: bytes, path: path)
                if end == bytes.count { break }
                start = end + 1
                line += 1
            }
        }

        /// Reads one line: a marker, a comment, a blank line or SQL.
        private mutating func classify(line: Int, start: Int, end: Int, bytes: UnsafeBufferPointer<UInt8>, path: String) throws {
            var first = start
            while first < end && (bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t")) { first += 1 }
            let isComment = first + 1 < end && bytes[first] == UInt8(ascii: "-") && bytes[first + 1] == UInt8(ascii: "-")
            // A line of ASCII that is not a comment is blank or SQL, never a
            // marker. The first line (a byte order mark, the directive),
            // comments, and lines that start otherwise (a Unicode space) are
            // read as strings.
            if line > 0 && !isComment && (first == end || bytes[first] < 0x80) {
                if first < end && firstSQLLine == nil { firstSQLLine = line }
                return
            }
            var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            if line == 0 {
                text = MigrationSections.withoutByteOrderMark(text)
                hasNoTransactionDirective = text.trimmingCharacters(in: .whitespaces) == MigrationFile.noTransactionDirective
            }
            if firstSQLLine == nil && !MigrationFile.isCommentOrBlank(text) { firstSQLLine = line }
            do {
                if let marker = try MigrationMarker.parse(text) {
                    markers.append(MarkerLine(line: line, start: start, end: end, marker: marker))
                }
            } catch let unsupported as MigrationMarker.Unsupported {
                throw DBToolError(
                    .dataError, "\(path):\(line + 1): `\(text.trimmingCharacters(in: .whitespaces))`: \(unsupported.reason)",
                    hint: "dbtool never runs a file whose markers it does not understand: fix or remove that line.")
            }
        }

        /// The text of bytes `from..<to` (empty when the range is).
        static func text(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> String {
            guard from < to else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
        }
    }

    /// StatementBegin and StatementEnd come in pairs, inside one section.
    private static func checkStatementBlocks(
        _ markers: [(line: Int, marker: MigrationMarker)], upLine: Int, path: String
    ) throws {
        var open: (line: Int, marker: MigrationMarker)?
        for entry in markers {
            switch entry.marker.kind {
            case .statementBegin:
                if let open {
                    throw DBToolError(
                        .dataError, "\(path):\(entry.line + 1): `\(entry.marker.text)` before the StatementEnd of line \(open.line + 1)")
                }
                if entry.line < upLine {
                    throw DBToolError(.dataError, "\(path):\(entry.line + 1): `\(entry.marker.text)` before the up marker")
                }
                open = entry
            case .statementEnd:
                guard open != nil else {
                    throw DBToolError(.dataError, "\(path):\(entry.line + 1): `\(entry.marker.text)` without a StatementBegin before it")
                }
                open = nil
            case .down:
                if let open {
                    throw DBToolError(
                        .dataError, "\(path):\(open.line + 1): `\(open.marker.text)` has no StatementEnd before the down marker")
                }
            case .up, .noTransaction:
                break
            }
        }
        if let open {
            throw DBToolError(.dataError, "\(path):\(open.line + 1): `\(open.marker.text)` has no StatementEnd")
        }
    }

    fileprivate static func withoutByteOrderMark(_ line: String) -> String {
        line.hasPrefix("\u{FEFF}") ? String(line.dropFirst()) : line
    }

    /// `text` with CRLF and CR line endings made LF: the same string when
    /// it has no CR, else one pass over its bytes (Foundation's search
    /// would see a migration of hundreds of megabytes as UTF-16).
    static func normalizingLineEndings(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String? in
            guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "\r")), bytes.count) != nil else { return nil }
            var normalized: [UInt8] = []
            normalized.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\r") {
                    normalized.append(UInt8(ascii: "\n"))
                    if index < bytes.count && bytes[index] == UInt8(ascii: "\n") { index += 1 }
                } else {
                    normalized.append(byte)
                }
            }
            return String(decoding: normalized, as: UTF8.self)
        } ?? text
    }
}
