/// A `WHERE` clause that selects one row by its primary key or a unique key,
/// with its arguments: what `fetchOne(db, key:)`, `deleteOne(db, key:)`,
/// `update` and `delete` share.
struct KeyFilter {
    let table: String
    /// `"id" = ?`, `"a" = ? AND "b" = ?`.
    let sql: String
    let columns: [String]
    let values: [DatabaseValue]

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
        self.sql = columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND ")
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
        try db.cachedStatement(sql: "DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(sql)").execute(arguments: arguments)
        return db.changesCount > 0
    }

    func exists(_ db: Database) throws -> Bool {
        if hasNull { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE \(sql))", arguments: arguments)
            ?? false
    }

    /// The `SELECT *` of the row.
    var selectSQL: String { "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \(sql)" }
}
