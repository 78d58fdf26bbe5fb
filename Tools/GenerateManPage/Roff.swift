/// man(7) source being written: requests, text lines, and the two
/// constructs dbtool's help text uses (paragraphs with `code` in backticks,
/// and indented example lines).
struct Roff {
    private(set) var source = ""
    /// The last request written, when nothing followed it.
    private var lastRequest: String?

    /// `.NAME argument ...`, quoting the arguments that need it. A paragraph
    /// right after a heading is left out (the heading starts one).
    mutating func request(_ name: String, _ arguments: String...) {
        if name == "PP", lastRequest == "SH" || lastRequest == "SS" || lastRequest == "PP" { return }
        let quoted = arguments.map { argument in
            argument.contains(" ") || argument.isEmpty ? "\"\(argument.replacingOccurrences(of: "\"", with: "\\(dq"))\"" : argument
        }
        source += "." + ([name] + quoted).joined(separator: " ") + "\n"
        lastRequest = name
    }

    mutating func section(_ title: String) { request("SH", title) }

    /// A line of source as it is, already escaped; nothing for an empty one
    /// (a blank line prints as one, and lint warns about it).
    mutating func line(_ text: String) {
        guard !text.isEmpty else { return }
        source += (text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" : "") + text + "\n"
        lastRequest = nil
    }

    /// Filled text, already escaped: one sentence per source line, and no
    /// source line over 80 bytes (breaks at spaces, which filling ignores).
    mutating func text(_ text: String) {
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !current.isEmpty && current.utf8.count + 1 + word.utf8.count > 80 {
                line(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
            if word.hasSuffix(".") && word.count > 2 {
                line(current)
                current = ""
            }
        }
        line(current)
    }

    /// A tagged paragraph: the tag on its own line, the text indented below.
    mutating func entry(_ tag: String, _ text: String) {
        request("TP")
        line(tag)
        self.text(text)
    }

    /// `--help`'s discussion: paragraphs, and `Examples:` blocks as literal
    /// displays, so that each command stays on one line as typed.
    mutating func discussion(_ discussion: String, skippingExitStatus: Bool) {
        for block in discussion.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard let first = lines.first else { continue }
            if first.hasSuffix(":"), lines.count > 1, lines.dropFirst().allSatisfy({ $0.hasPrefix("  ") }) {
                request("PP")
                text(Roff.formatted(first))
                request("RS", "4")
                request("EX")
                for example in lines.dropFirst() { line(Roff.literal(String(example.dropFirst(2)))) }
                request("EE")
                request("RE")
            } else if skippingExitStatus && first.hasPrefix("Exit status:") {
                continue
            } else {
                request("PP")
                text(Roff.formatted(lines.joined(separator: " ")))
            }
        }
    }

    /// Text with roff's special characters escaped: backslashes, and ASCII
    /// hyphens as `\-` (a plain `-` may print as a typographic hyphen, which
    /// breaks a copied option). Words with a hyphen or a slash (options,
    /// paths) are never hyphenated (`\%`).
    static func escaped(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { word in
            let escaped = word.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            return word.contains("-") || word.contains("/") ? "\\%" + escaped : escaped
        }.joined(separator: " ")
    }

    /// Literal text (examples): escaped, and as it is otherwise.
    static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }

    /// Escaped text with `code` in backticks set in bold, on one line
    /// (`\~`: a space that never breaks).
    static func formatted(_ text: String) -> String {
        var result = ""
        var inCode = false
        for part in escaped(text).split(separator: "`", omittingEmptySubsequences: false) {
            result += inCode ? "\\fB\(part.replacingOccurrences(of: " ", with: "\\~"))\\fR" : String(part)
            inCode.toggle()
        }
        return result
    }
}
