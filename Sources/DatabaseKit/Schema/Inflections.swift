// English inflections for `belongsTo("country")`, which finds the table
// "country" or "countries": the regular rules, and the common irregular and
// uncountable words.

extension String {
    /// "country" → "countries", "person" → "people", "postalAddress" → "postalAddresses".
    var pluralized: String {
        Inflections.inflect(self, irregular: Inflections.plurals, rules: Inflections.pluralRules, otherwise: "s")
    }

    /// "countries" → "country", "people" → "person".
    var singularized: String {
        Inflections.inflect(self, irregular: Inflections.singulars, rules: Inflections.singularRules, otherwise: "")
    }
}

private enum Inflections {
    static let uncountables: Set<String> = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "deer", "news", "data", "metadata",
    ]

    /// Irregular words, singular → plural.
    static let plurals: [String: String] = [
        "person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice", "goose": "geese",
        "foot": "feet", "tooth": "teeth", "ox": "oxen", "index": "indices", "matrix": "matrices", "vertex": "vertices",
        "leaf": "leaves", "half": "halves", "wolf": "wolves", "shelf": "shelves", "knife": "knives", "life": "lives",
        "wife": "wives", "analysis": "analyses", "crisis": "crises", "thesis": "theses", "criterion": "criteria",
    ]

    static let singulars: [String: String] = Dictionary(plurals.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    /// Suffix rules, first match wins: (suffix, replacement).
    static let pluralRules: [(String, String)] = [
        ("quiz", "quizzes"), ("us", "uses"), ("ss", "sses"), ("sh", "shes"), ("ch", "ches"), ("x", "xes"), ("z", "zes"),
        ("ay", "ays"), ("ey", "eys"), ("oy", "oys"), ("uy", "uys"), ("y", "ies"), ("s", "s"),
    ]

    static let singularRules: [(String, String)] = [
        ("quizzes", "quiz"), ("uses", "us"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x"), ("zes", "z"),
        ("ies", "y"), ("ss", "ss"), ("us", "us"), ("s", ""),
    ]

    /// Inflects the last word of `string` (words of a camelCase name are
    /// separated by capitals), keeping the case of its first letter.
    /// Words that match no rule get the `otherwise` suffix.
    static func inflect(_ string: String, irregular: [String: String], rules: [(String, String)], otherwise: String) -> String {
        guard !string.isEmpty else { return string }
        let wordStart = string.lastIndex(where: \.isUppercase) ?? string.startIndex
        let prefix = string[..<wordStart]
        let word = String(string[wordStart...])
        let lowercased = word.lowercased()
        if uncountables.contains(lowercased) { return string }
        var inflected: String
        if let replacement = irregular[lowercased] {
            inflected = replacement
        } else if let (suffix, replacement) = rules.first(where: { lowercased.hasSuffix($0.0) }) {
            inflected = String(lowercased.dropLast(suffix.count)) + replacement
        } else {
            inflected = lowercased + otherwise
        }
        if word.first?.isUppercase == true { inflected = inflected.prefix(1).uppercased() + inflected.dropFirst() }
        return prefix + inflected
    }
}
