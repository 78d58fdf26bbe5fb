import Foundation
import Testing
import TestSupport

/// The files under completions/ and man/ are generated from the command
/// declarations (`make completions`); these tests fail when the committed
/// man page is stale, and check what the scripts offer.
@Suite("Generated completions and man page")
struct GeneratedFilesTests {
    /// The repository's completions/ directory.
    private static let completions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("completions").path

    // That the scripts match the declarations is checked in process (`ParseTests`).

    @Test("completions offer the checkpoint modes, the formats, and paths")
    func completionContent() throws {
        let bash = try String(contentsOfFile: "\(Self.completions)/dbtool.bash", encoding: .utf8)
        for words in [
            ["passive", "full", "restart", "truncate"], ["table", "csv", "tsv", "json", "jsonl"], ["text", "json"], ["wal", "delete"],
        ] {
            let list = "-W " + words.map { "'\($0)'" }.joined(separator: "$'\\n'")
            #expect(bash.contains(list), "\(list)")
        }
        // Files for --file, directories for --output-dir.
        #expect(bash.contains("'--file')\n        __dbtool_add_completions -f"))
        #expect(bash.contains("'--output-dir')\n        __dbtool_add_completions -d"))
    }

    /// The repository's man/ directory.
    private static let man = URL(fileURLWithPath: completions).deletingLastPathComponent().appendingPathComponent("man").path

    @Test("the man page matches the declarations")
    func manPage() throws {
        let description = try dbtool(["--experimental-dump-help"])
        #expect(description.status == 0)
        let generator = toolURL.deletingLastPathComponent().appendingPathComponent("generate-man-page").path
        let generated = try dbtool(["--date", "2026-11-23"], stdin: description.stdout, executable: generator)
        #expect(generated.status == 0, "\(generated.stderr)")
        let committed = try String(contentsOfFile: "\(Self.man)/dbtool.1", encoding: .utf8)
        #expect(generated.stdout == committed, "man/dbtool.1 is stale: run `make completions`")
    }

    @Test("mandoc -Tlint and groff -ww accept the man page without a message")
    func manPageLint() throws {
        let page = "\(Self.man)/dbtool.1"
        let mandoc = try dbtool(["mandoc", "-Tlint", "-Wall", page], executable: "/usr/bin/env")
        #expect(mandoc.status == 0 && mandoc.stdout.isEmpty && mandoc.stderr.isEmpty, "\(mandoc.stdout)\(mandoc.stderr)")
        let groff = try dbtool(["groff", "-ww", "-man", "-z", page], executable: "/usr/bin/env")
        #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff.stderr)")
    }

    @Test("the man page: examples on one line each at 80 columns, exit statuses, environment and files")
    func manPageContent() throws {
        let source = try String(contentsOfFile: "\(Self.man)/dbtool.1", encoding: .utf8)
        let rendered = try dbtool(["mandoc", "-Tascii", "-Owidth=80", "\(Self.man)/dbtool.1"], executable: "/usr/bin/env")
        #expect(rendered.status == 0)
        // Backspace overstrikes (bold) removed: the text as a reader sees it.
        let text = rendered.stdout.replacingOccurrences(of: #".\x08"#, with: "", options: .regularExpression)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var examples = 0
        var inExample = false
        for line in source.split(separator: "\n") {
            if line == ".EX" { inExample = true } else if line == ".EE" { inExample = false } else if inExample {
                let example = line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
                #expect(lines.contains(example), "the example `\(example)` is not on one line of the rendered page")
                examples += 1
            }
        }
        #expect(examples > 20)
        for heading in ["EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"] { #expect(lines.contains(heading), "\(heading)") }
        for status in [0, 64, 65, 66, 70, 73, 74, 75, 77, 130] { #expect(lines.contains(String(status)) || lines.contains { $0.hasPrefix("\(status) ") }) }
        for name in ["DBTOOL_DATABASE", "DBTOOL_MIGRATIONS", ".dbtool-migrate.lock", ".dbtool-manifest.json"] {
            #expect(text.contains(name), "\(name)")
        }
        #expect(!text.contains("`"), "backticks show literally")
        #expect(!source.contains("\n\n"), "an empty line in the source prints as a blank line")
    }
}
