/// The words of a command line as a POSIX shell splits them, with nothing
/// expanded: blanks separate words; single quotes keep everything;
/// double quotes keep everything but `\"`, `\\`, `\$` and a backslash before a backquote; a
/// backslash outside quotes keeps the next character.
enum ShellWords {
    /// The words of `line`; nil when a quote is not closed or the line ends
    /// with a lone backslash.
    static func split(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                (word, inWord) = ("", false)
            case "'":
                inWord = true
                while true {
                    guard let next = characters.next() else { return nil }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = characters.next() else { return nil }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = characters.next() else { return nil }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                guard let escaped = characters.next() else { return nil }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
