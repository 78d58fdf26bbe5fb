import ArgumentParser
import Foundation
import Testing

@testable import DBToolCore
@testable import dbtool

/// The command line parsed in this process, as ArgumentParser's own tests
/// do (`AssertParse`): every example of every help page, the defaults, the
/// refusals, the units, and the command tree's every option in every
/// shell's completions. The binary is spawned only where the process
/// matters (signals, exit statuses, files).
@Suite("Command lines, parsed in process")
struct ParseTests {
    /// Every command of the tree (`DBTool` and below), with its path of names.
    static let commands: [(path: [String], type: any ParsableCommand.Type)] = {
        func walk(_ type: any ParsableCommand.Type, _ path: [String]) -> [(path: [String], type: any ParsableCommand.Type)] {
            let name = type.configuration.commandName ?? ""
            let here = path + [name]
            return [(here, type)] + type.configuration.subcommands.flatMap { walk($0, here) }
        }
        return walk(DBTool.self, [])
    }()

    /// Parses `arguments` as a run does.
    private func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try DBTool.parseAsRoot(arguments)
    }

    /// The usage error `arguments` get: ArgumentParser's message.
    private func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return DBTool.exitCode(for: error) == .validationFailure ? DBTool.message(for: error) : "exit \(DBTool.exitCode(for: error))"
        }
    }

    @Test("every example of every help page parses")
    func examples() throws {
        var count = 0
        for (path, type) in Self.commands {
            let lines = (type.configuration.discussion).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            for line in lines where line.hasPrefix("dbtool ") {
                // What a shell would do first: environment assignments and pipes are not dbtool's.
                guard let words = ShellWords.split(line), !line.contains("|"), !line.contains(">") else { continue }
                count += 1
                do {
                    _ = try parse(Array(words.dropFirst()))
                } catch {
                    Issue.record("\(path.joined(separator: " ")): `\(line)` does not parse: \(DBTool.message(for: error))")
                }
            }
        }
        #expect(count >= 40, "only \(count) examples found")
    }

    @Test("defaults: replicate's intervals and retention, backup's destination rules, the database from the environment")
    func defaults() throws {
        let replicate = try #require(try parse(["replicate", "--database", "/srv/app", "--to", "/mnt/replica"]) as? ReplicateRunCommand)
        #expect(replicate.syncInterval == 1 && replicate.retention.seconds == 86_400 && replicate.compactionLevels == [30, 300, 3600])
        #expect(replicate.database.database == ["/srv/app"] && replicate.database.timeout == DatabaseHandle.defaultTimeout)
        let backup = try #require(try parse(["backup", "--database", "/srv/app", "--output-dir", "/backups"]) as? CreateBackupCommand)
        #expect(backup.outputDir == "/backups" && backup.retention.policy.isEmpty)
        // `migrate` alone is `migrate up`.
        #expect(try parse(["migrate", "--database", "/srv/app", "--migrations", "/m"]) is MigrateUp)
    }

    @Test("refusals name the option and the fix")
    func refusals() {
        let cases: [([String], String)] = [
            (["backup", "--database", "d", "--output", "f", "--output-dir", "o"], "give exactly one destination"),
            (["backup", "--database", "d", "--output", "f", "--keep", "3"], "--keep 3 works with --output-dir or --to only"),
            (["backup", "--database", "d", "--to", "/local"], "--to takes an s3://BUCKET/PREFIX/ URL"),
            (["replicate", "--database", "d"], "no replica"),
            (["replicate", "--database", "d", "--to", "/r", "--retention", "30"], "30 is not a duration"),
            (["replicate", "--database", "d", "--to", "/r", "--retention", "1e300m"], "1e300m is longer than 100 years"),
            (["replicate", "--database", "d", "--to", "/r", "--compaction-levels", "30s,1e300d"], "1e300d is longer than 100 years"),
            (["replicate", "--database", "d", "--to", "/r", "--compaction-levels", "5m,30s"], "each longer than the one before"),
            (["check", "--database", "d", "--timeout", "-1"], "--timeout must be a number of seconds"),
            (["check", "--database", "d", "--config", "c.yml"], "--config and --database exclude each other"),
            (["backup", "prune", "/backups", "--keep-within", "3w"], "3w is not a duration: write numbers with y, mo"),
            (["backup", "prune", "/backups", "--keep", "0"], "--keep must be 1 or more"),
        ]
        for (arguments, expected) in cases {
            let message = refusal(arguments)
            #expect(message?.contains(expected) == true, "\(arguments): \(message ?? "parsed")")
        }
    }

    @Test("--database: repeated names a fleet, a quoted glob too, one path does not; an unquoted glob gets its hint")
    func databases() throws {
        let one = try #require(try parse(["check", "--database", "/srv/a"]) as? CheckCommand)
        #expect(!one.database.namesFleet)
        let two = try #require(try parse(["check", "--database", "/srv/a", "--database", "/srv/b"]) as? CheckCommand)
        #expect(two.database.namesFleet && two.database.database == ["/srv/a", "/srv/b"])
        let glob = try #require(try parse(["check", "--database", "/srv/tenants/*/db"]) as? CheckCommand)
        #expect(glob.database.namesFleet)
        // The shell expanded `--database tenants/*/db`: two existing paths, the second unexpected.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-\(UUID())").path
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(name)/db", withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let expanded = ["check", "--database", "\(directory)/a/db", "\(directory)/b/db"]
        #expect(refusal(expanded) != nil)
        #expect(GlobSuggestion.message(for: expanded)?.contains("unquoted glob") == true)
    }

    @Test("--format json: requested before a --, never with --quiet")
    func jsonRequests() {
        #expect(CommandRunner.requestsJSON(["check", "--format", "json"]))
        #expect(CommandRunner.requestsJSON(["check", "--format=json"]))
        #expect(!CommandRunner.requestsJSON(["exec", "--", "--format", "json"]))
        #expect(!CommandRunner.requestsJSON(["check", "--format", "json", "--quiet"]))
        #expect(!CommandRunner.requestsJSON(["check", "--format", "text"]))
    }

    @Test("durations: a bare m is minutes for --retention (said so), months for --keep-within (said so); mo and min are plain")
    func durationUnits() throws {
        func retention(_ text: String) throws -> DurationArgument {
            try #require(try parse(["replicate", "--database", "d", "--to", "/r", "--retention", text]) as? ReplicateRunCommand).retention
        }
        #expect(try retention("30m").seconds == 1800)
        #expect(
            try retention("30m").readAs(option: "--retention")
                == "--retention 30m is read as 30 minutes (m is minutes, as Litestream's; write mo for months)")
        for (text, seconds) in [("30min", 1800.0), ("2h", 7200), ("7d", 604_800), ("1mo", 2_592_000), ("90s", 90), ("1.5h", 5400)] {
            #expect(try retention(text).seconds == seconds, "\(text)")
            #expect(try retention(text).readAs(option: "--retention") == nil, "\(text)")
        }
        let levels = try #require(
            try parse(["replicate", "--database", "d", "--to", "/r", "--compaction-levels", "30s,5min,1h"]) as? ReplicateRunCommand)
        #expect(levels.compactionLevels == [30, 300, 3600])
        let prune = try #require(try parse(["backup", "prune", "/backups", "--keep-within", "6m"]) as? PruneBackupCommand)
        #expect(prune.retention.keepWithin?.months == 6 && prune.retention.keepWithin?.usesBareM == true)
        let minutes = try #require(try parse(["backup", "prune", "/backups", "--keep-within", "90min"]) as? PruneBackupCommand)
        #expect(minutes.retention.keepWithin?.minutes == 90 && minutes.retention.keepWithin?.usesBareM == false)
    }

    /// The tree help, completions and the man page are generated from:
    /// ArgumentParser's own description of ``DBToolInterface``.
    private static func toolInfo() throws -> [String: Any] {
        let dump = Data(DBToolInterface._dumpHelp().utf8)
        return try #require(try JSONSerialization.jsonObject(with: dump) as? [String: Any])
    }

    /// Each command's path and its options' long names, from the dump.
    private static func optionsByCommand(_ command: [String: Any], _ path: [String] = []) -> [(path: [String], options: [String])] {
        let here = path + [command["commandName"] as? String ?? ""]
        let arguments = command["arguments"] as? [[String: Any]] ?? []
        let options = arguments.compactMap { argument -> String? in
            guard argument["kind"] as? String != "positional", (argument["shouldDisplay"] as? Bool) != false else { return nil }
            let names = argument["names"] as? [[String: Any]] ?? []
            return names.first { $0["kind"] as? String == "long" }?["name"] as? String
        }
        let subcommands = command["subcommands"] as? [[String: Any]] ?? []
        return [(here, options)] + subcommands.flatMap { optionsByCommand($0, here) }
    }

    @Test("every subcommand and option of the command tree is in the completions of every shell, and in the reference")
    func completionsCoverTheTree() throws {
        let tree = try #require(try Self.toolInfo()["command"] as? [String: Any])
        let commands = Self.optionsByCommand(tree)
        #expect(commands.count >= 25, "\(commands.count) commands")
        let reference = try String(contentsOfFile: Self.repository + "/docs/cli-reference.md", encoding: .utf8)
        for shell in ["bash", "zsh", "fish"] {
            let script = try String(contentsOfFile: "\(Self.repository)/completions/dbtool.\(shell)", encoding: .utf8)
            // As `dbtool --generate-completion-script SHELL` prints it: with a last newline.
            let current = script == DBToolInterface.completionScript(for: CompletionShell(rawValue: shell)!) + "\n"
            #expect(current, "completions/dbtool.\(shell) is stale: run `make completions`")
            for (path, options) in commands {
                #expect(script.contains(path.last!), "\(shell): no \(path.joined(separator: " "))")
                for option in options where option != "help" {
                    // fish spells an option `-l NAME`; bash and zsh `--NAME`.
                    let spelled = shell == "fish" ? "-l '\(option)'" : "--\(option)"
                    #expect(
                        script.contains(spelled) || script.contains("-l \(option)"),
                        "\(shell): no \(spelled) for \(path.joined(separator: " "))")
                }
            }
        }
        for (path, options) in commands where path.count > 1 {
            let heading = path.dropFirst().joined(separator: " ")
            #expect(reference.contains(heading), "docs/cli-reference.md: no \(heading)")
            for option in options where option != "help" {
                #expect(reference.contains("--\(option)"), "docs/cli-reference.md: no --\(option) of \(heading)")
            }
        }
    }

    /// The repository's root.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
