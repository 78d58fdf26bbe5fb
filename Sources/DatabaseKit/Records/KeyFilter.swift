/// A `WHERE` clause that selects one row by its primary key or a unique key,
/// with its arguments: what `fetchOne(db, key:)`, `deleteOne(db, key:)`,
/// `update` and `delete` share.
///
/// Its statements come from the record statement cache: a lookup by key
/// builds no SQL once the statement is compiled.
struct KeyFilter {
    let table: String
    let columns: [String]
    let values: [DatabaseValue]

    /// `"id" = ?`, `"a" = ? AND "b" = ?`.
    var sql: String { columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND ") }

    /// The row of a single-column primary key, or of the rowid.
    init(_ db: Database, table: String, primaryKey value: DatabaseValue) throws {
        let primaryKey = try db.primaryKey(table)
        guard primaryKey.columns.count == 1 else {
            throw DatabaseError.misuse(
                "table \(table) has a primary key of \(primaryKey.columns.count) columns (\(primaryKey.columns.joined(separator: ", "))): pass the key as a dictionary"
            )
        }
        self.init(table: table, columns: primaryKey.columns, values: [value])
    }

    /// The row of a unique key given as a dictionary.
    init(_ db: Database, table: String, uniqueKey: [String: (any DatabaseValueConvertible)?]) throws {
        let columns = uniqueKey.keys.sorted()
        guard !columns.isEmpty, try db.table(table, hasUniqueKey: columns) else {
            throw DatabaseError.misuse(
                "table \(table) has no unique key on column(s) \(columns.joined(separator: ", ")): a key must identify at most one row"
            )
        }
        self.init(table: table, columns: columns, values: columns.map { uniqueKey[$0]??.databaseValue ?? .null })
    }

    /// The row of a record, by the primary key values in its container.
    init(_ db: Database, table: String, container: PersistenceContainer) throws {
        let primaryKey = try db.primaryKey(table)
        var values: [DatabaseValue] = []
        for column in primaryKey.columns {
            guard let value = container.databaseValue(forColumn: column) else {
                throw DatabaseError.misuse(
                    "the record of table \(table) does not encode its primary key column \(column)")
            }
            values.append(value)
        }
        self.init(table: table, columns: primaryKey.columns, values: values)
    }

    private init(table: String, columns: [String], values: [DatabaseValue]) {
        self.table = table
        self.columns = columns
        self.values = values
    }

    /// True when a key value is NULL: no row can match.
    var hasNull: Bool { values.contains { $0.isNull } }

    var arguments: StatementArguments { StatementArguments(values: values, namedValues: [:]) }

    /// The key as a dictionary, for error messages.
    var keyDescription: [String: DatabaseValue] {
        Dictionary(zip(columns, values), uniquingKeysWith: { first, _ in first })
    }

    func delete(_ db: Database) throws -> Bool {
        if hasNull { return false }
        try statement(db, .deleteByKey) { "DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(sql)" }
            .execute(arguments: arguments)
        return db.changesCount > 0
    }

    func exists(_ db: Database) throws -> Bool {
        if hasNull { return false }
        let statement = try statement(db, .existsByKey) {
            "SELECT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE \(sql))"
        }
        return try Bool.fetchOne(statement, arguments: arguments) ?? false
    }

    /// The `SELECT *` of the row.
    func selectStatement(_ db: Database) throws -> Statement {
        try statement(db, .selectByKey) { "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \(sql)" }
    }

    private func statement(_ db: Database, _ kind: RecordStatementCache.Kind, sql: () -> String) throws -> Statement {
        try db.recordStatement(kind, table: table, columns: columns, sql: sql)
    }
}
