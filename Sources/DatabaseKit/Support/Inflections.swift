// The singular and plural forms of names: association keys
// (`belongsTo(Author.self)` decodes under "author", `hasMany(Book.self)`
// under "books") and the tables of `t.belongsTo("country")` in migrations.
// The rules are the English rules of Ruby on Rails,
// which GRDB uses too, so that records decode under the same keys.

extension String {
    /// "book" gives "books"; "books" stays.
    var pluralized: String { Inflector.shared.inflect(self, plural: true) }

    /// "books" gives "book"; "book" stays.
    var singularized: String { Inflector.shared.inflect(self, plural: false) }
}

/// Applies the inflection rules to the last word of a name (`bookAuthor`
/// → `bookAuthors`, `book_author` → `book_authors`), keeping trailing digits.
private final class Inflector: Sendable {
    static let shared = Inflector()

    /// A pattern and its replacement, in which `$N` is the Nth group (empty
    /// when it did not take part in the match).
    private struct Rule: Sendable {
        let pattern: InflectionPattern
        let template: String
    }

    private let pluralRules: [Rule]
    private let singularRules: [Rule]
    private let uncountables: [Rule]
    /// A word boundary, an underscore, a lowercase-to-uppercase change.
    private let wordBoundaries: [Rule]
    /// Names are few and inflected again and again: each once.
    private let cache = Locked([String: String]())

    /// The patterns are the constants below, which compile: nil is never
    /// seen (InflectionTests checks every rule's effect).
    private static func regex(_ pattern: String, caseInsensitive: Bool = true) -> InflectionPattern? {
        InflectionPattern(pattern, caseInsensitive: caseInsensitive)
    }

    private init() {
        var plural: [(String, String, Bool)] = [
            ("$", "s", true), ("s$", "s", true), ("^(ax|test)is$", "$1es", true), ("(octop|vir)us$", "$1i", true),
            ("(octop|vir)i$", "$1i", true), ("(alias|bias|canvas|focus|gas|lens|status)$", "$1es", true), ("(bu)s$", "$1ses", true),
            ("(buffal|tomat|her)o$", "$1oes", true), ("([ti])um$", "$1a", true), ("([ti])a$", "$1a", true), ("sis$", "ses", true),
            ("(?:([^f])fe|([lr])f)$", "$1$2ves", true), ("(hive)$", "$1s", true), ("([^aeiouy]|qu)y$", "$1ies", true),
            ("(x|ch|ss|sh)$", "$1es", true), ("(matr|vert|ind)(?:ix|ex)$", "$1ices", true), ("^(m|l)ouse$", "$1ice", true),
            ("^(m|l)ice$", "$1ice", true), ("^(ox)$", "$1en", true), ("^(oxen)$", "$1", true), ("(quiz)$", "$1zes", true),
            ("(canva)s$", "$1ses", true),
        ]
        var singular: [(String, String, Bool)] = [
            ("s$", "", true), ("(ss)$", "$1", true), ("(n)ews$", "$1ews", true), ("([ti])a$", "$1um", true),
            ("((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$", "$1sis", true), ("(^analy)(sis|ses)$", "$1sis", true),
            ("([^f])ves$", "$1fe", true), ("(hive)s$", "$1", true), ("(tive)s$", "$1", true), ("([lr])ves$", "$1f", true),
            ("([^aeiouy]|qu)ies$", "$1y", true), ("(s)eries$", "$1eries", true), ("(m)ovies$", "$1ovie", true),
            ("(x|ch|ss|sh)es$", "$1", true),
            ("^(m|l)ice$", "$1ouse", true), ("(bus)(es)?$", "$1", true), ("(o)es$", "$1", true), ("(shoe)s$", "$1", true),
            ("(cris|test)(is|es)$", "$1is", true), ("^(a)x[ie]s$", "$1xis", true), ("(octop|vir)(us|i)$", "$1us", true),
            ("(alias|bias|canvas|focus|gas|lens|status)(es)?$", "$1", true), ("^(ox)en$", "$1", true), ("(vert|ind)ices$", "$1ex", true),
            ("(matr)ices$", "$1ix", true), ("(quiz)zes$", "$1", true), ("(database)s$", "$1", true),
        ]
        // Irregular words: both forms map to the right one, keeping the case
        // of the first letter.
        for (one, many) in [
            ("child", "children"), ("foot", "feet"), ("leaf", "leaves"), ("man", "men"), ("move", "moves"), ("person", "people"),
            ("sex", "sexes"), ("specimen", "specimens"), ("zombie", "zombies"),
        ] {
            let (s0, sRest, p0, pRest) = (one.prefix(1), one.dropFirst(), many.prefix(1), many.dropFirst())
            if s0.lowercased() == p0.lowercased() {
                plural += [("(\(s0))\(sRest)$", "$1\(pRest)", true), ("(\(p0))\(pRest)$", "$1\(pRest)", true)]
                singular += [("(\(s0))\(sRest)$", "$1\(sRest)", true), ("(\(p0))\(pRest)$", "$1\(sRest)", true)]
            } else {
                for (first, rest) in [(s0, sRest), (p0, pRest)] {
                    plural += [
                        ("\(first.uppercased())(?i)\(rest)$", p0.uppercased() + pRest, false),
                        ("\(first.lowercased())(?i)\(rest)$", p0.lowercased() + pRest, false),
                    ]
                    singular += [
                        ("\(first.uppercased())(?i)\(rest)$", s0.uppercased() + sRest, false),
                        ("\(first.lowercased())(?i)\(rest)$", s0.lowercased() + sRest, false),
                    ]
                }
            }
        }
        pluralRules = plural.compactMap { rule in Self.regex(rule.0, caseInsensitive: rule.2).map { Rule(pattern: $0, template: rule.1) } }
        singularRules = singular.compactMap { rule in
            Self.regex(rule.0, caseInsensitive: rule.2).map { Rule(pattern: $0, template: rule.1) }
        }
        uncountables = [
            "advice", "corps", "dice", "equipment", "fish", "information", "jeans", "kudos", "money", "offspring", "police", "rice",
            "sheep", "species",
        ].compactMap { word in Self.regex("\\b\(word)\\z").map { Rule(pattern: $0, template: "") } }
        wordBoundaries = ["\\b\\w+$", "_[^_]+$", "[^A-Z][A-Z]+[a-z1-9]+$"].compactMap { pattern in
            Self.regex(pattern, caseInsensitive: false).map { Rule(pattern: $0, template: "") }
        }
    }

    func inflect(_ name: String, plural: Bool) -> String {
        let cacheKey = (plural ? "p:" : "s:") + name
        if let known = cache.withLock({ $0[cacheKey] }) { return known }
        let result = compute(name, rules: plural ? pluralRules : singularRules)
        cache.withLock { $0[cacheKey] = result }
        return result
    }

    private func compute(_ name: String, rules: [Rule]) -> String {
        let digitsStart = name.reversed().prefix(while: \.isNumber).count
        let radicalEnd = name.index(name.endIndex, offsetBy: -digitsStart)
        let wordStart = startOfLastWord(String(name[..<radicalEnd]))
        let word = String(name[wordStart..<radicalEnd])
        let characters = Array(word)
        if word.isEmpty || uncountables.contains(where: { $0.pattern.firstMatch(in: characters) != nil }) { return name }
        // The last matching rule wins: later rules are the exceptions.
        for rule in rules.reversed() {
            guard let match = rule.pattern.firstMatch(in: characters) else { continue }
            let replaced =
                String(characters[..<match.range.lowerBound]) + Self.expand(rule.template, with: match, in: characters)
                + String(characters[match.range.upperBound...])
            return String(name[..<wordStart]) + replaced + String(name[radicalEnd...])
        }
        return name
    }

    /// `template` with `$1`…`$9` replaced by the groups of `match`.
    private static func expand(_ template: String, with match: InflectionPattern.Match, in characters: [Character]) -> String {
        var result = ""
        var iterator = template.makeIterator()
        while let character = iterator.next() {
            guard character == "$" else {
                result.append(character)
                continue
            }
            guard let digit = iterator.next(), let group = digit.wholeNumberValue, group >= 1 else { continue }
            if group <= match.captures.count, let captured = match.captures[group - 1] { result += String(characters[captured]) }
        }
        return result
    }

    /// Where the last word starts: after a word boundary, an underscore, or
    /// a lowercase-to-uppercase change (`bookAuthor`).
    private func startOfLastWord(_ name: String) -> String.Index {
        var candidates: [String.Index] = []
        let characters = Array(name)
        for (boundary, skipsFirst) in zip(wordBoundaries, [false, true, true]) {
            guard let found = boundary.pattern.firstMatch(in: characters)?.range else { continue }
            let offset = skipsFirst ? found.lowerBound + 1 : found.lowerBound
            candidates.append(name.index(name.startIndex, offsetBy: offset))
        }
        return candidates.max() ?? name.startIndex
    }
}
