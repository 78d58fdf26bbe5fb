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
        let text = MigrationSections.normalizingLineEndings(contents)
        let lines = text.components(separatedBy: "\n")
        let markers = try MigrationSections.markers(in: lines, path: path)
        let directive = MigrationSections.hasNoTransactionDirective(lines)
        guard let first = markers.first else {
            up = Section(sql: text, firstLine: 1, inTransaction: !directive)
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
        if let line = lines[..<upMarker.line].indices.first(where: { !MigrationFile.isCommentOrBlank(lines[$0]) }) {
            throw DBToolError(
                .dataError, "\(path):\(line + 1): SQL before `\(syntax.upMarker)`", hint: "Move it into the up section, or remove it.")
        }
        let downMarker = downs.first
        try MigrationSections.checkStatementBlocks(markers, upLine: upMarker.line, path: path)
        let fileRunsOutside = markers.contains { $0.marker.kind == .noTransaction }
        let upEnd = downMarker?.line ?? lines.count
        up = Section(
            sql: lines[(upMarker.line + 1)..<upEnd].joined(separator: "\n"), firstLine: upMarker.line + 2,
            inTransaction: upMarker.marker.kind == .up(inTransaction: true) && !fileRunsOutside && !directive)
        down = downMarker.map { marker in
            Section(
                sql: lines[(marker.line + 1)...].joined(separator: "\n"), firstLine: marker.line + 2,
                inTransaction: marker.marker.kind == .down(inTransaction: true) && !fileRunsOutside)
        }
    }

    /// The text of a golang-migrate `.up.sql` or `.down.sql` file: plain SQL,
    /// all of it, with no marker.
    static func plain(path: String, contents: String) throws -> Section {
        let text = normalizingLineEndings(contents)
        let lines = text.components(separatedBy: "\n")
        if let marker = try markers(in: lines, path: path).first {
            throw DBToolError(
                .dataError,
                "\(path):\(marker.line + 1): `\(marker.marker.text)` in a golang-migrate file: its .up.sql and .down.sql files hold plain SQL",
                hint: "Remove the marker, or merge the pair into one VERSION_name.sql file with up and down markers.")
        }
        return Section(sql: text, firstLine: 1, inTransaction: !hasNoTransactionDirective(lines))
    }

    /// Every marker line, with its 0-based line index.
    private static func markers(in lines: [String], path: String) throws -> [(line: Int, marker: MigrationMarker)] {
        var markers: [(line: Int, marker: MigrationMarker)] = []
        for (index, line) in lines.enumerated() {
            do {
                if let marker = try MigrationMarker.parse(index == 0 ? withoutByteOrderMark(line) : line) {
                    markers.append((index, marker))
                }
            } catch let unsupported as MigrationMarker.Unsupported {
                throw DBToolError(
                    .dataError, "\(path):\(index + 1): `\(line.trimmingCharacters(in: .whitespaces))`: \(unsupported.reason)",
                    hint: "dbtool never runs a file whose markers it does not understand: fix or remove that line.")
            }
        }
        return markers
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

    private static func hasNoTransactionDirective(_ lines: [String]) -> Bool {
        lines.first.map { withoutByteOrderMark($0).trimmingCharacters(in: .whitespaces) } == MigrationFile.noTransactionDirective
    }

    private static func withoutByteOrderMark(_ line: String) -> String {
        line.hasPrefix("\u{FEFF}") ? String(line.dropFirst()) : line
    }

    static func normalizingLineEndings(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
