/// The regular expressions of the inflection rules, matched without
/// Foundation (NSRegularExpression links ICU) and without the standard
/// library's `Regex`, whose compiled rules LeakSanitizer reports as leaked
/// (about 430 KB): their parse trees are indirect enums, reached only
/// through pointers whose spare bits hold the case (see `Node`).
///
/// The subset the rules use: literals, classes (`[ti]`, `[^aeiouy]`, `[A-Z]`),
/// `\w`, groups (capturing, and `(?:...)`) with alternatives, the `?` and `+`
/// quantifiers, the anchors `^`, `$`, `\z` and `\b`, and `(?i)`, which makes
/// the rest of its group case-insensitive. Matching backtracks as a regular
/// expression engine does and finds the leftmost match, so that the rules
/// give what they gave with NSRegularExpression.
struct InflectionPattern: Sendable {
    /// A node of the pattern. A class rather than an indirect enum: Swift
    /// keeps an enum's case in the spare bits of its payload's pointer, which
    /// LeakSanitizer does not recognize as a pointer, so every compiled rule
    /// (held for the life of the process) would be reported as leaked.
    private final class Node: Sendable {
        enum Kind {
            case character, characterClass, wordCharacter, start, end, wordBoundary, group, repetition
        }

        let kind: Kind
        let character: Character
        let ranges: [ClosedRange<Character>]
        let negated: Bool
        let caseInsensitive: Bool
        let alternatives: [[Node]]
        let capture: Int?
        let repeated: Node?
        let atLeastOnce: Bool
        let atMostOnce: Bool

        init(
            _ kind: Kind, character: Character = " ", ranges: [ClosedRange<Character>] = [], negated: Bool = false,
            caseInsensitive: Bool = false, alternatives: [[Node]] = [], capture: Int? = nil, repeated: Node? = nil,
            atLeastOnce: Bool = false, atMostOnce: Bool = false
        ) {
            (self.kind, self.character, self.ranges, self.negated, self.caseInsensitive) = (
                kind, character, ranges, negated, caseInsensitive
            )
            (self.alternatives, self.capture, self.repeated) = (alternatives, capture, repeated)
            (self.atLeastOnce, self.atMostOnce) = (atLeastOnce, atMostOnce)
        }

        static func character(_ character: Character, caseInsensitive: Bool) -> Node {
            Node(.character, character: character, caseInsensitive: caseInsensitive)
        }

        static func characterClass(ranges: [ClosedRange<Character>], negated: Bool, caseInsensitive: Bool) -> Node {
            Node(.characterClass, ranges: ranges, negated: negated, caseInsensitive: caseInsensitive)
        }

        static func group(alternatives: [[Node]], capture: Int?) -> Node {
            Node(.group, alternatives: alternatives, capture: capture)
        }

        static func repetition(_ repeated: Node, atLeastOnce: Bool, atMostOnce: Bool) -> Node {
            Node(.repetition, repeated: repeated, atLeastOnce: atLeastOnce, atMostOnce: atMostOnce)
        }
    }

    private let nodes: [Node]
    private let captureCount: Int

    /// A match: its range in the characters of the text, and the ranges of
    /// the capturing groups (nil for one that did not take part).
    struct Match {
        var range: Range<Int>
        var captures: [Range<Int>?]
    }

    /// nil for a pattern outside the subset.
    init?(_ pattern: String, caseInsensitive: Bool) {
        var parser = Parser(characters: Array(pattern))
        guard let nodes = parser.sequence(caseInsensitive: caseInsensitive), parser.position == parser.characters.count else {
            return nil
        }
        self.nodes = nodes
        captureCount = parser.captureCount
    }

    /// The leftmost match in `text`, or nil.
    func firstMatch(in text: [Character]) -> Match? {
        for start in 0...text.count {
            var matcher = Matcher(text: text, captures: Array(repeating: nil, count: captureCount))
            var end = 0
            if matcher.match(
                nodes[...], at: start,
                then: { position, _ in
                    end = position
                    return true
                })
            {
                return Match(range: start..<end, captures: matcher.captures)
            }
        }
        return nil
    }

    // MARK: Parsing

    private struct Parser {
        let characters: [Character]
        var position = 0
        var captureCount = 0

        /// Alternatives up to `)` or the end.
        mutating func alternatives(caseInsensitive: Bool) -> [[Node]]? {
            var result: [[Node]] = []
            while true {
                guard let sequence = sequence(caseInsensitive: caseInsensitive) else { return nil }
                result.append(sequence)
                guard position < characters.count, characters[position] == "|" else { return result }
                position += 1
            }
        }

        /// Nodes up to `|`, `)` or the end.
        mutating func sequence(caseInsensitive: Bool) -> [Node]? {
            var caseInsensitive = caseInsensitive
            var nodes: [Node] = []
            while position < characters.count, characters[position] != "|", characters[position] != ")" {
                if characters[position...].starts(with: ["(", "?", "i", ")"]) {
                    caseInsensitive = true
                    position += 4
                    continue
                }
                guard let atom = atom(caseInsensitive: caseInsensitive) else { return nil }
                if position < characters.count, characters[position] == "?" || characters[position] == "+" {
                    nodes.append(.repetition(atom, atLeastOnce: characters[position] == "+", atMostOnce: characters[position] == "?"))
                    position += 1
                } else {
                    nodes.append(atom)
                }
            }
            // At the top level, `|` would be an alternative the rules never use.
            return nodes
        }

        mutating func atom(caseInsensitive: Bool) -> Node? {
            let character = characters[position]
            position += 1
            switch character {
            case "^": return Node(.start)
            case "$": return Node(.end)
            case "\\":
                guard position < characters.count else { return nil }
                position += 1
                switch characters[position - 1] {
                case "w": return Node(.wordCharacter)
                case "b": return Node(.wordBoundary)
                case "z", "Z": return Node(.end)
                case let escaped: return .character(escaped, caseInsensitive: caseInsensitive)
                }
            case "(":
                var capture: Int?
                if characters[position...].starts(with: ["?", ":"]) {
                    position += 2
                } else {
                    captureCount += 1
                    capture = captureCount
                }
                guard let alternatives = alternatives(caseInsensitive: caseInsensitive), position < characters.count,
                    characters[position] == ")"
                else { return nil }
                position += 1
                return .group(alternatives: alternatives, capture: capture.map { $0 - 1 })
            case "[":
                var negated = false
                if position < characters.count, characters[position] == "^" {
                    negated = true
                    position += 1
                }
                var ranges: [ClosedRange<Character>] = []
                while position < characters.count, characters[position] != "]" {
                    let low = characters[position]
                    if position + 2 < characters.count, characters[position + 1] == "-", characters[position + 2] != "]" {
                        guard low <= characters[position + 2] else { return nil }
                        ranges.append(low...characters[position + 2])
                        position += 3
                    } else {
                        ranges.append(low...low)
                        position += 1
                    }
                }
                guard position < characters.count else { return nil }
                position += 1
                return .characterClass(ranges: ranges, negated: negated, caseInsensitive: caseInsensitive)
            case "?", "+", ")", "|", "*", ".", "{":
                return nil  // not in the subset
            default:
                return .character(character, caseInsensitive: caseInsensitive)
            }
        }
    }

    // MARK: Matching

    private struct Matcher {
        let text: [Character]
        var captures: [Range<Int>?]

        /// Matches `nodes` at `position`, then asks `next` about the end:
        /// backtracks into the choices made when it says no.
        mutating func match(
            _ nodes: ArraySlice<Node>, at position: Int, then next: (Int, inout Matcher) -> Bool
        ) -> Bool {
            guard let node = nodes.first else { return next(position, &self) }
            let rest = nodes.dropFirst()
            switch node.kind {
            case .character, .characterClass, .wordCharacter:
                guard position < text.count, accepts(node, text[position]) else { return false }
                return match(rest, at: position + 1, then: next)
            case .start:
                return position == 0 && match(rest, at: position, then: next)
            case .end:
                return position == text.count && match(rest, at: position, then: next)
            case .wordBoundary:
                let before = position > 0 && Self.isWord(text[position - 1])
                let after = position < text.count && Self.isWord(text[position])
                return before != after && match(rest, at: position, then: next)
            case .group:
                let capture = node.capture
                for alternative in node.alternatives {
                    let saved = captures
                    if match(
                        alternative[...], at: position,
                        then: { end, matcher in
                            if let capture { matcher.captures[capture] = position..<end }
                            return matcher.match(rest, at: end, then: next)
                        })
                    {
                        return true
                    }
                    captures = saved
                }
                return false
            case .repetition:
                guard let repeated = node.repeated else { return false }
                return repeatMatch(
                    repeated, count: 0, atLeastOnce: node.atLeastOnce, atMostOnce: node.atMostOnce, at: position, rest: rest, then: next)
            }
        }

        /// Greedy: as many repetitions as match, then fewer.
        private mutating func repeatMatch(
            _ node: Node, count: Int, atLeastOnce: Bool, atMostOnce: Bool, at position: Int, rest: ArraySlice<Node>,
            then next: (Int, inout Matcher) -> Bool
        ) -> Bool {
            if !(atMostOnce && count == 1) {
                let saved = captures
                if match(
                    [node][...], at: position,
                    then: { end, matcher in
                        end > position
                            && matcher.repeatMatch(
                                node, count: count + 1, atLeastOnce: atLeastOnce, atMostOnce: atMostOnce, at: end, rest: rest, then: next)
                    })
                {
                    return true
                }
                captures = saved
            }
            guard count > 0 || !atLeastOnce else { return false }
            return match(rest, at: position, then: next)
        }

        private func accepts(_ node: Node, _ character: Character) -> Bool {
            switch node.kind {
            case .character:
                return node.character == character || (node.caseInsensitive && node.character.lowercased() == character.lowercased())
            case .characterClass:
                var found = node.ranges.contains { $0.contains(character) }
                if !found && node.caseInsensitive {
                    // A case mapping of more than one character ("ß" → "SS") is no variant.
                    let variants = [character.lowercased(), character.uppercased()].filter { $0.count == 1 }.map { Character($0) }
                    found = node.ranges.contains { range in variants.contains { range.contains($0) } }
                }
                return found != node.negated
            case .wordCharacter:
                return Self.isWord(character)
            default:
                return false
            }
        }

        /// `\w`: letters, digits, marks and connector punctuation (`_`).
        static func isWord(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_"
                || character.unicodeScalars.first?.properties.generalCategory == .nonspacingMark
        }
    }
}
