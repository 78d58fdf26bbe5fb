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
            (["backup", "--database", "d", "--output-dir", "b", "--keep", "-1"], "must be 1 or more"),
            (["snapshot", "--database", "d", "--output-dir", "s", "--keep", "-1"], "must be 1 or more"),
            (["migrate", "rollback", "--database", "d", "--migrations", "m", "--steps", "-3"], "must be 1 or more"),
            (["check", "--database", "d", "--max-wal", "lots"], "lots"),
            (["check", "--database", "d", "--jobs", "0"], "--jobs"),
            (["vacuum", "--database", "d", "--live", "--incremental", "5"], "--incremental"),
            (["snapshot", "--database", "a", "--database", "b", "--output", "x.sqlite"], "--output"),
            (["snapshot", "--database", "d"], "--output"),
            (["snapshot", "--database", "d", "a.sqlite", "--output-dir", "s"], "--output-dir"),
            (["snapshot", "--database", "d", "a.sqlite", "--keep", "2"], "--keep"),
            (["snapshot", "--database", "d", "--output", "c.sqlite", "d.sqlite"], "--output FILE"),
            (["restore", "x.tar.zst", "r", "--live", "--timeout", "1e300"], "from 0 to 86400"),
            (["backup", "--database", "d", "--output", "b.tar", "--threads", "100000"], "--threads must be from 0 to 256"),
            (["init", "m", "--mode", "77777"], "--mode"),
            (["init", "m", "--mode", "rwx"], "--mode"),
            (["schema", "--database", "d", "--sql", "--format", "json"], "--sql"),
            (["checkpoint", "--database", "d", "--mode", "hard"], "hard"),
            (["backup", "--database", "d", "--output", "a", "--report", "json"], "--report is now --format"),
            (["backup", "--database", "d", "--output", "a", "--format", "tar.gz"], "--archive-format tar.gz"),
            (["backup", "--database", "d", "--output", "a", "--archive-format", "rar"], "rar"),
            (["backup", "--database", "d", "--to", "s3://b/x/", "--sse", "AES256", "--sse-kms-key-id", "k"], "--sse aws:kms"),
            (["backup", "--database", "d", "--to", "s3://b/x/", "--sse", "aws:kms2"], "aws:kms"),
            (["backup", "--database", "d", "--output", "b.tar.zst", "--sse", "AES256"], "--sse works with --to"),
            (
                [
                    "backup", "--database", "d", "--output", "x.zip", "--encrypt", "--passphrase-file", "k", "--passphrase-command",
                    "echo k",
                ],
                "exclude each other"
            ),
            (["restore", "/replica", "copy", "--log-format", "json"], "--follow"),
        ]
        for (arguments, expected) in cases {
            let message = RunEnvironment.$variables.withValue([:]) { refusal(arguments) }
            #expect(message?.contains(expected) == true, "\(arguments): \(message ?? "parsed")")
        }
        for timeout in ["1e300", "-1", "nan", "inf", "86401"] {
            let message = refusal(["exec", "--database", "d", "--timeout=\(timeout)", "SELECT 1"])
            #expect(message?.contains("from 0 to 86400") == true, "\(timeout): \(message ?? "parsed")")
        }
        #expect(refusal(["exec", "--database", "d", "--timeout", "86400", "SELECT 1"]) == nil)
        for levels in ["5m,30s", "30s,30s", "", "1s,2s,3s,4s,5s,6s,7s,8s,9s", "30x"] {
            let message = refusal(["replicate", "--database", "d", "--to", "/r", "--compaction-levels", levels])
            #expect(
                message?.contains("--compaction-levels") == true || message?.contains("duration") == true,
                "\(levels): \(message ?? "parsed")")
        }
    }

    @Test("an empty path is refused wherever a path is taken, and empty variables are no default")
    func emptyPaths() {
        let cases: [[String]] = [
            ["restore", "a.tar.zst", ""], ["restore", "", "x"], ["backup", "verify", ""], ["backup", "list", ""],
            ["backup", "--database", "", "--output", "b.tar.zst"], ["backup", "--database", "d", "--output", ""],
            ["backup", "--database", "d", "--output-dir", ""], ["snapshot", "--database", "d", "--output", ""],
            ["snapshot", "--database", "d", "--output-dir", ""], ["exec", "--database", "", "SELECT 1"],
            ["exec", "--database", "d", "--file", ""], ["schema", "--database", ""], ["checkpoint", "--database", ""], ["init", ""],
            ["init", "n", "--migrations", ""], ["migrate", "--database", "d", "--migrations", ""],
            ["migrate", "status", "--database", "", "--migrations", "m"], ["exec", "--database", "d", "--file-name", "", "SELECT 1"],
            ["backup", "prune", "", "--keep", "1"], ["migrate", "status", "--database", "d"],
        ]
        for arguments in cases {
            let message = RunEnvironment.$variables.withValue(["DBTOOL_MIGRATIONS": "", "DBTOOL_DATABASE": ""]) { refusal(arguments) }
            #expect(message != nil, "\(arguments): parsed")
        }
    }

    @Test("environment fallbacks: $DBTOOL_DATABASE, $DBTOOL_MIGRATIONS and $DBTOOL_PASSPHRASE stand for their options")
    func environmentFallbacks() throws {
        // The variables are read when the run asks, so each check runs with them bound.
        func with(_ environment: [String: String], _ body: () throws -> Void) throws {
            try RunEnvironment.$variables.withValue(environment, operation: body)
        }
        func refused(_ arguments: [String], _ environment: [String: String] = [:]) -> String? {
            RunEnvironment.$variables.withValue(environment) { refusal(arguments) }
        }
        // The database; a glob in the variable names a fleet, as on the command line.
        #expect(refused(["check"])?.contains("no database: pass --database PATH") == true)
        try with(["DBTOOL_DATABASE": "/srv/app"]) {
            let one = try parse(["check"]) as? CheckCommand
            #expect(one?.database.namesFleet == false)
        }
        try with(["DBTOOL_DATABASE": "/srv/*/db"]) {
            let glob = try parse(["check"]) as? CheckCommand
            #expect(glob?.database.namesFleet == true)
            // An option given wins over the variable: one given is one database, not a fleet with the variable.
            let given = try parse(["check", "--database", "/a"]) as? CheckCommand
            #expect(given?.database.namesFleet == false)
        }
        // The migrations directory.
        #expect(refused(["migrate", "status", "--database", "d"])?.contains("no migrations directory") == true)
        try with(["DBTOOL_MIGRATIONS": "/m"]) {
            let status = try parse(["migrate", "status", "--database", "d"]) as? MigrateStatus
            let path = try status?.migrations.path
            #expect(path == "/m")
            let given = try parse(["migrate", "status", "--database", "d", "--migrations", "/given"]) as? MigrateStatus
            let givenPath = try given?.migrations.path
            #expect(givenPath == "/given")
        }
        // The passphrase; an empty variable is none.
        let encrypted = ["backup", "--database", "d", "--output", "x.zip", "--encrypt"]
        #expect(refused(encrypted)?.contains("--encrypt needs a passphrase") == true)
        #expect(refused(encrypted, ["DBTOOL_PASSPHRASE": ""])?.contains("$DBTOOL_PASSPHRASE") == true)
        #expect(refused(encrypted, ["DBTOOL_PASSPHRASE": "secret"]) == nil)
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

    @Test("--format json: a usage error is one document with its status and message; help and --version are none")
    func jsonUsageErrors() throws {
        func document(_ arguments: [String]) throws -> [String: Any]? {
            do {
                _ = try parse(arguments)
                return nil
            } catch {
                guard let text = CommandRunner.usageErrorDocument(error) else { return nil }
                return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            }
        }
        let refused = try #require(try document(["check", "--database", "d", "--jobs", "0", "--format", "json"]))
        let error = try #require(refused["error"] as? [String: Any])
        #expect(error["status"] as? Int == 64, "\(error)")
        #expect((error["message"] as? String)?.contains("--jobs") == true, "\(error)")
        #expect(refused.count == 1, "one key, error: \(refused)")
        #expect(try document(["check", "--help"]) == nil)
        #expect(try document(["--version"]) == nil)
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
