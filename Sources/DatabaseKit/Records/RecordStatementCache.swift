/// The statements of the persistence methods, compiled once per table,
/// columns and conflict resolution: building and hashing the SQL text of
/// each `insert` would cost more than running it.
struct RecordStatementCache {
    enum Kind: Hashable {
        case insert(Database.ConflictResolution)
        /// `columns` are the key columns of this one and of the three below.
        case update(Database.ConflictResolution, assigned: [String])
        /// `selection` is the SQL of the selected columns.
        case selectByKey(selection: String)
        case deleteByKey, existsByKey
    }

    struct Key: Hashable {
        let kind: Kind
        let table: String
        let columns: [String]
    }

    private var statements: [Key: Statement] = [:]

    subscript(key: Key) -> Statement? {
        get { statements[key] }
        set {
            // Bounded like the SQL statement cache: a program that inserts
            // ever-different column sets does not grow without limit.
            if newValue != nil && statements.count >= StatementCache.capacity { statements.removeAll() }
            statements[key] = newValue
        }
    }

    mutating func removeAll() {
        if !statements.isEmpty { statements.removeAll() }
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        if statements.isEmpty { return }
        statements = statements.filter { !shouldRemove($0.value) }
    }
}

extension Database {
    /// The cached statement of a persistence method, compiled from `sql()` on
    /// first use.
    func recordStatement(
        _ kind: RecordStatementCache.Kind, table: String, columns: [String], sql: () -> String
    ) throws -> Statement {
        let key = RecordStatementCache.Key(kind: kind, table: table, columns: columns)
        if let statement = recordStatementCache[key] {
            // A record's init(row:) may fetch another record of its own table
            // while its row is read: that nested fetch gets a statement of its own.
            if !statement.isBorrowed { return statement }
            return try makeStatement(sql: sql())
        }
        let statement = try makeStatement(sql: sql())
        recordStatementCache[key] = statement
        return statement
    }
}
