// The requests of a record type: `Player.filter(...)`, `Player.order(...)`,
// each the same method on `Player.all()`.

extension TableRecord {
    /// `SELECT <databaseSelection> FROM <table>`.
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(relation: .all(Self.self))
    }

    /// The request that gives no record.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    /// The request selecting these columns and expressions.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().select(selection) }

    /// The request selecting these columns and expressions.
    public static func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().select(selection) }

    /// The request selecting what the record's columns give: `Player.select { $0.name }`.
    public static func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().select([selection(databaseComponents)])
    }

    /// The request selecting what the record's columns give: `Player.select { [$0.id, $0.name] }`.
    public static func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection(databaseComponents))
    }

    /// The request selecting raw SQL.
    public static func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().select(sql: sql, arguments: arguments)
    }

    /// The request selecting an SQL literal.
    public static func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().select(literal: sqlLiteral) }

    /// The request selecting these columns and expressions, fetching values of another type.
    ///
    /// ```swift
    /// let names = try Player.select(Column("name"), as: String.self).fetchAll(db)
    /// ```
    public static func select<RowDecoder>(_ selection: [any SQLSelectable], as type: RowDecoder.Type = RowDecoder.self)
        -> QueryInterfaceRequest<RowDecoder>
    {
        all().select(selection, as: type)
    }

    /// The request selecting these columns and expressions, fetching values of another type.
    public static func select<RowDecoder>(_ selection: any SQLSelectable..., as type: RowDecoder.Type = RowDecoder.self)
        -> QueryInterfaceRequest<RowDecoder>
    {
        all().select(selection, as: type)
    }

    /// The request selecting what the record's columns give, fetching values of another type.
    public static func select<RowDecoder>(
        _ selection: (DatabaseComponents) throws -> any SQLSelectable, as type: RowDecoder.Type = RowDecoder.self
    ) rethrows -> QueryInterfaceRequest<RowDecoder> {
        try all().select([selection(databaseComponents)], as: type)
    }

    /// The request selecting what the record's columns give, fetching values of another type.
    public static func select<RowDecoder>(
        _ selection: (DatabaseComponents) throws -> [any SQLSelectable], as type: RowDecoder.Type = RowDecoder.self
    ) rethrows -> QueryInterfaceRequest<RowDecoder> {
        try all().select(selection(databaseComponents), as: type)
    }

    /// The request selecting raw SQL, fetching values of another type.
    public static func select<RowDecoder>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: RowDecoder.Type = RowDecoder.self
    ) -> QueryInterfaceRequest<RowDecoder> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// The request selecting an SQL literal, fetching values of another type.
    public static func select<RowDecoder>(literal sqlLiteral: SQL, as type: RowDecoder.Type = RowDecoder.self) -> QueryInterfaceRequest<RowDecoder> {
        all().select(literal: sqlLiteral, as: type)
    }

    /// The request selecting the primary key.
    ///
    /// ```swift
    /// let ids = try Player.selectPrimaryKey(as: Int64.self).fetchAll(db)
    /// ```
    public static func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        all().selectPrimaryKey(as: type)
    }

    /// The request selecting these expressions after the record's columns.
    public static func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }

    /// The request selecting these expressions after the record's columns.
    public static func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }

    /// The request selecting, after the record's columns, what its columns give.
    public static func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: [selection(databaseComponents)])
    }

    /// The request selecting, after the record's columns, what its columns give.
    public static func annotated(with selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection(databaseComponents))
    }

    /// The request keeping the records for which `predicate` is true.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "score" > ?
    /// let best = try Player.filter(Column("score") > 1000).fetchAll(db)
    /// ```
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> { all().filter(predicate) }

    /// The request keeping the records for which the predicate on their
    /// columns is true: `Player.filter { $0.score > 1000 }`.
    public static func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> QueryInterfaceRequest<Self> {
        let expression = try predicate(databaseComponents).sqlExpression
        return all().filter(expression)
    }

    /// The request keeping the record of this primary key; none for nil.
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> {
        // Built in place: `Player.filter(id:)` is the commonest request.
        let value = key.databaseValue
        if value.isNull { return none() }
        var relation = SQLRelation.all(Self.self)
        relation.filters = [.primaryKeyValue(value)]
        return QueryInterfaceRequest(relation: relation)
    }

    /// The request keeping the records of these primary keys.
    public static func filter<Keys: Collection>(keys: Keys) -> QueryInterfaceRequest<Self> where Keys.Element: DatabaseValueConvertible {
        all().filter(keys: keys)
    }

    /// The request keeping the record with these values of a unique key.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<Self> { all().filter(key: key) }

    /// The request keeping the records with these values of a unique key.
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<Self> { all().filter(keys: keys) }

    /// The request filtered by raw SQL.
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().filter(sql: sql, arguments: arguments)
    }

    /// The request filtered by an SQL literal.
    public static func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().filter(literal: sqlLiteral) }

    /// The request sorted by these terms.
    ///
    /// ```swift
    /// // SELECT * FROM "player" ORDER BY "score" DESC
    /// let request = Player.order(Column("score").desc)
    /// ```
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> { all().order(orderings) }

    /// The request sorted by these terms.
    public static func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<Self> { all().order(orderings) }

    /// The request sorted by what the record's columns give: `Player.order(\.score.desc)`.
    public static func order(_ orderings: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> QueryInterfaceRequest<Self> {
        try all().order([orderings(databaseComponents)])
    }

    /// The request sorted by what the record's columns give: `Player.order { [$0.score.desc, $0.name] }`.
    public static func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(orderings(databaseComponents))
    }

    /// The request sorted by primary key.
    public static func orderByPrimaryKey() -> QueryInterfaceRequest<Self> { all().orderByPrimaryKey() }

    /// The request sorted by raw SQL.
    public static func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().order(sql: sql, arguments: arguments)
    }

    /// The request sorted by an SQL literal.
    public static func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().order(literal: sqlLiteral) }

    /// The request limited to `limit` records, after skipping `offset`.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> { all().limit(limit, offset: offset) }

    /// The request with a common table expression.
    public static func with<RowDecoder>(_ cte: CommonTableExpression<RowDecoder>) -> QueryInterfaceRequest<Self> { all().with(cte) }

    /// The number of columns the record selects, for raw SQL joins split
    /// with ``splittingRowAdapters(columnCounts:)``.
    ///
    /// ```swift
    /// let adapters = try splittingRowAdapters(columnCounts: [
    ///     Player.numberOfSelectedColumns(db),
    ///     Team.numberOfSelectedColumns(db),
    /// ])
    /// ```
    public static func numberOfSelectedColumns(_ db: Database) throws -> Int {
        var count = 0
        for selection in databaseSelection.map(\.sqlSelection) {
            switch selection.impl {
            case .allColumns:
                count += try db.columns(in: databaseTableName).count
            case .allColumnsExcluding(let excluded, _):
                let names = Set(excluded.map { $0.lowercased() })
                count += try db.columns(in: databaseTableName).filter { !names.contains($0.name.lowercased()) }.count
            case .expression, .aliased:
                count += 1
            case .literal(let sql):
                // Raw SQL may select any number of columns: SQLite counts them.
                let text = try sql.build(db).sql
                count += try db.makeStatement(sql: "SELECT \(text) FROM \(databaseTableName.quotedDatabaseIdentifier)").columnCount
            }
        }
        return count
    }

    /// Updates every row of the table, and returns how many were changed.
    ///
    /// ```swift
    /// try Player.updateAll(db, Column("score").set(to: 0))
    /// ```
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment])
        throws -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row of the table, and returns how many were changed.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row of the table with an assignment of its columns.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(databaseComponents)])
    }

    /// Updates every row of the table with assignments of its columns.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(databaseComponents))
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The request keeping the record of this id.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "id" = ?
    /// let player = try Player.filter(id: 1).fetchOne(db)
    /// ```
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { filter(key: id) }

    /// The request keeping the records of these ids.
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { all().filter(ids: ids) }

    /// The request selecting the records' ids.
    public static func selectID() -> QueryInterfaceRequest<ID> { all().selectPrimaryKey(as: ID.self) }
}
