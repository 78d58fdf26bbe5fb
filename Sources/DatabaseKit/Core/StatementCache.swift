/// The statements of one connection, keyed by SQL.
///
/// The cache is bounded: past ``capacity`` entries it drops the statements that
/// no cursor is iterating, so that a program which builds ever-different SQL
/// does not grow without limit.
struct StatementCache {
    /// The number of statements kept before the cache is trimmed.
    static let capacity = 256

    private var statements: [String: Statement] = [:]

    /// The entry found or stored last. A loop that runs the same SQL finds it
    /// with one string comparison, which returns at once when both strings
    /// share their storage (a literal), instead of hashing the whole SQL.
    private var lastSQL = ""
    private var lastStatement: Statement?

    var count: Int { statements.count }

    subscript(sql: String) -> Statement? {
        mutating get {
            if let lastStatement, sql == lastSQL { return lastStatement }
            guard let statement = statements[sql] else { return nil }
            remember(sql, statement)
            return statement
        }
        set {
            if newValue != nil && statements.count >= Self.capacity && statements[sql] == nil {
                statements = statements.filter { $0.value.isBorrowed }
                forgetLast()
            }
            statements[sql] = newValue
            if let newValue { remember(sql, newValue) } else if sql == lastSQL { forgetLast() }
        }
    }

    mutating func removeAll() {
        statements.removeAll()
        forgetLast()
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        if statements.isEmpty { return }
        statements = statements.filter { !shouldRemove($0.value) }
        forgetLast()
    }

    private mutating func remember(_ sql: String, _ statement: Statement) {
        lastSQL = sql
        lastStatement = statement
    }

    private mutating func forgetLast() {
        lastSQL = ""
        lastStatement = nil
    }
}
