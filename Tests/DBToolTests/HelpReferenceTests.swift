import Foundation
import Testing

/// The CLI's help is its reference: `docs/cli-reference.md` is generated from
/// it, and the options the help's prose and examples name must exist.
@Suite("Help and the CLI reference")
struct HelpReferenceTests {
    /// One command of the tree `dbtool --experimental-dump-help` describes.
    struct Command {
        var path: [String]
        var longOptions: Set<String>
        /// Those the help shows (not `.hidden`).
        var visibleLongOptions: Set<String>
        var defaultSubcommand: String?
        /// The command's discussion: what `--help` leaves to the man page and this reference.
        var discussion: String?
        var texts: [String]
        var subcommands: [Command]

        init(_ json: [String: Any], path: [String]) {
            self.path = path
            let arguments = json["arguments"] as? [[String: Any]] ?? []
            longOptions = Set(
                arguments.flatMap { ($0["names"] as? [[String: Any]]) ?? [] }
                    .filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String })
            visibleLongOptions = Set(
                arguments.filter { $0["shouldDisplay"] as? Bool != false }.flatMap { ($0["names"] as? [[String: Any]]) ?? [] }
                    .filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String })
            defaultSubcommand = json["defaultSubcommand"] as? String
            discussion = json["discussion"] as? String
            texts =
                [json["abstract"] as? String, json["discussion"] as? String].compactMap { $0 }
                + arguments.compactMap { $0["abstract"] as? String }
            subcommands = ((json["subcommands"] as? [[String: Any]]) ?? []).map {
                Command($0, path: path + [$0["commandName"] as? String ?? "?"])
            }
        }

        var all: [Command] { [self] + subcommands.flatMap(\.all) }

        /// The command an example's words name, from the words after `dbtool`.
        func resolve(_ words: ArraySlice<String>) -> Command {
            guard let first = words.first, let sub = subcommands.first(where: { $0.path.last == first }) else {
                // A command with a default subcommand takes its options.
                if let defaultSubcommand, let sub = subcommands.first(where: { $0.path.last == defaultSubcommand }) {
                    var merged = self
                    merged.longOptions.formUnion(sub.longOptions)
                    return merged
                }
                return self
            }
            return sub.resolve(words.dropFirst())
        }
    }

    private static func commandTree() throws -> Command {
        let dump = try dbtool(["--experimental-dump-help"])
        try #require(dump.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        return Command(try #require(json["command"] as? [String: Any]), path: ["dbtool"])
    }

    /// `--name` in `text`, without `=value`.
    private static func options(in text: Substring) -> [String] {
        text.split(whereSeparator: { " \t\n`'\"(),;[]".contains($0) })
            .filter { $0.hasPrefix("--") && $0.count > 2 }
            .map { String($0.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" }) }
            .filter { !$0.isEmpty }
    }

    @Test("every option an example or the prose of a help names exists on the command it names")
    func optionsExist() throws {
        let root = try Self.commandTree()
        let always: Set = ["help", "version"]
        var problems: [String] = []
        for command in root.all {
            for text in command.texts {
                for line in text.split(separator: "\n") {
                    // Each `dbtool ...` segment of a line, up to a shell separator, is an example.
                    var mentioned = Set(Self.options(in: line))
                    for segment in line.components(separatedBy: "dbtool ").dropFirst() {
                        let commandText = segment.prefix { !"|;&>`".contains($0) }
                        let words = commandText.split(separator: " ").map(String.init)
                        let target = root.resolve(words[...])
                        for option in Self.options(in: commandText[...]) {
                            mentioned.remove(option)
                            if !target.longOptions.union(always).contains(option) {
                                problems.append(
                                    "\(command.path.joined(separator: " ")): `dbtool \(commandText)` uses --\(option), which `\(target.path.joined(separator: " "))` does not have"
                                )
                            }
                        }
                    }
                    // Prose: the option belongs to this command or one of its subcommands.
                    let known = command.all.reduce(always) { $0.union($1.longOptions) }
                    for option in mentioned where !known.contains(option) {
                        problems.append("\(command.path.joined(separator: " ")): the help mentions --\(option), which it does not have")
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("every command's --help fits a terminal: at most 60 lines, usage within the first 10, every option named")
    func helpFits() throws {
        for command in try Self.commandTree().all {
            let words = Array(command.path.dropFirst())
            let help = try dbtool(words + ["--help"])
            #expect(help.status == 0, "\(words): \(help.stderr)")
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count <= 60, "dbtool \(words.joined(separator: " ")) --help has \(lines.count) lines")
            let usage = lines.firstIndex { $0.hasPrefix("USAGE: ") }
            #expect(
                usage.map { $0 < 10 } == true, "dbtool \(words.joined(separator: " ")) --help: USAGE on line \(usage.map { $0 + 1 } ?? 0)")
            // Shortened, never lost: each option is there, described or by name.
            for option in command.visibleLongOptions where option != "experimental-dump-help" && option != "generate-completion-script" {
                #expect(help.stdout.contains("--" + option), "dbtool \(words.joined(separator: " ")) --help lost --\(option)")
            }
        }
    }

    @Test("every example of every help fits in 80 columns, so that it pastes as one command")
    func examplesFit() throws {
        var tooLong: [String] = []
        for command in try Self.commandTree().all {
            for text in command.texts {
                // Examples and code are the indented lines; --help wraps at 80 columns.
                for line in text.split(separator: "\n") where line.hasPrefix("  ") && line.count > 80 {
                    tooLong.append("\(command.path.joined(separator: " ")): \(line.count) columns: \(line)")
                }
            }
        }
        #expect(tooLong.isEmpty, "\(tooLong.joined(separator: "\n"))")
    }

    /// The repository's docs/cli-reference.md.
    private static let referencePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli-reference.md").path

    @Test("docs/cli-reference.md is every command's --help (`make completions` regenerates it)")
    func reference() throws {
        var text = """
            # dbtool command reference

            Generated from `dbtool --help` of every command at 80 columns, and the whole
            discussion `--help` leaves out, by `make completions`; a test fails when it is
            stale. The operator's guide is [dbtool.md](dbtool.md); the man page is
            `man/dbtool.1` (`man dbtool` once installed).

            """
        for command in try Self.commandTree().all where command.path.last != "help" {
            let help = try dbtool(Array(command.path.dropFirst()) + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            text += "\n## \(command.path.joined(separator: " "))\n\n```text\n\(help.stdout.trimmingCharacters(in: .newlines))\n```\n"
            if let discussion = command.discussion?.trimmingCharacters(in: .whitespacesAndNewlines), !discussion.isEmpty {
                text += "\nHow it works:\n\n```text\n\(discussion)\n```\n"
            }
        }
        if ProcessInfo.processInfo.environment["DBTOOL_UPDATE_GENERATED"] == "1" {
            try text.write(toFile: Self.referencePath, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOfFile: Self.referencePath, encoding: .utf8)
        #expect(committed == text, "docs/cli-reference.md is stale: run `make completions`")
    }
}
