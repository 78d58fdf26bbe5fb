/// The statements of the persistence methods, compiled once per table,
/// columns and conflict resolution: building and hashing the SQL text of
/// each `insert` would cost more than running it. Also what those
/// statements hand from one record to the next: the spare array of values,
/// and the row of lookups by key.
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
    private var last: LastHit<Key>?

    /// A statement and what found it. A class, read with one retain where
    /// a key copies several buffers.
    private final class LastHit<Found> {
        let key: Found
        let statement: Statement
        init(key: Found, statement: Statement) {
            self.key = key
            self.statement = statement
        }
    }

    /// The statement of the last lookup by primary key with the default
    /// selection (`SELECT * FROM table WHERE pk = ?`), keyed by its table:
    /// a loop of lookups asks for the same table again and again, and
    /// comparing a table name is cheaper than building and comparing a
    /// whole ``Key``. Its table passed the primary key check of
    /// ``Database/filteringPrimaryKeyColumns(_:)``.
    private var lastLookup: LastHit<String>?

    /// The statement of the last lookup by primary key with the default
    /// selection, when it was of `table`.
    @inline(__always)
    func lastLookupStatement(table: String) -> Statement? {
        guard let lastLookup, lastLookup.key == table else { return nil }
        return lastLookup.statement
    }

    /// Remembers the statement of a lookup by primary key of `table` with
    /// the default selection, a statement of this cache.
    mutating func rememberLookup(_ statement: Statement, table: String) {
        lastLookup = LastHit(key: table, statement: statement)
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

    /// An empty array that keeps the capacity of the values a record
    /// statement was last bound with, for the values of the next record: a
    /// loop of writes allocates no array of values per record.
    private var spareValues: [DatabaseValue] = []

    /// The spare array, moved out; empty, with capacity when there was one.
    mutating func takeSpareValues() -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        swap(&values, &spareValues)
        return values
    }

    /// Keeps the buffer of `values` as the spare array. When the buffer is
    /// still shared (a record kept its container), emptying it allocates
    /// the buffer the next record would have allocated.
    mutating func recycle(_ values: consuming [DatabaseValue]) {
        // Not `removeAll(keepingCapacity:)`: its generic range replacement
        // costs more than removing the few values of a record or a key.
        while values.popLast() != nil {}
        spareValues = values
    }

    /// The row the last lookup by key handed to its record, for the next
    /// lookup with the same statement, and the statement's columns
    /// generation when it was made.
    private var spareRow: Row?
    private var spareRowGeneration = 0

    /// A row of `statement`, for a record to read its current row: the
    /// spare row when nothing else holds it (a record that keeps the row it
    /// is given keeps it for good), otherwise a new one, which becomes the
    /// spare row. A row of a statement holds nothing but the statement, and
    /// its columns as they were when it was made: the statement's columns
    /// generation tells they still are.
    mutating func row(for statement: Statement) -> Row {
        if isKnownUniquelyReferenced(&spareRow), let spareRow, spareRow.statement === statement,
            spareRowGeneration == statement.columnsGeneration
        {
            return spareRow
        }
        let row = Row(statement: statement)
        spareRow = row
        spareRowGeneration = statement.columnsGeneration
        return row
    }

    mutating func removeAll() {
        spareRow = nil
        last = nil
        lastLookup = nil
        lastEncodedColumns = nil
        if !statements.isEmpty { statements.removeAll() }
    }

    /// Drops the statements that match.
    mutating func removeAll(where shouldRemove: (Statement) -> Bool) {
        // A statement that failed must not be kept alive by the spare row.
        if let statement = spareRow?.statement, shouldRemove(statement) { spareRow = nil }
        if let last, shouldRemove(last.statement) { self.last = nil }
        if let lastLookup, shouldRemove(lastLookup.statement) { self.lastLookup = nil }
        if statements.isEmpty { return }
        statements = statements.filter { !shouldRemove($0.value) }
    }
}

extension Database {
    /// Binds `values` to a statement of the record statement cache, and
    /// keeps the buffer of the values it was bound with before as the spare
    /// array of the next record or key (see
    /// ``RecordStatementCache/takeSpareValues()``): a loop of writes or
    /// lookups allocates no array of values per record.
    func bindRecordValues(_ values: consuming [DatabaseValue], to statement: Statement) {
        let previousValues = statement.takeArgumentArray()
        statement.setUncheckedArguments(StatementArguments(databaseValues: values))
        if let previousValues { recordStatementCache.recycle(previousValues) }
    }

    /// The cached statement of a persistence method, compiled from `sql()` on
    /// first use.
    func recordStatement(
        _ kind: RecordStatementCache.Kind, table: String, columns: [String], sql: () -> String
    ) throws -> Statement {
        let key = RecordStatementCache.Key(kind: kind, table: table, columns: columns)
        return try sharedRecordStatement(key, sql: sql) ?? makeStatement(sql: sql())
    }

    /// `SELECT * FROM table WHERE pk = ?`, the lookup by primary key with
    /// the default selection, from the record statement cache; the
    /// statement of the previous lookup when it was of the same table.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) for a primary key of
    ///   several columns.
    func selectAllByPrimaryKeyStatement(table: String) throws -> Statement {
        try validateSchemaCache()
        if let statement = recordStatementCache.lastLookupStatement(table: table), !statement.isBorrowed {
            return statement
        }
        let columns = try filteringPrimaryKeyColumns(table)
        let key = RecordStatementCache.Key(kind: .selectByKey(selection: "*"), table: table, columns: columns)
        let sql = { "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \(columns[0].quotedDatabaseIdentifier) = ?" }
        guard let statement = try sharedRecordStatement(key, sql: sql) else { return try makeStatement(sql: sql()) }
        recordStatementCache.rememberLookup(statement, table: table)
        return statement
    }

    /// The statement of the record statement cache for `key`, compiled from
    /// `sql()` on first use, or nil while it is borrowed: a record's
    /// `init(row:)` may fetch another record of its own table while its row
    /// is read, and that nested fetch needs a statement of its own.
    private func sharedRecordStatement(_ key: RecordStatementCache.Key, sql: () -> String) throws -> Statement? {
        if let statement = recordStatementCache[key] {
            return statement.isBorrowed ? nil : statement
        }
        let statement = try makeStatement(sql: sql())
        recordStatementCache[key] = statement
        return statement
    }
}
