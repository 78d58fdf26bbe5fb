import Crypto
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The up and down sections of a migration's text, found by its markers
/// (``MigrationMarker``) in one pass over its bytes, in chunks: a migration
/// may be hundreds of megabytes, and only the lines that may be markers are
/// kept. The pass also hashes the up section, for the checksum.
struct MigrationSections {
    /// One section: where it is in the text (with LF line endings), where
    /// it starts, and how it runs.
    struct Section: Equatable {
        /// Byte offsets in the text with LF line endings.
        var range: Range<Int>
        /// The file line of the section's first SQL line (1-based).
        var firstLine: Int
        var inTransaction: Bool
    }

    let up: Section
    let down: Section?
    /// SHA-256 of the up section, lowercase hex.
    let checksum: String

    /// - throws: ``DBToolError`` (65) naming the file and the line.
    init(path: String, source: MigrationSource, chunkSize: Int = MigrationSource.chunkSize) throws {
        let lines = try LineScan.scan(path: path, source: source, chunkSize: chunkSize)
        let markers = lines.markers
        guard let first = markers.first else {
            up = Section(range: 0..<lines.byteCount, firstLine: 1, inTransaction: !lines.hasNoTransactionDirective)
            down = nil
            checksum = lines.checksum
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
        let upStart = min(upMarker.end + 1, lines.byteCount)
        let upEnd = downMarker.map { $0.start - 1 } ?? lines.byteCount
        up = Section(
            range: upStart..<max(upStart, upEnd), firstLine: upMarker.line + 2,
            inTransaction: upMarker.marker.kind == .up(inTransaction: true) && !fileRunsOutside && !lines.hasNoTransactionDirective)
        down = downMarker.map { marker in
            let downStart = min(marker.end + 1, lines.byteCount)
            return Section(
                range: downStart..<lines.byteCount, firstLine: marker.line + 2,
                inTransaction: marker.marker.kind == .down(inTransaction: true) && !fileRunsOutside)
        }
        checksum = lines.checksum
    }

    /// A golang-migrate `.up.sql` or `.down.sql` file: plain SQL, all of
    /// it, with no marker; and its checksum.
    static func plain(path: String, source: MigrationSource, chunkSize: Int = MigrationSource.chunkSize) throws -> (Section, String) {
        let lines = try LineScan.scan(path: path, source: source, chunkSize: chunkSize)
        if let marker = lines.markers.first {
            throw DBToolError(
                .dataError,
                "\(path):\(marker.line + 1): `\(marker.marker.text)` in a golang-migrate file: its .up.sql and .down.sql files hold plain SQL",
                hint: "Remove the marker, or merge the pair into one VERSION_name.sql file with up and down markers.")
        }
        return (Section(range: 0..<lines.byteCount, firstLine: 1, inTransaction: !lines.hasNoTransactionDirective), lines.checksum)
    }

    /// What the sections need of a text's lines, found in one pass over its
    /// bytes: the marker lines and their places, the first line of SQL, the
    /// first line's directive, and the hash of the up section. Only the
    /// lines that may be markers (comments, lines that start with a byte
    /// above 0x7F such as a byte order mark or a Unicode space) are kept,
    /// one at a time.
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
        /// The bytes read so far.
        var byteCount = 0

        /// What the current line is known to be so far.
        private enum LineState {
            /// Only spaces and tabs yet (kept in `lineBytes`).
            case leading
            /// A line that may be a marker: kept whole in `lineBytes`.
            case kept
            /// SQL: not kept.
            case sql
        }

        /// Which text the checksum covers, as the lines come.
        private enum HashScope {
            /// Only comments and blank lines so far: the whole text, unless
            /// an up marker comes.
            case undecided
            /// No marker before SQL: the whole text is the up section.
            case wholeText
            /// After the up marker: each line until the down marker.
            case upSection
            /// The down marker was met.
            case done
        }

        private var line = 0
        private var lineStart = 0
        private var state = LineState.leading
        private var lineBytes: [UInt8] = []
        private var scope = HashScope.undecided
        private var wholeHash = SHA256()
        private var upHash = SHA256()
        private var upLines = 0
        private let path: String

        private init(path: String) {
            self.path = path
        }

        static func scan(path: String, source: MigrationSource, chunkSize: Int) throws -> LineScan {
            var scan = LineScan(path: path)
            try source.forEachChunk(path: path, chunkSize: chunkSize) { try scan.feed($0) }
            try scan.endLine(at: scan.byteCount)
            return scan
        }

        /// The up section's SHA-256, lowercase hex.
        var checksum: String {
            (scope == .upSection || scope == .done ? upHash.finalize() : wholeHash.finalize()).hexString
        }

        private mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws {
            guard let base = chunk.baseAddress else { return }
            if scope == .undecided || scope == .wholeText { wholeHash.update(bufferPointer: UnsafeRawBufferPointer(chunk)) }
            var index = 0
            while index < chunk.count {
                let newline = memchr(base + index, Int32(UInt8(ascii: "\n")), chunk.count - index)
                let end = newline.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? chunk.count
                consume(UnsafeBufferPointer(rebasing: chunk[index..<end]))
                guard end < chunk.count else { break }
                try endLine(at: byteCount + end)
                index = end + 1
            }
            byteCount += chunk.count
        }

        /// Reads part of the current line.
        private mutating func consume(_ part: UnsafeBufferPointer<UInt8>) {
            switch state {
            case .sql:
                hashUpSection(part)
            case .kept:
                lineBytes.append(contentsOf: part)
            case .leading:
                guard let first = part.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
                    lineBytes.append(contentsOf: part)
                    return
                }
                // A line of ASCII that does not start with `-` is SQL, never a
                // marker; the others are read whole, as text.
                if part[first] == UInt8(ascii: "-") || part[first] >= 0x80 {
                    state = .kept
                    lineBytes.append(contentsOf: part)
                    return
                }
                state = .sql
                if firstSQLLine == nil { firstSQLLine = line }
                if scope == .undecided { scope = .wholeText }
                startUpSectionLine()
                lineBytes.withUnsafeBufferPointer { hashUpSection($0) }
                hashUpSection(part)
            }
        }

        /// Ends the current line at byte `offset` (its newline, or the end).
        mutating func endLine(at offset: Int) throws {
            switch state {
            case .sql:
                break
            case .leading:
                startUpSectionLine()
                lineBytes.withUnsafeBufferPointer { hashUpSection($0) }
            case .kept:
                let marker = try classifyKeptLine(end: offset)
                if case .down = marker?.kind, scope == .upSection {
                    scope = .done
                } else {
                    startUpSectionLine()
                    lineBytes.withUnsafeBufferPointer { hashUpSection($0) }
                }
                if scope == .undecided {
                    if case .up = marker?.kind {
                        scope = .upSection
                    } else if firstSQLLine != nil {
                        scope = .wholeText
                    }
                }
            }
            line += 1
            lineStart = offset + 1
            state = .leading
            lineBytes.removeAll(keepingCapacity: true)
        }

        /// The newline before each line of the up section but its first.
        private mutating func startUpSectionLine() {
            guard scope == .upSection else { return }
            if upLines > 0 { upHash.update(data: [UInt8(ascii: "\n")]) }
            upLines += 1
        }

        private mutating func hashUpSection(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard scope == .upSection, !bytes.isEmpty else { return }
            upHash.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        }

        /// Reads a kept line as text: a marker, a comment or SQL.
        private mutating func classifyKeptLine(end: Int) throws -> MigrationMarker? {
            var text = String(decoding: lineBytes, as: UTF8.self)
            if line == 0 {
                text = MigrationSections.withoutByteOrderMark(text)
                hasNoTransactionDirective = text.trimmingSpaces() == MigrationFile.noTransactionDirective
            }
            if firstSQLLine == nil && !MigrationFile.isCommentOrBlank(text) { firstSQLLine = line }
            do {
                guard let marker = try MigrationMarker.parse(text) else { return nil }
                markers.append(MarkerLine(line: line, start: lineStart, end: end, marker: marker))
                return marker
            } catch let unsupported as MigrationMarker.Unsupported {
                throw DBToolError(
                    .dataError, "\(path):\(line + 1): `\(text.trimmingSpaces())`: \(unsupported.reason)",
                    hint: "dbtool never runs a file whose markers it does not understand: fix or remove that line.")
            }
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
}
