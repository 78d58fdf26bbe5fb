/// A `WHERE` clause that selects rows by primary key or unique key, with its
/// arguments: what `fetchOne(db, key:)`, `fetchAll(db, keys:)`,
/// `deleteOne(db, key:)` and `exists(db, key:)` share.
///
/// A lookup of one key takes its statement from the record statement cache:
/// it builds no SQL once the statement is compiled.
struct KeyFilter {
    let table: String
    let columns: [String]
    /// The values of the keys, one after the other, each aligned with
    /// `columns` (flat: a lookup by one key allocates one array).
    let values: [DatabaseValue]
    /// The number of keys.
    let keyCount: Int

    /// Rows by single-column primary key (or rowid).
    init(_ db: Database, table: String, primaryKeys values: [DatabaseValue]) throws {
        let columns = try db.filteringPrimaryKeyColumns(table)
        self.table = table
        self.columns = columns
        // NULL matches no primary key.
        self.values = values.contains(where: \.isNull) ? values.filter { !$0.isNull } : values
        self.keyCount = self.values.count
    }

    /// Rows by unique keys given as dictionaries, all on the same columns.
    init(_ db: Database, table: String, uniqueKeys dictionaries: [[String: (any DatabaseValueConvertible)?]]) throws {
        self.table = table
        guard let first = dictionaries.first else {
            columns = []
            values = []
            keyCount = 0
            return
        }
        let columns = first.keys.sorted()
        let lowercased = columns.map { $0.lowercased() }
        guard !columns.isEmpty, try db.table(table, hasUniqueKey: columns) else {
            throw DatabaseError.misuse(
                "table \(table) has no unique key on column(s) \(columns.joined(separator: ", ")): a key must identify at most one row"
            )
        }
        var values: [DatabaseValue] = []
        for dictionary in dictionaries {
            guard dictionary.keys.map({ $0.lowercased() }).sorted() == lowercased.sorted() else {
                throw DatabaseError.misuse("all keys must have the same columns: \(columns.joined(separator: ", "))")
            }
            let byColumn = Dictionary(dictionary.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            values += lowercased.map { byColumn[$0].flatMap { $0?.databaseValue } ?? .null }
        }
        self.columns = columns
        self.values = values
        self.keyCount = dictionaries.count
    }

    var isEmpty: Bool { keyCount == 0 }

    /// The values of the key at `index`.
    private func key(_ index: Int) -> ArraySlice<DatabaseValue> {
        values[(index * columns.count)..<((index + 1) * columns.count)]
    }

    /// One key without NULL: the SQL only depends on the columns, so the
    /// statement can be cached by them.
    private var isSingleNonNullKey: Bool { keyCount == 1 && !values.contains(where: \.isNull) }

    var arguments: StatementArguments { StatementArguments(databaseValues: values) }

    /// `"id" = ?`, `"id" IN (?, ?)`, `("a" = ? AND "b" IS NULL) OR (...)`.
    /// A NULL value of a unique key matches NULL, as GRDB's `== nil`.
    var sql: String {
        if columns.count == 1 && !values.contains(where: \.isNull) {
            let column = columns[0].quotedDatabaseIdentifier
            return keyCount == 1 ? "\(column) = ?" : "\(column) IN (\(databaseQuestionMarks(count: keyCount)))"
        }
        return (0..<keyCount).map { index in
            let conditions = zip(columns, key(index)).map { column, value in
                value.isNull ? "\(column.quotedDatabaseIdentifier) IS ?" : "\(column.quotedDatabaseIdentifier) = ?"
            }
            let condition = conditions.joined(separator: " AND ")
            return keyCount == 1 ? condition : "(\(condition))"
        }.joined(separator: " OR ")
    }

    /// The `SELECT` of the rows, with the record's selection.
    func selectStatement(_ db: Database, selection: [any SQLSelectable]) throws -> Statement {
        // An observation records what each fetch reads: a fetch by rowid
        // records its rows only, through a statement of its own (a cached
        // statement's region holds for any arguments).
        let observedRowIDs = db.recordedSelection == nil ? nil : try rowIDs(db, selection: selection)
        if observedRowIDs == nil, isSingleNonNullKey, selectsAllColumns(selection) {
            // The usual lookup: no SQL is built once the statement is cached.
            return try db.selectAllByKeyStatement(table: table, columns: columns, values: values) { self.sql }
        }
        let context = SQLGenerationContext(db)
        let columns = try selection.map { try $0.sqlSelection.sql(context) }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(table.quotedDatabaseIdentifier) WHERE \(self.sql)"
        let statement: Statement
        if let observedRowIDs {
            statement = try db.makeStatement(sql: sql)
            statement.databaseRegion = statement.databaseRegion.tableIntersection(table, rowIDs: observedRowIDs)
        } else if context.arguments.isEmpty && isSingleNonNullKey {
            statement = try db.recordStatement(.selectByKey(selection: columns), table: table, columns: self.columns) { sql }
        } else {
            statement = try db.cachedStatement(sql: sql)
        }
        try statement.setArguments(context.arguments + arguments)
        return statement
    }

    /// The rowids of the keys, when the key is the rowid (or its INTEGER
    /// PRIMARY KEY alias) and the selection reads nothing else; nil otherwise.
    private func rowIDs(_ db: Database, selection: [any SQLSelectable]) throws -> Set<Int64>? {
        guard columns.count == 1, try db.tableExists(table),
            try RowIDColumnTest(db, table: table, alias: nil).isRowID(.column(columns[0])),
            selection.allSatisfy(\.sqlSelection.readsOnlyItsRow)
        else { return nil }
        var result: Set<Int64> = []
        for value in values {
            guard let rowIDs = SQLExpression.rowIDs(equalTo: value) else { return nil }
            result.formUnion(rowIDs)
        }
        return result
    }

    /// Deletes the rows, and returns how many were deleted.
    func delete(_ db: Database) throws -> Int {
        if isEmpty { return 0 }
        let sql = "DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(self.sql)"
        let statement =
            isSingleNonNullKey
            ? try db.recordStatement(.deleteByKey, table: table, columns: columns) { sql } : try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(arguments)
        try statement.execute()
        return db.changesCount
    }

    /// True when a row matches.
    func exists(_ db: Database) throws -> Bool {
        if isEmpty { return false }
        let sql = "SELECT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE \(self.sql))"
        let statement =
            isSingleNonNullKey
            ? try db.recordStatement(.existsByKey, table: table, columns: columns) { sql } : try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(arguments)
        return try Bool.fetchOne(statement) ?? false
    }

    /// The first key as a dictionary, for errors.
    var firstKeyDescription: [String: DatabaseValue] {
        Dictionary(zip(columns, isEmpty ? [] : key(0)), uniquingKeysWith: { first, _ in first })
    }
}

/// True when a record's selection is all columns (`*`). The default
/// selection is one shared array, recognized without reading it.
func selectsAllColumns(_ selection: [any SQLSelectable]) -> Bool {
    let isDefault = selection.withUnsafeBufferPointer { selection in
        allColumnsSelection.withUnsafeBufferPointer { $0.baseAddress == selection.baseAddress }
    }
    return isDefault || (selection.count == 1 && selection[0].sqlSelection.isAllColumns)
}

extension Database {
    /// `SELECT * FROM table WHERE condition` for one key of `columns`, from
    /// the record statement cache, bound to `values`.
    func selectAllByKeyStatement(
        table: String, columns: [String], values: consuming [DatabaseValue], condition: () -> String
    ) throws -> Statement {
        let statement = try recordStatement(.selectByKey(selection: "*"), table: table, columns: columns) {
            "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \(condition())"
        }
        bindRecordValues(values, to: statement)
        return statement
    }

    /// The column of a lookup by primary key: the single primary key
    /// column, or the rowid.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) for a primary key of
    ///   several columns.
    func filteringPrimaryKeyColumn(_ table: String) throws -> String {
        try filteringPrimaryKeyColumns(table)[0]
    }

    /// ``filteringPrimaryKeyColumn(_:)``, as the one-element array of the
    /// table's primary key columns (shared, not built for each lookup).
    func filteringPrimaryKeyColumns(_ table: String) throws -> [String] {
        try validateSchemaCache()
        // Fetching records one key at a time asks for the same table again and again.
        if let last = schemaCache.lastKeyColumn, last.table == table { return last.columns }
        let primaryKey = try primaryKey(table)
        guard primaryKey.columns.count == 1 else {
            throw DatabaseError.misuse(
                "Requesting by key requires a single-column primary key in the table \(table): pass the key as a dictionary")
        }
        schemaCache.lastKeyColumn = (table, primaryKey.columns)
        return primaryKey.columns
    }
}
