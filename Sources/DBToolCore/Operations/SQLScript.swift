/// What `dbtool exec` needs to know of a script before running it: whether
/// it manages its own transactions, as the output of `sqlite3 .dump` does
/// (`BEGIN TRANSACTION; ... COMMIT;`). Such a script runs as written: inside
/// dbtool's transaction its BEGIN would fail, and its `PRAGMA foreign_keys`
/// would do nothing.
///
/// A small tokenizer after SQLite's own `sqlite3_complete()`: it knows
/// strings, quoted identifiers, comments, and that a `CREATE TRIGGER` body
/// holds semicolons until its `END;`.
enum SQLScript {
    /// The first keyword of every statement, uppercased ("" for a statement
    /// that starts with something else).
    ///
    /// It reads the UTF-8 bytes of the script once (a script of 100,000
    /// statements is several megabytes, and `dbtool exec --file` reads it
    /// before running it): words are compared as bytes, and only the first
    /// words of a statement, the ones a trigger or a keyword needs, become
    /// strings. As in SQLite, a byte above 0x7F is part of a word.
    static func statementKeywords(_ sql: String) -> [String] {
        var sql = sql
        return sql.withUTF8 { bytes in
            var scanner = Scanner()
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: ";"):
                    index += 1
                    // Inside a trigger body, only `END;` ends the statement.
                    if !scanner.inTriggerBody || scanner.previousWordIsEnd { scanner.endStatement() }
                    scanner.previousWordIsEnd = false
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                    index += 1
                case UInt8(ascii: "-") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "-"):
                    while index < count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "/") where index + 1 < count && bytes[index + 1] == UInt8(ascii: "*"):
                    index += 2
                    while index < count && !(bytes[index] == UInt8(ascii: "*") && index + 1 < count && bytes[index + 1] == UInt8(ascii: "/")) {
                        index += 1
                    }
                    index = min(index + 2, count)
                case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                    let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                    index += 1
                    while index < count {
                        let next = bytes[index]
                        index += 1
                        // A doubled quote is an escaped quote: skip both.
                        if next == close {
                            if close != UInt8(ascii: "]") && index < count && bytes[index] == close { index += 1 } else { break }
                        }
                    }
                    scanner.addOther()
                case _ where isWordStart(byte):
                    let wordStart = index
                    while index < count && isWordPart(bytes[index]) { index += 1 }
                    scanner.addWord(UnsafeBufferPointer(rebasing: bytes[wordStart..<index]))
                default:
                    index += 1
                    scanner.addOther()
                }
            }
            scanner.endStatement()
            return scanner.keywords
        }
    }

    /// True when a statement of the script begins a transaction or a savepoint.
    static func managesTransactions(_ sql: String) -> Bool {
        statementKeywords(sql).contains { $0 == "BEGIN" || $0 == "SAVEPOINT" }
    }

    /// The state of ``statementKeywords(_:)`` between tokens.
    private struct Scanner {
        var keywords: [String] = []
        /// The first token of the current statement, uppercased ("" for a
        /// token that is not a word), and the next ones when it starts with
        /// CREATE or EXPLAIN: enough to tell its keyword and whether it
        /// creates a trigger.
        var firstTokens: [String] = []
        /// How many tokens the current statement has.
        var tokenCount = 0
        var inTriggerBody = false
        /// CASE ... END inside a trigger body is no end of the body.
        var caseDepth = 0
        /// True when the previous token is an END that closes no CASE.
        var previousWordIsEnd = false

        /// `CREATE TEMP TRIGGER` after `EXPLAIN QUERY PLAN`: five tokens.
        static let keptTokens = 6

        mutating func endStatement() {
            if let first = firstTokens.first { keywords.append(first) }
            firstTokens = []
            tokenCount = 0
            inTriggerBody = false
            caseDepth = 0
        }

        /// True when the next token is kept: the first one, and the next
        /// ones of a statement that may create a trigger.
        private var keepsToken: Bool {
            tokenCount == 0
                || (tokenCount < Self.keptTokens && (firstTokens[0] == "CREATE" || firstTokens[0] == "EXPLAIN"))
        }

        mutating func addOther() {
            if keepsToken { firstTokens.append("") }
            tokenCount += 1
            previousWordIsEnd = false
        }

        mutating func addWord(_ word: UnsafeBufferPointer<UInt8>) {
            let kept = keepsToken
            if kept { firstTokens.append(SQLScript.uppercased(word)) }
            tokenCount += 1
            if kept && isTriggerStart(firstTokens) { inTriggerBody = true }
            previousWordIsEnd = false
            if Self.matches(word, "CASE") {
                caseDepth += 1
            } else if Self.matches(word, "END") {
                if caseDepth > 0 { caseDepth -= 1 } else { previousWordIsEnd = true }
            }
        }

        /// True when `word` is `keyword`, ignoring ASCII case.
        static func matches(_ word: UnsafeBufferPointer<UInt8>, _ keyword: StaticString) -> Bool {
            guard word.count == keyword.utf8CodeUnitCount else { return false }
            let keyword = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
            for index in 0..<word.count where SQLScript.asciiUppercased(word[index]) != keyword[index] { return false }
            return true
        }
    }

    /// CREATE [TEMP|TEMPORARY] TRIGGER, possibly after EXPLAIN [QUERY PLAN].
    private static func isTriggerStart(_ tokens: [String]) -> Bool {
        var words = tokens[...]
        if words.first == "EXPLAIN" {
            words = words.dropFirst()
            if words.first == "QUERY" { words = words.dropFirst(2) }
        }
        guard words.first == "CREATE" else { return false }
        words = words.dropFirst()
        if words.first == "TEMP" || words.first == "TEMPORARY" { words = words.dropFirst() }
        return words.first == "TRIGGER" && words.count == 1
    }

    /// A word uppercased as Swift does; an ASCII word, the usual case,
    /// byte by byte, without Unicode tables.
    private static func uppercased(_ word: UnsafeBufferPointer<UInt8>) -> String {
        guard word.allSatisfy({ $0 < 0x80 }) else { return String(decoding: word, as: UTF8.self).uppercased() }
        return String(unsafeUninitializedCapacity: word.count) { buffer in
            for index in 0..<word.count { buffer[index] = asciiUppercased(word[index]) }
            return word.count
        }
    }

    /// A byte with an ASCII lowercase letter made uppercase.
    private static func asciiUppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
    }

    private static func isWordStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte > 0x7F
    }

    private static func isWordPart(_ byte: UInt8) -> Bool {
        isWordStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "$")
    }
}
