// Fetching the records of a table by key: `Player.fetchAll(db)`,
// `Player.fetchOne(db, key: 1)`, `Player.find(db, id: 1)`, with the
// record's `databaseSelection`.

extension TableRecord {
    /// `SELECT <databaseSelection> FROM <table>`, and its arguments.
    static func selectAllStatement(_ db: Database, suffix: String = "") throws -> Statement {
        let context = SQLGenerationContext(db)
        let columns = try databaseSelection.map { try $0.sqlSelection.sql(context) }.joined(separator: ", ")
        let statement = try db.cachedStatement(sql: "SELECT \(columns) FROM \(databaseTableName.quotedDatabaseIdentifier)\(suffix)")
        try statement.setArguments(context.arguments)
        return statement
    }
}

extension FetchableRecord where Self: TableRecord {
    /// A cursor over all the records of the table.
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> {
        try fetchCursor(selectAllStatement(db))
    }

    /// All the records of the table.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try fetchAll(selectAllStatement(db))
    }

    /// The first record of the table, if any.
    public static func fetchOne(_ db: Database) throws -> Self? {
        try fetchOne(selectAllStatement(db, suffix: " LIMIT 1"))
    }

    // MARK: By primary key

    /// The record with this primary key (a single-column key, or the
    /// rowid), or nil. A nil key gives nil.
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) when the primary key
    ///   has several columns.
    public static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        let table = databaseTableName
        let selection = databaseSelection
        let statement: Statement
        if db.recordedSelection == nil, selectsAllColumns(selection) {
            // The usual lookup: the statement of the previous lookup of the
            // table, and the key in the spare array of the record statements,
            // which the lookup before left: no array is allocated per lookup.
            // (The fetch of an observation takes the other path, which
            // records the row rather than the table.)
            statement = try db.selectAllByPrimaryKeyStatement(table: table)
            let value = key.databaseValue
            // NULL matches no primary key.
            if value.isNull { return nil }
            var values = db.recordStatementCache.takeSpareValues()
            values.append(value)
            db.bindRecordValues(values, to: statement)
        } else {
            // The primary key is checked before the key is read, as on the
            // usual path: a NULL key of a composite primary key throws.
            _ = try db.filteringPrimaryKeyColumns(table)
            let value = key.databaseValue
            if value.isNull { return nil }
            statement = try KeyFilter(db, table: table, primaryKeys: [value]).selectStatement(db, selection: selection)
        }
        // No adapter: the statement's own row, the same object from one
        // lookup to the next unless a record keeps it.
        return try statement.fetchOne(arguments: nil) { statement in
            try Self(row: db.recordStatementCache.row(for: statement))
        }
    }

    /// A cursor over the records with these primary keys, in no particular order.
    public static func fetchCursor(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> RecordCursor<Self> {
        let filter = try KeyFilter(db, table: databaseTableName, primaryKeys: keys.map(\.databaseValue))
        if filter.isEmpty { return try fetchCursor(selectAllStatement(db, suffix: " WHERE 0")) }
        return try fetchCursor(filter.selectStatement(db, selection: databaseSelection))
    }

    /// The records with these primary keys, in no particular order.
    public static func fetchAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> [Self] {
        let filter = try KeyFilter(db, table: databaseTableName, primaryKeys: keys.map(\.databaseValue))
        if filter.isEmpty { return [] }
        return try fetchAll(filter.selectStatement(db, selection: databaseSelection))
    }

    /// The record with this primary key.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   there is none.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        if let record = try fetchOne(db, key: key) { return record }
        throw recordNotFound(db, key: key)
    }

    // MARK: By unique key

    /// The record with these values of a unique key (or of the primary key),
    /// or nil. A nil key gives nil.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: ["email": "arthur@example.com"])
    /// ```
    ///
    /// - throws: ``DatabaseError`` (`SQLITE_MISUSE`) when the columns are not a unique key.
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> Self? {
        guard let key else { return nil }
        let filter = try KeyFilter(db, table: databaseTableName, uniqueKeys: [key])
        return try fetchOne(filter.selectStatement(db, selection: databaseSelection))
    }

    /// A cursor over the records with these unique keys, in no particular order.
    public static func fetchCursor(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> RecordCursor<Self> {
        let filter = try KeyFilter(db, table: databaseTableName, uniqueKeys: keys)
        if filter.isEmpty { return try fetchCursor(selectAllStatement(db, suffix: " WHERE 0")) }
        return try fetchCursor(filter.selectStatement(db, selection: databaseSelection))
    }

    /// The records with these unique keys, in no particular order.
    public static func fetchAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> [Self] {
        let filter = try KeyFilter(db, table: databaseTableName, uniqueKeys: keys)
        if filter.isEmpty { return [] }
        return try fetchAll(filter.selectStatement(db, selection: databaseSelection))
    }

    /// The record with these values of a unique key.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   there is none.
    public static func find(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        if let record = try fetchOne(db, key: key) { return record }
        throw recordNotFound(key: key)
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// The distinct records of the table.
    public static func fetchSet(_ db: Database) throws -> Set<Self> {
        try fetchSet(selectAllStatement(db))
    }

    /// The distinct records with these primary keys.
    public static func fetchSet(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Set<Self> {
        try Set(fetchAll(db, keys: keys))
    }

    /// The distinct records with these unique keys.
    public static func fetchSet(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Set<Self> {
        try Set(fetchAll(db, keys: keys))
    }
}

// MARK: - Identifiable records

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The record with this id (its primary key), or nil.
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// The record with this id.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   there is none.
    public static func find(_ db: Database, id: ID) throws -> Self {
        try find(db, key: id)
    }

    /// A cursor over the records with these ids, in no particular order.
    public static func fetchCursor(_ db: Database, ids: some Collection<ID>) throws -> RecordCursor<Self> {
        try fetchCursor(db, keys: ids)
    }

    /// The records with these ids, in no particular order.
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable & Hashable, ID: DatabaseValueConvertible {
    /// The distinct records with these ids.
    public static func fetchSet(_ db: Database, ids: some Collection<ID>) throws -> Set<Self> {
        try fetchSet(db, keys: ids)
    }
}

/// An error of the record persistence methods.
public enum RecordError: Error, CustomStringConvertible {
    /// No row has the record's key: thrown by `update` of a record that is not
    /// in the database, and by `find`.
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])

    /// "Key not found in table player: [id:1]".
    public var description: String {
        switch self {
        case let .recordNotFound(table, key):
            let keyText = key.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            return "Key not found in table \(table): [\(keyText)]"
        }
    }
}

extension TableRecord {
    /// The error of a missing row with this primary key:
    /// ``RecordError/recordNotFound(databaseTableName:key:)``, or the error
    /// that prevented knowing the primary key column.
    public static func recordNotFound(_ db: Database, key: some DatabaseValueConvertible) -> any Error {
        do {
            let column = try db.filteringPrimaryKeyColumn(databaseTableName)
            return RecordError.recordNotFound(databaseTableName: databaseTableName, key: [column: key.databaseValue])
        } catch {
            return error
        }
    }

    /// The error of a missing row with this key.
    public static func recordNotFound(key: [String: (any DatabaseValueConvertible)?]) -> RecordError {
        RecordError.recordNotFound(databaseTableName: databaseTableName, key: key.mapValues { $0?.databaseValue ?? .null })
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The error of a missing row with this id.
    public static func recordNotFound(_ db: Database, id: ID) -> any Error {
        recordNotFound(db, key: id)
    }
}
