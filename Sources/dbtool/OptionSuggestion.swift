import ArgumentParser

/// A mistyped option (`backup --output-directory`, `migrate --dry-rn`):
/// found before parsing, because ArgumentParser validates a command (and
/// reports, say, a missing destination) before it reports an option it
/// does not know, which hides the typo behind a misleading error.
enum OptionSuggestion {
    /// "unknown option '--output-directory' of 'dbtool backup create': did
    /// you mean '--output-dir'?", or nil when every long option before `--`
    /// belongs to the command the arguments name.
    static func message(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = DBTool.self
        var path = ["dbtool"]
        var options: [String] = []
        for token in arguments.prefix(while: { $0 != "--" }) {
            if let option = optionName(token) {
                options.append(option)
            } else if options.isEmpty, let match = command.configuration.subcommands.first(where: { $0._commandName == token }) {
                command = match
                path.append(token)
            }
        }
        if let fallback = command.configuration.defaultSubcommand {
            command = fallback
            path.append(fallback._commandName)
        }
        guard !options.isEmpty else { return nil }
        let known = names(of: command)
        guard let unknown = options.first(where: { !known.contains($0) }) else { return nil }
        let name = path.joined(separator: " ")
        let nearest = known.filter { isClose($0, unknown) }
            .min { SubcommandSuggestion.distance($0, unknown) < SubcommandSuggestion.distance($1, unknown) }
        if let nearest { return "unknown option '\(unknown)' of '\(name)': did you mean '\(nearest)'?" }
        return "unknown option '\(unknown)' of '\(name)'"
    }

    /// `--name` of a token `--name` or `--name=value`; nil for anything else
    /// (a value such as an SQL text starting with a `--` comment).
    static func optionName(_ token: String) -> String? {
        guard token.hasPrefix("--") else { return nil }
        let name = token.prefix { $0 != "=" }
        guard name.count > 2, name.dropFirst(2).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        return String(name)
    }

    /// A typo of `known`: a letter or two off with the same start, or one
    /// of them a longer spelling of the other.
    static func isClose(_ known: String, _ typed: String) -> Bool {
        if known.count >= 6 && typed.hasPrefix(known) || typed.count >= 5 && known.hasPrefix(typed) { return true }
        return SubcommandSuggestion.distance(known, typed) <= 2 && known.prefix(5) == typed.prefix(5)
    }

    /// The long option names of `command`, hidden ones included, as its
    /// help lists them (`--[no-]x` gives `--x` and `--no-x`).
    static func names(of command: any ParsableCommand.Type) -> Set<String> {
        let help = DBTool.helpMessage(for: command, includeHidden: true, columns: 10_000)
        var names: Set<String> = ["--help", "--version", "--experimental-dump-help", "--generate-completion-script"]
        for line in help.split(separator: "\n") where line.hasPrefix("  -") {
            for word in line.split(separator: " ").prefix(while: { $0.hasPrefix("-") }) {
                for part in word.split(separator: ",") where part.hasPrefix("--") {
                    let option = String(part)
                    if option.hasPrefix("--[no-]") {
                        names.insert("--" + option.dropFirst("--[no-]".count))
                        names.insert("--no-" + option.dropFirst("--[no-]".count))
                    } else {
                        names.insert(option)
                    }
                }
            }
        }
        return names
    }
}
