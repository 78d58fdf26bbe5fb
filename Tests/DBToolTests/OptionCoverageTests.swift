import ArgumentParser
import Foundation
import Testing

@testable import DBToolCore
@testable import dbtool

/// Every option of every command, parsed in process: added to a command
/// line that parses, each one either lands in the parsed command (what it
/// holds differs from the line without it) or is refused with the message
/// of a documented conflict, and then lands in another line. A new option is covered the day it is
/// declared: the list comes from ArgumentParser's description of the tree.
@Suite("Every option of every command, parsed in process")
struct OptionCoverageTests {
    /// A command line of each command that has no example in its help.
    static let bases: [String: [String]] = [
        "migrate up": ["migrate", "up", "--database", "/srv/app", "--migrations", "/m"],
        "migrate rollback": ["migrate", "rollback", "--database", "/srv/app", "--migrations", "/m"],
        "migrate repair": ["migrate", "repair", "3", "--database", "/srv/app", "--migrations", "/m"],
        "migrate baseline": ["migrate", "baseline", "3", "--database", "/srv/app", "--migrations", "/m"],
        "migrate new": ["migrate", "new", "add_users", "--migrations", "/m"],
        "migrate restore-snapshot": ["migrate", "restore-snapshot", "--database", "/srv/app"],
        // Its first example has --live, a flag that is then tried on its own.
        "vacuum": ["vacuum", "--database", "/srv/app"],
    ]

    /// A value of each kind of option, by the value name its help shows.
    static let samples: [String: String] = [
        "seconds": "7", "n": "3", "mib": "8", "pages": "100", "duration": "2h", "durations": "10s,1min,2h",
        "file": "/etc/dbtool/other", "file-name": "main.db", "format": "json", "hours": "12", "into": "/tmp/compact.sqlite",
        "keep": "3", "key": "arn:aws:kms:us-east-1:123456789012:key/k", "level": "5", "name": "prod", "octal": "0640",
        "output": "/tmp/other.tar.zst", "output-dir": "/tmp/other", "passphrase-file": "/etc/dbtool/key", "command": "cat /etc/key",
        "dest": "/srv/other-backups", "dir": "/srv/other-migrations", "path": "/srv/other", "region": "eu-west-1",
        "replica": "/mnt/other-replica", "retries": "4", "rows": "500", "s3://bucket/prefix/": "s3://other/prefix/",
        "size": "128MiB", "snapshot": "/tmp/before.sqlite", "steps": "2", "storage-class": "STANDARD_IA", "table": "book",
        "threads": "3", "time": "2026-11-23T02:00:00Z", "txid": "0000000000000010", "upload-threads": "3",
        "url": "https://s3.example.com", "value": "7", "version|none": "none",
    ]

    /// Options that the base line of their command refuses: the message of
    /// the conflict, and a line the option lands in instead.
    static let conflicts: [String: (message: String, landsWith: [String])] = [
        "exec --file": ("give the SQL as an argument or with --file, not both", ["exec", "--database", "/srv/app"]),
        "snapshot --output-dir": ("give exactly one destination", ["snapshot", "--database", "/srv/app"]),
        "snapshot --keep": ("--keep works with --output-dir only", ["snapshot", "--database", "/srv/app", "--output-dir", "/s"]),
        "snapshot --database": ("--output names one file", ["snapshot", "--database", "/srv/app", "--output-dir", "/s"]),
        "snapshot --config": ("--output names one file", ["snapshot", "--output-dir", "/s"]),
        "backup create --output": ("give exactly one destination", ["backup", "--database", "/srv/app"]),
        "backup create --to": ("give exactly one destination", ["backup", "--database", "/srv/app"]),
        "backup create --encrypt": (
            "--encrypt needs a passphrase", ["backup", "--database", "/srv/app", "--output-dir", "/b", "--passphrase-file", "/k"]
        ),
        "backup create --passphrase-file": (
            "work with --encrypt", ["backup", "--database", "/srv/app", "--output-dir", "/b", "--encrypt"]
        ),
        "backup create --passphrase-command": (
            "work with --encrypt", ["backup", "--database", "/srv/app", "--output-dir", "/b", "--encrypt"]
        ),
        "backup create --sse": ("--sse works with --to", ["backup", "--database", "/srv/app", "--to", "s3://b/p/"]),
        "backup create --sse-kms-key-id": (
            "--sse-kms-key-id works with --sse aws:kms", ["backup", "--database", "/srv/app", "--to", "s3://b/p/", "--sse", "aws:kms"]
        ),
        "restore --log-format": ("--log-format shapes the log of --follow", ["restore", "/replica", "./copy", "--follow"]),
        "replicate run --config": ("it takes no --to", ["replicate"]),
        "vacuum --force": ("--force works with --into only", ["vacuum", "--database", "/srv/app", "--into", "/c.sqlite"]),
    ]

    /// Options that stand in for others: `--config` names the databases, so
    /// it is tried instead of the base line's `--database`.
    static let replaced: [String: String] = ["config": "database"]

    /// One option as ArgumentParser describes it.
    struct Option {
        var name: String
        var isFlag: Bool
        var valueName: String?
        var allValues: [String]
        var defaultValue: String?

        /// The words that give it, with a value that is not its default.
        var words: [String]? {
            if isFlag { return ["--\(name)"] }
            if let value = allValues.last(where: { $0 != defaultValue }) { return ["--\(name)", value] }
            return valueName.flatMap { OptionCoverageTests.samples[$0] }.map { ["--\(name)", $0] }
        }
    }

    /// The displayed long options of `type`, from its own description.
    static func options(of type: any ParsableCommand.Type) throws -> [Option] {
        let dump = try JSONSerialization.jsonObject(with: Data(type._dumpHelp().utf8)) as? [String: Any]
        let command = dump?["command"] as? [String: Any] ?? [:]
        return (command["arguments"] as? [[String: Any]] ?? []).compactMap { argument in
            guard argument["kind"] as? String != "positional", (argument["shouldDisplay"] as? Bool) != false else { return nil }
            let names = argument["names"] as? [[String: Any]] ?? []
            guard let name = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !(["help", "version"].contains(name) && argument["kind"] as? String == "flag")
            else { return nil }
            return Option(
                name: name, isFlag: argument["kind"] as? String == "flag", valueName: argument["valueName"] as? String,
                allValues: argument["allValues"] as? [String] ?? [], defaultValue: argument["defaultValue"] as? String)
        }
    }

    /// The first example of `type`'s help that parses as `type`, else its base.
    static func base(of path: [String], _ type: any ParsableCommand.Type) -> [String]? {
        let key = path.dropFirst().joined(separator: " ")
        if let base = bases[key] { return base }
        for line in type.configuration.discussion.split(separator: "\n") {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("dbtool "), !line.contains("|"), !line.contains(">"),
                let words = ShellWords.split(line).map({ Array($0.dropFirst()) }),
                let parsed = try? DBTool.parseAsRoot(words), Swift.type(of: parsed) == type
            else { continue }
            return words
        }
        return nil
    }

    /// What a parsed command holds, as text: two parses differ where it does.
    static func contents(_ command: any ParsableCommand) -> String {
        var text = ""
        dump(command, to: &text)
        return text
    }

    /// `arguments` parsed, or ArgumentParser's message for them.
    static func parse(_ arguments: [String]) -> Result<any ParsableCommand, ParseRefusal> {
        do {
            return .success(try DBTool.parseAsRoot(arguments))
        } catch {
            return .failure(ParseRefusal(message: DBTool.message(for: error)))
        }
    }

    /// A usage error's message.
    struct ParseRefusal: Error {
        var message: String
    }

    /// Whether `words` added to `line` parse as `type` and change what it holds:
    /// what `line` alone holds differs, or `line` alone is refused.
    /// `before` keeps what each line alone holds (nil when refused): a
    /// parse costs tens of milliseconds in a debug build.
    @discardableResult
    static func lands(
        _ words: [String], in line: [String], as type: any ParsableCommand.Type, _ key: String, before: inout [[String]: String?]
    ) -> Bool {
        switch parse(line + words) {
        case .failure(let refusal):
            Issue.record("\(key) (\((line + words).joined(separator: " "))): refused: \(refusal.message)")
            return false
        case .success(let parsed):
            if before[line] == nil { before[line] = (try? parse(line).get()).map(contents) }
            let changed = before[line].flatMap { $0 }.map { $0 != contents(parsed) } ?? true
            #expect(Swift.type(of: parsed) == type, "\(key): parsed as \(Swift.type(of: parsed))")
            #expect(changed, "\(key) \(words.dropFirst().joined()): nothing changed in the parsed command")
            return Swift.type(of: parsed) == type && changed
        }
    }

    /// The commands that run (groups aside), by their path of names.
    static let leaves: [String] = ParseTests.commands
        .filter { $0.type.configuration.subcommands.isEmpty && $0.path.last != "help" }
        .map { $0.path.dropFirst().joined(separator: " ") }

    @Test("the commands that run: every one of them is tried below")
    func leafCount() {
        #expect(Self.leaves.count >= 25, "\(Self.leaves)")
        let unknown = Set(Self.conflicts.keys.map { String($0.prefix { $0 != "-" }.dropLast()) }).subtracting(Self.leaves)
        #expect(unknown.isEmpty, "conflicts of no command: \(unknown)")
    }

    @Test("each option lands in its command, or is refused with its documented conflict", arguments: leaves)
    func everyOption(of name: String) throws {
        let (path, type) = try #require(ParseTests.commands.first { $0.path.dropFirst().joined(separator: " ") == name })
        let base = try #require(Self.base(of: path, type), "\(name): no example in its help and no base line here")
        var usedConflicts = Set<String>()
        var before: [[String]: String?] = [:]
        let options = try Self.options(of: type)
        for option in options {
            let key = "\(name) --\(option.name)"
            let words = try #require(option.words, "\(key): no sample for a value named \(option.valueName ?? "nothing")")
            var line = base
            if let other = Self.replaced[option.name], let index = line.firstIndex(of: "--\(other)") {
                line.removeSubrange(index...index + 1)
            }
            if let conflict = Self.conflicts[key] {
                switch Self.parse(line + words) {
                case .success: Issue.record("\(key): parses, but is listed as a conflict")
                case .failure(let refusal): #expect(refusal.message.contains(conflict.message), "\(key): \(refusal.message)")
                }
                usedConflicts.insert(key)
                Self.lands(words, in: conflict.landsWith, as: type, key, before: &before)
            } else {
                Self.lands(words, in: line, as: type, key, before: &before)
            }
        }
        let listed = Set(Self.conflicts.keys.filter { $0.hasPrefix(name + " --") })
        #expect(listed == usedConflicts, "conflicts of no option of \(name): \(listed.subtracting(usedConflicts))")
    }
}
