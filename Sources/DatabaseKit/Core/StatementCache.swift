/// The statements of one connection, keyed by SQL.
///
/// The cache is bounded: past ``capacity`` entries it drops the statements that
/// no cursor is iterating, so that a program which builds ever-different SQL
/// does not grow without limit.
struct StatementCache {
    /// The number of statements kept before the cache is trimmed.
    static let capacity = 256

    private var statements: [String: Statement] = [:]

    /// The entry found or stored last, as in ``RecordStatementCache``: a loop
    /// that runs the same SQL finds it with one string comparison, which
    /// returns at once when both strings share their storage (a literal),
    /// instead of hashing the whole SQL.
    private var last: (sql: String, statement: Statement)?

    var count: Int { statements.count }

    subscript(sql: String) -> Statement? {
        mutating get {
            if let last, last.sql == sql { return last.statement }
            guard let statement = statements[sql] else { return nil }
            last = (sql, statement)
            return statement
        }
        set {
            if newValue != nil && statements.count >= Self.capacity && statements[sql] == nil {
                removeAll { !$0.isBorrowed }
            }
            statements[sql] = newValue
            last = newValue.map { (sql, $0) }
        }
    }

    mutating func removeAll() {
        statements.removeAll()
        last = nil
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        if statements.isEmpty { return }
        statements = statements.filter { !shouldRemove($0.value) }
        if let last, shouldRemove(last.statement) { self.last = nil }
    }
}
