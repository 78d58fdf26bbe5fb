/// The SQL of the persistence methods.
enum RecordWriter {
    /// Inserts the record's columns, and returns what ``MutablePersistableRecord/didInsert(_:)`` receives.
    static func insert<Record: MutablePersistableRecord>(
        _ record: Record, _ db: Database, onConflict: Database.ConflictResolution
    ) throws -> InsertionSuccess {
        let container = try record.databaseContainer()
        let table = Record.databaseTableName
        let statement = try db.recordStatement(.insert(onConflict), table: table, columns: container.columns) {
            insertSQL(table: table, columns: container.columns, onConflict: onConflict)
        }
        try statement.execute(arguments: StatementArguments(values: container.databaseValues, namedValues: [:]))
        return InsertionSuccess(
            rowID: db.lastInsertedRowID, rowIDColumn: try db.primaryKey(table).rowIDColumn,
            insertedContainer: container)
    }

    /// The `INSERT` statement of a record, and its arguments.
    static func insertStatement<Record: MutablePersistableRecord>(
        _ record: Record, _ db: Database, onConflict: Database.ConflictResolution
    ) throws -> (String, StatementArguments) {
        let container = try record.databaseContainer()
        let sql = insertSQL(table: Record.databaseTableName, columns: container.columns, onConflict: onConflict)
        return (sql, StatementArguments(values: container.databaseValues, namedValues: [:]))
    }

    private static func insertSQL(table: String, columns: [String], onConflict: Database.ConflictResolution) -> String {
        let verb = onConflict == .abort ? "INSERT" : "INSERT OR \(onConflict.rawValue)"
        let table = table.quotedDatabaseIdentifier
        if columns.isEmpty { return "\(verb) INTO \(table) DEFAULT VALUES" }
        let columnList = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "\(verb) INTO \(table) (\(columnList)) VALUES (\(placeholders))"
    }

    /// Updates the columns (all when nil) of the row with the container's
    /// primary key.
    static func update(
        _ container: PersistenceContainer, _ tableName: String, _ db: Database, columns: Set<String>?,
        onConflict: Database.ConflictResolution
    ) throws {
        let filter = try KeyFilter(db, table: tableName, container: container)
        guard !filter.hasNull else {
            throw RecordError.recordNotFound(databaseTableName: tableName, key: filter.keyDescription)
        }
        let keyColumns = Set(filter.columns.map { $0.lowercased() })
        var assigned: [String] = []
        var values: [DatabaseValue] = []
        for (column, value) in zip(container.columns, container.databaseValues) {
            let lowercased = column.lowercased()
            if keyColumns.contains(lowercased) { continue }
            if let columns, !columns.contains(lowercased) { continue }
            assigned.append(column)
            values.append(value)
        }
        if assigned.isEmpty {
            // Nothing but the key to write: set it to itself, so that a missing
            // row is still reported.
            assigned = filter.columns
            values = filter.values
        }
        let statement = try db.recordStatement(.update(onConflict, assigned: assigned), table: tableName, columns: filter.columns) {
            let verb = onConflict == .abort ? "UPDATE" : "UPDATE OR \(onConflict.rawValue)"
            let assignments = assigned.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
            return "\(verb) \(tableName.quotedDatabaseIdentifier) SET \(assignments) WHERE \(filter.sql)"
        }
        try statement.execute(arguments: StatementArguments(values: values + filter.values, namedValues: [:]))
        if db.changesCount == 0 {
            throw RecordError.recordNotFound(databaseTableName: tableName, key: filter.keyDescription)
        }
    }

    /// True when the encoded record has a primary key value, none of it NULL.
    static func hasNonNullPrimaryKey(_ container: PersistenceContainer, _ tableName: String, _ db: Database) throws
        -> Bool
    {
        for column in try db.primaryKey(tableName).columns {
            guard let value = container.databaseValue(forColumn: column), !value.isNull else { return false }
        }
        return true
    }
}
