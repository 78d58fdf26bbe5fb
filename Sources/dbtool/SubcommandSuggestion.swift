import ArgumentParser

/// A mistyped subcommand (`dbtool migrat`, `dbtool backup verfy`): found
/// before parsing, so that the error names it and its nearest name, rather
/// than an option ArgumentParser then finds out of place.
enum SubcommandSuggestion {
    /// "unknown command 'migrat': did you mean 'migrate'?", or nil when the
    /// command line names its subcommands right (or a word is far from all).
    static func message(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = DBTool.self
        var path = ["dbtool"]
        for token in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !token.hasPrefix("-") else { return nil }
            if let match = subcommands.first(where: { $0._commandName == token }) {
                command = match
                path.append(token)
                continue
            }
            guard token != "help",
                let nearest = subcommands.map({ $0._commandName }).min(by: { distance($0, token) < distance($1, token) }),
                distance(nearest, token) <= 2
            else { return nil }
            return "unknown command '\(path.joined(separator: " ")) \(token)': did you mean '\(path.joined(separator: " ")) \(nearest)'?"
        }
        return nil
    }

    /// The Levenshtein distance between two words.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
