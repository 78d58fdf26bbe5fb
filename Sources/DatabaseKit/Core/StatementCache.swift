/// The statements of one connection, keyed by SQL.
///
/// The cache is bounded: past ``capacity`` entries it drops the statements that
/// no cursor is iterating, so that a program which builds ever-different SQL
/// does not grow without limit.
struct StatementCache {
    /// The number of statements kept before the cache is trimmed.
    static let capacity = 256

    private var statements: [String: Statement] = [:]

    var count: Int { statements.count }

    subscript(sql: String) -> Statement? {
        get { statements[sql] }
        set {
            if newValue != nil && statements.count >= Self.capacity && statements[sql] == nil {
                statements = statements.filter { $0.value.isBorrowed }
            }
            statements[sql] = newValue
        }
    }

    mutating func removeAll() {
        statements.removeAll()
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        if statements.isEmpty { return }
        statements = statements.filter { !shouldRemove($0.value) }
    }
}
