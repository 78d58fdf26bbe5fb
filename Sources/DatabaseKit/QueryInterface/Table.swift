/// A table, for requests without a record type.
///
/// ```swift
/// let playerTable = Table("player")                 // fetches rows
/// let count = try playerTable.filter(Column("score") > 1000).fetchCount(db)
/// let rows = try playerTable.order(Column("name")).fetchAll(db)
///
/// let players = Table<Player>("player")             // fetches records
/// let best = try players.order(Column("score").desc).fetchOne(db)
/// ```
public struct Table<RowDecoder>: Sendable {
    /// The table name.
    public var tableName: String

    private init(_ tableName: String, _ type: RowDecoder.Type) {
        self.tableName = tableName
    }

    /// The table of this name.
    public init(_ tableName: String) {
        self.init(tableName, RowDecoder.self)
    }
}

extension Table where RowDecoder == Row {
    /// The table of this name, fetching rows.
    public init(_ tableName: String) {
        self.init(tableName, Row.self)
    }
}

extension Table: DatabaseRegionConvertible {
    /// The whole table.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        DatabaseRegion(table: tableName)
    }
}

// MARK: - Requests

extension Table {
    /// `SELECT * FROM table`.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(relation: SQLRelation(source: tableName))
    }

    /// The request that gives no row.
    public func none() -> QueryInterfaceRequest<RowDecoder> { all().none() }

    /// The request selecting these columns and expressions.
    public func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }

    /// The request selecting these columns and expressions.
    public func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }

    /// The request selecting raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().select(sql: sql, arguments: arguments)
    }

    /// The request selecting an SQL literal.
    public func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().select(literal: sqlLiteral) }

    /// The request selecting these columns and expressions, fetching values of another type.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// The request selecting these columns and expressions, fetching values of another type.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// The request selecting raw SQL, fetching values of another type.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// The request selecting an SQL literal, fetching values of another type.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }

    /// The request selecting the primary key.
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        let table = tableName
        return all().selectWhenConnected { db in
            let primaryKey = try db.primaryKey(table)
            if let rowID = primaryKey.rowIDColumn { return [Column(rowID)] }
            return primaryKey.columns.map { Column($0) }
        }.asRequest(of: PrimaryKey.self)
    }

    /// The request selecting these expressions after all columns.
    public func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }

    /// The request selecting these expressions after all columns.
    public func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }

    /// The request keeping the rows for which `predicate` is true.
    public func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<RowDecoder> { all().filter(predicate) }

    /// The request keeping the row of this primary key.
    public func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }

    /// The request keeping the rows of these primary keys.
    public func filter<Keys: Collection>(keys: Keys) -> QueryInterfaceRequest<RowDecoder> where Keys.Element: DatabaseValueConvertible {
        all().filter(keys: keys)
    }

    /// The request keeping the row with these values of a unique key.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }

    /// The request keeping the rows with these values of a unique key.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<RowDecoder> { all().filter(keys: keys) }

    /// The request filtered by raw SQL.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(sql: sql, arguments: arguments)
    }

    /// The request filtered by an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().filter(literal: sqlLiteral) }

    /// The request sorted by these terms.
    public func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }

    /// The request sorted by these terms.
    public func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }

    /// The request sorted by primary key.
    public func orderByPrimaryKey() -> QueryInterfaceRequest<RowDecoder> { all().orderByPrimaryKey() }

    /// The request sorted by raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().order(sql: sql, arguments: arguments)
    }

    /// The request sorted by an SQL literal.
    public func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().order(literal: sqlLiteral) }

    /// The request limited to `limit` rows, after skipping `offset` rows.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<RowDecoder> { all().limit(limit, offset: offset) }

    /// The request with a common table expression.
    public func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<RowDecoder> { all().with(cte) }
}

extension Table where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The request keeping the record of this id.
    public func filter(id: RowDecoder.ID) -> QueryInterfaceRequest<RowDecoder> { all().filter(id: id) }

    /// The request keeping the records of these ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> QueryInterfaceRequest<RowDecoder> { all().filter(ids: ids) }

    /// The request selecting the ids.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> { selectPrimaryKey(as: RowDecoder.ID.self) }

    /// True when a row has this id.
    public func exists(_ db: Database, id: RowDecoder.ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try !filter(id: id).isEmpty(db)
    }

    /// Deletes the row with this id, and returns whether there was one.
    @discardableResult
    public func deleteOne(_ db: Database, id: RowDecoder.ID) throws -> Bool { try deleteOne(db, key: id) }

    /// Deletes the rows with these ids, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database, ids: some Collection<RowDecoder.ID>) throws -> Int { try deleteAll(db, keys: ids) }
}

// MARK: - Fetching, counting, deleting, updating

extension Table {
    /// The number of rows in the table.
    public func fetchCount(_ db: Database) throws -> Int { try all().fetchCount(db) }

    /// Deletes every row of the table, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int { try all().deleteAll(db) }

    /// True when a row has this primary key.
    public func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// True when a row has these values of a unique key.
    public func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes the rows with these primary keys, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key, and returns whether there was one.
    @discardableResult
    public func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        if key.databaseValue.isNull { return false }
        return try deleteAll(db, keys: [key]) > 0
    }

    /// Deletes the rows with these values of unique keys, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with these values of a unique key, and returns whether there was one.
    @discardableResult
    public func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }

    /// Updates every row of the table, and returns how many were changed.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]) throws
        -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row of the table, and returns how many were changed.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }
}

extension Table where RowDecoder: FetchableRecord {
    /// A cursor over the records of the table.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try all().fetchCursor(db) }
    /// The records of the table.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The first record of the table, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: FetchableRecord & Hashable {
    /// The distinct records of the table.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

extension Table where RowDecoder == Row {
    /// A cursor over the rows of the table.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try all().fetchCursor(db) }
    /// The rows of the table.
    public func fetchAll(_ db: Database) throws -> [Row] { try all().fetchAll(db) }
    /// The first row of the table, if any.
    public func fetchOne(_ db: Database) throws -> Row? { try all().fetchOne(db) }
    /// The distinct rows of the table.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try all().fetchSet(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible {
    /// A cursor over the values of the table's first column.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> { try all().fetchCursor(db) }
    /// The values of the table's first column.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The value of the first row's first column, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & Hashable {
    /// The distinct values of the table's first column.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// A cursor over the values of the table's first column.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> { try all().fetchCursor(db) }
    /// The values of the table's first column.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The value of the first row's first column, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// The distinct values of the table's first column.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

extension SQLInterpolation {
    /// The table's quoted name: `SELECT * FROM \(Table("player"))`.
    @_disfavoredOverload
    public mutating func appendInterpolation<T>(_ table: Table<T>) {
        appendLiteral(table.tableName.quotedDatabaseIdentifier)
    }
}
