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
    /// The last statement found: a loop over records of one type asks for the
    /// same key again and again, and comparing keys is much cheaper than
    /// hashing them (their strings usually share storage, which `==` checks
    /// first).
    private var last: LastHit?

    /// A class, read with one retain where a key copies several buffers.
    private final class LastHit {
        let key: Key
        let statement: Statement
        init(key: Key, statement: Statement) {
            self.key = key
            self.statement = statement
        }
    }

    subscript(key: Key) -> Statement? {
        mutating get {
            if let last, last.key == key { return last.statement }
            guard let statement = statements[key] else { return nil }
            last = LastHit(key: key, statement: statement)
            return statement
        }
        set {
            // Bounded like the SQL statement cache: a program that inserts
            // ever-different column sets does not grow without limit.
            if newValue != nil && statements.count >= StatementCache.capacity { removeAll() }
            if last?.key == key { last = nil }
            statements[key] = newValue
        }
    }

    /// The columns the last record written to a table encoded, which the
    /// next record of that table most likely encodes again (see
    /// ``PersistenceContainer``).
    private(set) var lastEncodedColumns: (table: String, columns: [String])?

    /// The columns to expect from the next record written to `table`.
    func predictedColumns(table: String) -> [String]? {
        guard let lastEncodedColumns, lastEncodedColumns.table == table else { return nil }
        return lastEncodedColumns.columns
    }

    /// Remembers the columns a record of `table` encoded.
    mutating func rememberEncodedColumns(_ columns: [String], table: String) {
        lastEncodedColumns = (table, columns)
    }

    mutating func removeAll() {
        last = nil
        lastEncodedColumns = nil
        if !statements.isEmpty { statements.removeAll() }
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        if let last, shouldRemove(last.statement) { self.last = nil }
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
