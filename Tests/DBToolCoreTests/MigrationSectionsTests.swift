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
            let got = try? MigrationFile(path: "/m/0001_a.sql", contents: contents)
            #expect((want == nil) == (got == nil), "\(contents.debugDescription): \(String(describing: want)) vs \(String(describing: got))")
            guard let want, let got else { continue }
            compared += 1
            let mine = Expected(
                up: got.up, down: got.down, upFirstLine: got.upFirstLine, downFirstLine: got.downFirstLine,
                outsideTransaction: got.runsOutsideTransaction)
            #expect(mine == want, "\(contents.debugDescription)")
            #expect(got.checksum == MigrationFile.sha256(want.up))
        }
        #expect(compared > 500)
    }
}

