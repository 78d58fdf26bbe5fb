import Foundation
import TestSupport
import Testing

/// What a person at a terminal sees while a long command runs: one line
/// per phase, redrawn in place, with its share done and its rate.
@Suite("Progress on a terminal")
struct ProgressLineTests {
    let scratch = TemporaryDirectory()

    /// Runs dbtool with stdout and stderr on a pseudo-terminal (`script`).
    private func onTerminal(_ arguments: [String]) throws -> ToolResult {
        let command = ([toolURL.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: testEnvironment, stdin: nil)
    }

    @Test("backup draws its compression on a line redrawn in place, with its share and rate")
    func backup() throws {
        let database = try scratch.makeLargeDatabase()
        // Level 15: seconds of compression, so that the line (drawn after a second) shows.
        let terminal = try onTerminal(["backup", "--database", database, "--output-dir", scratch.file("tty"), "--level", "15"])
        #expect(terminal.status == 0, "\(terminal.stdout)")
        let lines = terminal.stdout.components(separatedBy: "\r\u{1B}[K").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let archiving = lines.filter { $0.hasPrefix("archiving: ") }
        #expect(!archiving.isEmpty, "\(lines)")
        #expect(archiving.allSatisfy { $0.contains("% (") && $0.contains("/s)") }, "\(archiving)")
    }
}
