import Testing

@testable import DBToolCore

/// Command lines split as a POSIX shell splits them, nothing expanded.
@Suite("Shell words")
struct ShellWordsTests {
    @Test("quotes, backslashes and blanks as sh treats them; unclosed quotes are nil")
    func split() {
        let cases: [(String, [String]?)] = [
            ("pass show backup", ["pass", "show", "backup"]),
            ("  a\t b  ", ["a", "b"]),
            ("printf '%s\\n' 'two words'", ["printf", "%s\\n", "two words"]),
            ("a\"b c\"d", ["ab cd"]),
            ("\"\\\"q\\\" \\$HOME \\x\"", ["\"q\" $HOME \\x"]),
            ("a\\ b", ["a b"]),
            ("''", [""]),
            ("$HOME ~ *", ["$HOME", "~", "*"]),
            ("", []),
            ("'unclosed", nil),
            ("\"unclosed", nil),
            ("trailing\\", nil),
        ]
        for (line, words) in cases {
            #expect(ShellWords.split(line) == words, "\(line)")
        }
    }
}
