import Foundation
import Testing

@testable import DBToolCore

/// The sections of a migration are read from its bytes in one pass; they
/// must be what the file's lines say, line by line, as defined below.
@Suite("Migration sections from the file's lines")
struct MigrationSectionsTests {
    /// The definition, on lines: markers are the comment lines that
    /// `MigrationMarker.parse` reads as such (the first line without its
    /// byte order mark); the up section is the lines between the up marker
    /// and the down marker (or the end), joined by newlines.
    struct Expected: Equatable {
        var up: String
        var down: String?
        var upFirstLine: Int
        var downFirstLine: Int?
        var outsideTransaction: Bool
    }

    func expected(_ contents: String) -> Expected? {
        let text = contents.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var lines = text.components(separatedBy: "\n")
        let bom = lines[0].hasPrefix("\u{FEFF}")
        var markers: [(Int, MigrationMarker)] = []
        for (index, line) in lines.enumerated() {
            do {
                if let marker = try MigrationMarker.parse(index == 0 && bom ? String(line.dropFirst()) : line) { markers.append((index, marker)) }
            } catch {
                return nil  // a marker dbtool does not understand: the file is refused
            }
        }
        let directive = (bom ? String(lines[0].dropFirst()) : lines[0]).trimmingCharacters(in: .whitespaces) == "-- dbtool:no-transaction"
        guard !markers.isEmpty else { return Expected(up: text, down: nil, upFirstLine: 1, downFirstLine: nil, outsideTransaction: directive) }
        guard markers.count == 2 || markers.count == 1 else { return nil }
        let up = markers[0]
        guard case .up(let upInTransaction) = up.1.kind else { return nil }
        if bom { lines[0] = String(lines[0].dropFirst()) }
        if lines[..<up.0].contains(where: { !MigrationFile.isCommentOrBlank($0) }) { return nil }
        if markers.count == 2 {
            guard case .down = markers[1].1.kind else { return nil }
            return Expected(
                up: lines[(up.0 + 1)..<markers[1].0].joined(separator: "\n"), down: lines[(markers[1].0 + 1)...].joined(separator: "\n"),
                upFirstLine: up.0 + 2, downFirstLine: markers[1].0 + 2, outsideTransaction: !upInTransaction || directive)
        }
        return Expected(
            up: lines[(up.0 + 1)...].joined(separator: "\n"), down: nil, upFirstLine: up.0 + 2, downFirstLine: nil,
            outsideTransaction: !upInTransaction || directive)
    }

    @Test("random files of markers, SQL, comments, blank lines, Unicode spaces and line endings read as their lines say")
    func randomFiles() throws {
        let pieces = [
            "-- migrate:up", "-- migrate:down", "-- migrate:up transaction:false", "CREATE TABLE t(x);", "  INSERT INTO t VALUES ('é');",
            "-- a comment", "\t-- migrate: prose", "", "   ", "\u{00A0}-- a comment after a no-break space", "\u{00A0}SELECT 1;",
            "-- dbtool:no-transaction", "\u{FEFF}-- migrate:up", "SELECT '--';", "-- migrate:dwon",
        ]
        let endings = ["\n", "\r\n", "\r"]
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 0...7, using: &generator)
            let ending = endings.randomElement(using: &generator)!
            var contents = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: ending)
            if Bool.random(using: &generator) { contents += ending }
            let want = expected(contents)
            // Read in chunks of a few bytes: lines, CRLF pairs and UTF-8
            // sequences cross their ends.
            let chunkSize = Int.random(in: 1...9, using: &generator)
            let got = try? MigrationFile(path: "/m/0001_a.sql", source: .text(Array(contents.utf8)), chunkSize: chunkSize)
            #expect((want == nil) == (got == nil), "\(contents.debugDescription): \(String(describing: want)) vs \(String(describing: got))")
            guard let want, let got else { continue }
            compared += 1
            let mine = Expected(
                up: try got.sql(.up) ?? "", down: try got.sql(.down), upFirstLine: got.upFirstLine, downFirstLine: got.downFirstLine,
                outsideTransaction: got.runsOutsideTransaction)
            #expect(mine == want, "\(contents.debugDescription)")
            #expect(try got.checksum == sha256Hex(want.up))
        }
        #expect(compared > 500)
    }

    @Test("a script read in chunks is cut into batches at the ends of its statements, and only there")
    func statementBatches() throws {
        let statements = [
            "CREATE TABLE t(x);", "\nINSERT INTO t VALUES ('a;b'), ('it''s;');", " -- a comment; not an end\nSELECT 1;",
            "\n/* a block; comment */ SELECT \"semi;colon\" FROM t;", "\nSELECT [a;b], `c;d` FROM t;",
            "\nCREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  INSERT INTO t VALUES (1);\n  SELECT CASE WHEN 1 THEN 2 END;\nEND;",
            "\nSELECT 'é;';", "\nSELECT 2 - -1;", "\nSELECT 4 /2;",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let script = (0..<Int.random(in: 1...12, using: &generator)).map { _ in statements.randomElement(using: &generator)! }
            let bytes = Array(script.joined().utf8)
            var batches = StatementBatches(batchSize: 1)
            var got: [(String, Int)] = []
            let chunkSize = Int.random(in: 1...16, using: &generator)
            for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                try bytes[start..<min(start + chunkSize, bytes.count)].withUnsafeBufferPointer { chunk in
                    try batches.feed(chunk) { got.append(($0, $1)) }
                }
            }
            try batches.finish { got.append(($0, $1)) }
            // With a batch size of 1, each chunk hands out every statement
            // it completed: the script is cut after a chunk at the end of the
            // last whole statement read.
            #expect(got.map(\.0).joined() == script.joined())
            var statementEnds: [Int] = []
            for statement in script { statementEnds.append((statementEnds.last ?? 0) + statement.utf8.count) }
            var expectedCuts: [Int] = []
            for chunkEnd in stride(from: chunkSize, to: bytes.count + chunkSize, by: chunkSize) {
                if let end = statementEnds.last(where: { $0 <= min(chunkEnd, bytes.count) }), end > (expectedCuts.last ?? 0) {
                    expectedCuts.append(end)
                }
            }
            var cuts: [Int] = []
            for (batch, line) in got {
                #expect(line == bytes.prefix(cuts.last ?? 0).filter { $0 == UInt8(ascii: "\n") }.count)
                cuts.append((cuts.last ?? 0) + batch.utf8.count)
            }
            #expect(cuts == expectedCuts, "\(script) in chunks of \(chunkSize)")
        }
    }
}
