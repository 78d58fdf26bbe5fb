import Foundation
import Testing
import TestSupport

/// The files under completions/ are generated from the command declarations
/// (`make completions`); these tests fail when the committed ones are stale.
@Suite("Generated completions and man page")
struct GeneratedFilesTests {
    /// The repository's completions/ directory.
    private static let completions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("completions").path

    @Test("completion scripts match the declarations", arguments: ["bash", "zsh", "fish"])
    func completionScript(shell: String) throws {
        let generated = try dbtool(["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try String(contentsOfFile: "\(Self.completions)/dbtool.\(shell)", encoding: .utf8)
        #expect(generated.stdout == committed, "completions/dbtool.\(shell) is stale: run `make completions`")
    }

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

    @Test("the man page matches the declarations")
    func manPage() throws {
        let output = NSTemporaryDirectory() + "dbtool-man-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = toolURL.deletingLastPathComponent().appendingPathComponent("generate-manual")
        process.arguments = [toolURL.path, "--date", "2026-11-22", "--output-directory", output]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let generated = try String(contentsOfFile: "\(output)/dbtool.1", encoding: .utf8)
        let committed = try String(contentsOfFile: "\(Self.completions)/dbtool.1", encoding: .utf8)
        #expect(generated == committed, "completions/dbtool.1 is stale: run `make completions`")
        #expect(committed.contains("snapshot") && committed.contains("75"))
    }
}
