// Fetching the records of a table: `Place.fetchAll(db)`, `Place.fetchOne(db, key: 1)`.

extension FetchableRecord where Self: TableRecord {
    private static var selectAllSQL: String { "SELECT * FROM \(databaseTableName.quotedDatabaseIdentifier)" }

    /// A cursor over all the records of the table.
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> {
        try fetchCursor(db, sql: selectAllSQL)
    }

    /// All the records of the table.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try fetchAll(db, sql: selectAllSQL)
    }

    /// The first record of the table, if any.
    public static func fetchOne(_ db: Database) throws -> Self? {
        try fetchOne(db, sql: selectAllSQL + " LIMIT 1")
    }

    /// The record with this primary key (a single-column key, or the rowid),
    /// or nil.
    ///
    /// ```swift
    /// let place = try Place.fetchOne(db, key: 1)
    /// ```
    public static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        let filter = try KeyFilter(db, table: databaseTableName, primaryKey: key.databaseValue)
        if filter.hasNull { return nil }
        return try fetchOne(filter.selectStatement(db), arguments: filter.arguments)
    }

    /// The record with these values of a unique key (or of the primary key), or nil.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: ["email": "arthur@example.com"])
    /// ```
    ///
    /// - throws: ``DatabaseError`` (SQLITE_MISUSE) when the columns are not a unique key.
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self? {
        let filter = try KeyFilter(db, table: databaseTableName, uniqueKey: key)
        if filter.hasNull { return nil }
        return try fetchOne(filter.selectStatement(db), arguments: filter.arguments)
    }

    /// The records with these primary keys, in no particular order.
    public static func fetchAll<Keys: Sequence>(_ db: Database, keys: Keys) throws -> [Self]
    where Keys.Element: DatabaseValueConvertible {
        try keys.compactMap { try fetchOne(db, key: $0) }
    }

    /// The record with this primary key.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   there is none.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        if let record = try fetchOne(db, key: key) { return record }
        let filter = try KeyFilter(db, table: databaseTableName, primaryKey: key.databaseValue)
        throw RecordError.recordNotFound(databaseTableName: databaseTableName, key: filter.keyDescription)
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// The distinct records of the table.
    public static func fetchSet(_ db: Database) throws -> Set<Self> {
        try fetchSet(db, sql: selectAllSQL)
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
