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
    static func statementKeywords(_ sql: String) -> [String] {
        var keywords: [String] = []
        var tokens: [String] = []  // the statement's words so far, uppercased
        var inTriggerBody = false
        var caseDepth = 0  // CASE ... END inside a trigger body is no end of the body
        var previousWord = ""
        var scalars = sql.unicodeScalars[...]
        func endStatement() {
            if let first = tokens.first { keywords.append(first) }
            tokens = []
            inTriggerBody = false
            caseDepth = 0
        }
        while let scalar = scalars.first {
            switch scalar {
            case ";":
                scalars.removeFirst()
                // Inside a trigger body, only `END;` ends the statement.
                if !inTriggerBody || previousWord == "END" { endStatement() }
                previousWord = ";"
            case " ", "\t", "\n", "\r", "\u{0C}":
                scalars.removeFirst()
            case "-" where scalars.dropFirst().first == "-":
                scalars = scalars.drop(while: { $0 != "\n" })
            case "/" where scalars.dropFirst().first == "*":
                scalars = scalars.dropFirst(2)
                while !scalars.isEmpty && !(scalars.first == "*" && scalars.dropFirst().first == "/") { scalars.removeFirst() }
                scalars = scalars.dropFirst(2)
            case "'", "\"", "`", "[":
                let close: Unicode.Scalar = scalar == "[" ? "]" : scalar
                scalars.removeFirst()
                while let next = scalars.first {
                    scalars.removeFirst()
                    // A doubled quote is an escaped quote: skip both.
                    if next == close {
                        if close != "]" && scalars.first == close { scalars.removeFirst() } else { break }
                    }
                }
                tokens.append("")
                previousWord = ""
            case _ where isWordStart(scalar):
                var word = ""
                while let next = scalars.first, isWordPart(next) {
                    word.unicodeScalars.append(next)
                    scalars.removeFirst()
                }
                word = word.uppercased()
                tokens.append(word)
                if word == "CASE" { caseDepth += 1 }
                if word == "END" && caseDepth > 0 {
                    caseDepth -= 1
                    word = "END CASE"
                }
                previousWord = word
                if isTriggerStart(tokens) { inTriggerBody = true }
            default:
                scalars.removeFirst()
                tokens.append("")
                previousWord = ""
            }
        }
        endStatement()
        return keywords
    }

    /// True when a statement of the script begins a transaction or a savepoint.
    static func managesTransactions(_ sql: String) -> Bool {
        statementKeywords(sql).contains { $0 == "BEGIN" || $0 == "SAVEPOINT" }
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

    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.properties.isAlphabetic) || scalar.value > 0x7F
    }

    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        isWordStart(scalar) || ("0"..."9").contains(scalar) || scalar == "$"
    }
}
