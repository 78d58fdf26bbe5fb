/// The statements of the persistence methods for one record: its encoded
/// columns, and its table's primary key. Built once per operation.
///
/// The plain statements come from the record statement cache: an insert or
/// an update builds no SQL once its statement is compiled.
struct RecordWriter {
    let db: Database
    let table: String
    let container: PersistenceContainer
    let primaryKey: PrimaryKeyInfo

    init<Record: MutablePersistableRecord>(_ db: Database, _ record: Record) throws {
        // The dynamic type: a Record subclass names its own table.
        let table = type(of: record).databaseTableName
        // Every field computed before any is set: a throwing initializer
        // that sets fields first builds the value aside and copies it.
        let primaryKey = try db.primaryKey(table)
        let predicted = db.recordStatementCache.predictedColumns(table: table)
        let container = try record.databaseContainer(
            predictedColumns: predicted, spareValues: predicted == nil ? [] : db.recordStatementCache.takeSpareValues())
        if predicted == nil || !container.followedPrediction {
            db.recordStatementCache.rememberEncodedColumns(container.columns, table: table)
        }
        self.init(db: db, table: table, container: container, primaryKey: primaryKey)
    }

    private init(db: Database, table: String, container: PersistenceContainer, primaryKey: PrimaryKeyInfo) {
        self.db = db
        self.table = table
        self.container = container
        self.primaryKey = primaryKey
    }

    /// The values of the primary key columns; an absent column is NULL.
    var primaryKeyValues: [DatabaseValue] {
        primaryKey.columns.map { container.databaseValue(forColumn: $0) ?? .null }
    }

    /// True when every primary key value is NULL: no row can match.
    var hasNilPrimaryKey: Bool {
        primaryKeyValues.allSatisfy(\.isNull)
    }

    /// The error of a record that has no row.
    func recordNotFound() -> RecordError {
        RecordError.recordNotFound(
            databaseTableName: table,
            key: Dictionary(zip(primaryKey.columns, primaryKeyValues), uniquingKeysWith: { first, _ in first }))
    }

    // MARK: Insert

    func insertStatement(onConflict: Database.ConflictResolution, returning selection: [any SQLSelectable]) throws -> Statement {
        try statement(
            .insert(onConflict), keyColumns: container.columns, values: container.databaseValues, returning: selection
        ) {
            let verb = onConflict == .abort ? "INSERT" : "INSERT OR \(onConflict.rawValue)"
            let table = self.table.quotedDatabaseIdentifier
            let columns = container.columns
            if columns.isEmpty { return "\(verb) INTO \(table) DEFAULT VALUES" }
            let columnList = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            return "\(verb) INTO \(table) (\(columnList)) VALUES (\(databaseQuestionMarks(count: columns.count)))"
        }
    }

    // MARK: Update

    /// The `UPDATE` of `columns` (those the record encodes and the table
    /// has, primary key excluded), or nil when the primary key is nil.
    func updateStatement(
        columns: Set<String>, onConflict: Database.ConflictResolution, returning selection: [any SQLSelectable]
    ) throws -> Statement? {
        let keyColumns = primaryKey.columns
        let keyValues = primaryKeyValues
        if keyValues.allSatisfy(\.isNull) { return nil }
        let requested = Set(columns.map { $0.lowercased() })
        let keys = Set(keyColumns.map { $0.lowercased() })
        // In the table's order, so that the same record always builds the same SQL.
        var assigned = try db.columns(in: table).map(\.name).filter { column in
            let lowercased = column.lowercased()
            return requested.contains(lowercased) && !keys.contains(lowercased) && container.index(of: column) != nil
        }
        if assigned.isEmpty {
            // Set the key to itself: the row is still touched, so that a
            // missing row is reported and observers see the update.
            assigned = keyColumns
        }
        let values = assigned.map { container.databaseValue(forColumn: $0) ?? .null }
        return try statement(
            .update(onConflict, assigned: assigned), keyColumns: keyColumns, values: values + keyValues,
            returning: selection
        ) {
            let verb = onConflict == .abort ? "UPDATE" : "UPDATE OR \(onConflict.rawValue)"
            let assignments = assigned.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
            return "\(verb) \(self.table.quotedDatabaseIdentifier) SET \(assignments) WHERE \(Self.keyCondition(keyColumns))"
        }
    }

    // MARK: Delete and exists

    func deleteStatement() throws -> Statement? {
        if hasNilPrimaryKey { return nil }
        let keyColumns = primaryKey.columns
        return try statement(
            .deleteByKey, keyColumns: keyColumns, values: primaryKeyValues, returning: []
        ) { "DELETE FROM \(self.table.quotedDatabaseIdentifier) WHERE \(Self.keyCondition(keyColumns))" }
    }

    func existsStatement() throws -> Statement? {
        if hasNilPrimaryKey { return nil }
        let keyColumns = primaryKey.columns
        return try statement(
            .existsByKey, keyColumns: keyColumns, values: primaryKeyValues, returning: []
        ) { "SELECT EXISTS (SELECT 1 FROM \(self.table.quotedDatabaseIdentifier) WHERE \(Self.keyCondition(keyColumns)))" }
    }

    // MARK: Upsert

    /// `INSERT ... ON CONFLICT DO UPDATE SET ...`: the assignments, then
    /// (with `.allColumns`) every other encoded column but the primary key
    /// and the conflict target, overwritten with the inserted value.
    func upsertStatement(
        onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        assignments: [ColumnAssignment], returning selection: [any SQLSelectable]
    ) throws -> Statement {
        let columns = container.columns
        let columnList = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        var sql = "INSERT INTO \(table.quotedDatabaseIdentifier) (\(columnList)) VALUES (\(databaseQuestionMarks(count: columns.count)))"
        var arguments = StatementArguments(databaseValues: container.databaseValues)
        if conflictTarget.isEmpty {
            sql += " ON CONFLICT"
        } else {
            sql += " ON CONFLICT(\(conflictTarget.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))"
        }
        sql += " DO UPDATE SET "
        var assignments = assignments
        if strategy.contains(.allColumns) {
            let excludedColumns = Set((primaryKey.columns + conflictTarget).map { $0.lowercased() })
            for column in columns {
                let lowercased = column.lowercased()
                if excludedColumns.contains(lowercased) { continue }
                if assignments.contains(where: { $0.columnName.lowercased() == lowercased }) { continue }
                assignments.append(ColumnAssignment(columnName: column, value: SQLExpression(.column(column, qualifier: .table("excluded")))))
            }
        }
        let context = SQLGenerationContext(db)
        let updates = try assignments.compactMap { try $0.sql(context) }.joined(separator: ", ")
        if updates.isEmpty {
            // Nothing to overwrite: without an assignment, a conflicting
            // upsert would return no row. Assign the key to itself.
            let column = (primaryKey.columns.first ?? "rowid").quotedDatabaseIdentifier
            sql += "\(column) = \(column)"
        } else {
            sql += updates
            arguments += context.arguments
        }
        sql += try returningClause(selection, arguments: &arguments)
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }

    // MARK: Helpers

    private static func keyCondition(_ columns: [String]) -> String {
        columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND ")
    }

    /// A statement from the record statement cache, or, with a `RETURNING`
    /// clause, from the SQL statement cache.
    private func statement(
        _ kind: RecordStatementCache.Kind, keyColumns: [String], values: [DatabaseValue],
        returning selection: [any SQLSelectable], sql: () -> String
    ) throws -> Statement {
        if selection.isEmpty {
            let statement = try db.recordStatement(kind, table: table, columns: keyColumns, sql: sql)
            db.bindRecordValues(values, to: statement)
            return statement
        }
        var arguments = StatementArguments(databaseValues: values)
        let sql = try sql() + returningClause(selection, arguments: &arguments)
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }

    /// ` RETURNING ...`, empty without selection.
    private func returningClause(_ selection: [any SQLSelectable], arguments: inout StatementArguments) throws -> String {
        if selection.isEmpty { return "" }
        let context = SQLGenerationContext(db)
        let sql = try " RETURNING " + selection.map { try $0.sqlSelection.sql(context) }.joined(separator: ", ")
        arguments += context.arguments
        return sql
    }

    /// Runs `body` and returns how many rows of the table it changed; for a
    /// view, the rows its INSTEAD OF triggers changed.
    func countingChanges<T>(_ body: () throws -> T) throws -> (changes: Int, result: T) {
        if try db.viewExists(table) {
            let before = db.totalChangesCount
            let result = try body()
            return (db.totalChangesCount - before, result)
        }
        let result = try body()
        return (db.changesCount, result)
    }
}


