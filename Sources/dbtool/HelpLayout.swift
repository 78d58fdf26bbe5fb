import DBToolCore

/// `--help` as a page that fits a terminal: usage first, the one-line
/// overview, the command's own options, the option groups every command
/// shares reduced to their names, the examples, and where the rest is.
///
/// ArgumentParser writes the overview and the whole discussion before the
/// usage; the discussion (how the command works, its exit statuses) stays
/// whole in the man page and the docs, which are generated from the same
/// `CommandConfiguration`.
enum HelpLayout {
    /// The options every command (or a whole family) shares, shown by name.
    static let sharedOptions: Set<String> = [
        "--file-name", "--timeout", "--config", "--format", "--quiet", "--jobs", "--fail-fast", "--metrics-file", "--log-format",
        "--version", "--help",
    ]

    /// `help`, ArgumentParser's help text, laid out as above.
    static func compact(_ help: String) -> String {
        let sections = self.sections(of: help)
        guard let usage = sections.first(where: { $0.title == "USAGE" }) else { return help }
        var lines = usage.lines
        if let overview = sections.first(where: { $0.title == "OVERVIEW" }) {
            // The abstract: the overview's first paragraph.
            let abstract = overview.lines.prefix { !$0.isEmpty }.map { $0.hasPrefix("OVERVIEW: ") ? String($0.dropFirst(10)) : $0 }
            lines += [""] + wrap(abstract.joined(separator: " "))
        }
        var shared: [String] = []
        for section in sections where !["OVERVIEW", "USAGE"].contains(section.title) {
            let isGroup = section.title != "OPTIONS" && section.title != "ARGUMENTS" && section.title != "SUBCOMMANDS"
            if isGroup {
                // A family's options (object storage, passphrase): their names.
                lines += [""] + wrap(section.title + ": " + optionNames(section.lines).joined(separator: ", "))
                continue
            }
            var kept: [String] = []
            // The pointer to `help <subcommand>`: the footer says where the rest is.
            for entry in entries(section.lines) where !(entry.first?.hasPrefix("  See 'dbtool help") ?? false) {
                if section.title == "OPTIONS", let name = optionNames(entry).first, sharedOptions.contains(name) {
                    shared.append(contentsOf: optionNames(entry))
                } else {
                    kept += entry
                }
            }
            while kept.last?.isEmpty == true { kept.removeLast() }
            if !kept.isEmpty { lines += [""] + [section.lines[0]] + kept }
        }
        if !shared.isEmpty { lines += [""] + wrap("SHARED OPTIONS: " + shared.joined(separator: ", ")) }
        let overview = sections.first { $0.title == "OVERVIEW" }?.lines ?? []
        if let examples = paragraph(startingWith: "Examples:", in: overview) {
            lines += [""] + examples
        }
        let footer = ["", "Every option and how the command works: `man dbtool`, and docs/dbtool.md."]
        // The exit statuses too, where the page has room for them.
        if let statuses = paragraph(startingWith: "Exit status", in: overview), lines.count + statuses.count + 1 + footer.count <= maximumLines {
            lines += [""] + statuses
        }
        return (lines + footer).joined(separator: "\n")
    }

    private struct Section {
        var title: String
        /// Its lines, the title's first.
        var lines: [String]
    }

    /// The sections: a line in capitals ending with a colon opens one.
    private static func sections(of help: String) -> [Section] {
        var sections: [Section] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let title = title(of: line) {
                sections.append(Section(title: title, lines: [line]))
            } else if !sections.isEmpty {
                sections[sections.count - 1].lines.append(line)
            }
        }
        for index in sections.indices {
            while sections[index].lines.last?.isEmpty == true { sections[index].lines.removeLast() }
        }
        return sections
    }

    private static func title(of line: String) -> String? {
        guard let colon = line.firstIndex(of: ":"), line.first?.isUppercase == true else { return nil }
        let title = line[..<colon]
        guard title.allSatisfy({ $0.isUppercase || $0 == " " || $0 == "(" || $0 == ")" || $0 == "-" || $0 == "," }) else { return nil }
        guard !title.contains("--") || title.hasPrefix("RETENTION") || title.contains("(") else { return nil }
        return String(title)
    }

    /// The entries of a section: each starts with two spaces and a non-space.
    private static func entries(_ lines: [String]) -> [[String]] {
        var entries: [[String]] = []
        for line in lines.dropFirst() {
            if line.hasPrefix("  ") && !line.hasPrefix("   ") || entries.isEmpty {
                entries.append([line])
            } else {
                entries[entries.count - 1].append(line)
            }
        }
        return entries
    }

    /// The option names an entry (or a section) declares: `-q, --quiet`.
    private static func optionNames(_ lines: [String]) -> [String] {
        lines.compactMap { line -> String? in
            guard line.hasPrefix("  -") else { return nil }
            let words = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: true)
            return words.first { $0.hasPrefix("--") }.map { String($0.trimming(",")) }
                ?? words.first.map { String($0.trimming(",")) }
        }
    }

    /// The most lines a help page has.
    static let maximumLines = 60

    /// The discussion's paragraph that starts with `start` ("Examples:").
    private static func paragraph(startingWith start: String, in overview: [String]) -> [String]? {
        guard let first = overview.firstIndex(where: { $0.hasPrefix(start) }) else { return nil }
        let block = overview[first...].prefix { !$0.isEmpty }
        return block.count > 1 || start != "Examples:" ? Array(block) : nil
    }

    /// `text` in lines of at most 80 columns, continuation lines indented.
    private static func wrap(_ text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > 80 {
                lines.append(current)
                current = "  " + word
            } else {
                current += current.isEmpty ? String(word) : " " + word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
