/// A request built with Swift: `Player.filter(Column("score") > 1000).order(Column("name"))`.
///
/// It fetches like any request (`fetchAll`, `fetchOne`, `fetchCursor`,
/// `fetchSet`, `fetchCount`), deletes and updates the rows it selects
/// (`deleteAll`, `updateAll`), and can be a subquery of another request or
/// of SQL (`\(request)`). Its SQL is GRDB's for the same request.
///
/// ```swift
/// let request = Player.filter(Column("score") > 1000).order(Column("score").desc).limit(10)
/// let best = try request.fetchAll(db)          // [Player]
/// let count = try request.fetchCount(db)       // Int
/// let names = try request.select(Column("name"), as: String.self).fetchAll(db)
/// ```
public struct QueryInterfaceRequest<RowDecoder>: Sendable {
    var relation: SQLRelation

    init(relation: SQLRelation) {
        self.relation = relation
    }

    private func with(_ change: (inout SQLRelation) -> Void) -> Self {
        var request = self
        change(&request.relation)
        return request
    }
}

extension QueryInterfaceRequest: TypedRequest {}

// MARK: - Fetching

extension QueryInterfaceRequest: FetchRequest {
    public var sqlSubquery: SQLSubquery { .relation(relation) }

    public func fetchCount(_ db: Database) throws -> Int {
        try SQLQueryGenerator(relation).countRequest(db).fetchOne(db) ?? 0
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        let context = SQLGenerationContext(db)
        let sql = try SQLQueryGenerator(relation).selectSQL(context, singleResult: singleResult)
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(context.arguments)
        if try relation.isProvablyEmpty(db) {
            // `none()`: nothing to observe, as GRDB's region says.
            statement.databaseRegion = DatabaseRegion()
        } else if let rowIDs = try relation.identifiedRowIDs(db) {
            // `filter(id: 1)`: the rows it selects, `player(id,name)[1]`.
            statement.databaseRegion = statement.databaseRegion.tableIntersection(relation.source, rowIDs: rowIDs)
        }
        let associations = relation.prefetchedAssociations
        if !associations.isEmpty && !statement.databaseRegion.isEmpty {
            // As GRDB's: the statement's region has what its prefetches read,
            // so that an observation of it sees them even with no row fetched.
            statement.databaseRegion.formUnion(try prefetchedRegion(db, associations, from: relation))
        }
        let adapter = relation.isJoined ? try JoinedRelation(relation).rowAdapter(db) : nil
        return PreparedRequest(statement: statement, adapter: adapter)
    }

    /// Whether the request gives no row: `SELECT EXISTS (request)`.
    public func isEmpty(_ db: Database) throws -> Bool {
        try !(SQLRequest<Bool>(literal: "SELECT \(exists())").fetchOne(db) ?? false)
    }
}

extension QueryInterfaceRequest {
    /// The statement of the fetch: the record statement of a lookup by
    /// primary key, or the connection's statement of the generated SQL; the
    /// fetch binds the arguments.
    public func _fetchParts(_ db: Database, singleResult: Bool) throws -> _FetchParts? {
        try relation.fetchParts(db, singleResult: singleResult)
    }
}

extension SQLRelation {
    /// The parts of ``QueryInterfaceRequest/_fetchParts(_:singleResult:)``,
    /// on the relation itself: read from the generic request, it would be
    /// copied first (a retain per reference it holds).
    func fetchParts(_ db: Database, singleResult: Bool) throws -> _FetchParts {
        // An observation records what each fetch reads: a fetch of rows by
        // rowid records those rows only, through a statement of its own (the
        // reusable statement's region holds for any arguments).
        let observedRowIDs = db.recordedSelection == nil ? nil : try identifiedRowIDs(db)
        if observedRowIDs == nil, let key = primaryKeyLookup, !key.isNull {
            // `SELECT * FROM "player" WHERE "id" = ?`, the SQL this request
            // builds, from the record statement cache: no SQL to build.
            // The key goes in the spare array of the record statements.
            let statement = try db.selectAllByPrimaryKeyStatement(table: source)
            var values = db.recordStatementCache.takeSpareValues()
            values.append(key)
            db.bindRecordValues(values, to: statement)
            return _FetchParts(statement: statement, arguments: nil, adapter: nil)
        }
        let context = SQLGenerationContext(db)
        let sql = try SQLQueryGenerator(self).selectSQL(context, singleResult: singleResult)
        // The statement never leaves the fetch: the connection's reusable
        // statement of this SQL, its arguments bound by the fetch.
        let statement: Statement
        if let observedRowIDs {
            statement = try db.makeStatement(sql: sql)
            statement.databaseRegion = statement.databaseRegion.tableIntersection(source, rowIDs: observedRowIDs)
        } else {
            statement = try db.reusableStatement(sql: sql)
        }
        if children.isEmpty && alias == nil {
            return _FetchParts(statement: statement, arguments: context.arguments, adapter: nil)
        }
        let adapter = isJoined ? try JoinedRelation(self).rowAdapter(db) : nil
        let associations = prefetchedAssociations
        let relation = self
        let prefetch: ((Database, [Row]) throws -> Void)? =
            associations.isEmpty ? nil : { db, rows in try DatabaseKit.prefetch(db, associations, from: relation, into: rows) }
        return _FetchParts(statement: statement, arguments: context.arguments, adapter: adapter, prefetch: prefetch)
    }
}

// The fetches of FetchRequest, on the concrete type: no generic request to
// copy, no witness calls, for the commonest fetches.
extension QueryInterfaceRequest where RowDecoder: FetchableRecord {
    /// All the records of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try fetchSource(db, singleResult: false).fetchAll(RowDecoder.init(row:))
    }

    /// The record of the first row of the request, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try fetchSource(db, singleResult: true).fetchOne(RowDecoder.init(row:))
    }
}

extension QueryInterfaceRequest {
    private func fetchSource(_ db: Database, singleResult: Bool) throws -> FetchSource {
        // Straight to the parts: through the generic initializer, the
        // request would be copied (a retain per reference it holds) for the
        // witness call.
        FetchSource(db, parts: try relation.fetchParts(db, singleResult: singleResult))
    }
}

// MARK: - Derivation

extension QueryInterfaceRequest: SelectionRequest {
    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        with {
            $0.selection = .deferred { db in try selection(db).map(\.sqlSelection) }
            $0.annotations = []
        }
    }

    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        with { $0.annotations.append(.deferred { db in try selection(db).map(\.sqlSelection) }) }
    }

    /// The request selecting these columns and expressions instead.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        with {
            $0.selection = .value(selection.map(\.sqlSelection))
            $0.annotations = []
        }
    }

    /// The request selecting these columns and expressions instead.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// The request selecting these columns and expressions, fetching values of another type.
    ///
    /// ```swift
    /// let names = try Player.all().select([Column("name")], as: String.self).fetchAll(db)
    /// ```
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// The request selecting these columns and expressions, fetching values of another type.
    ///
    /// ```swift
    /// let maxScore = try Player.all().select(max(Column("score")), as: Int.self).fetchOne(db)
    /// ```
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// The request selecting raw SQL, fetching values of another type.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self)
        -> QueryInterfaceRequest<T>
    {
        select(literal: SQL(sql: sql, arguments: arguments)).asRequest(of: T.self)
    }

    /// The request selecting an SQL literal, fetching values of another type.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(literal: sqlLiteral).asRequest(of: T.self)
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// The request selecting what the record's columns give, fetching values of another type.
    ///
    /// ```swift
    /// let names = try Player.all().select({ $0.name }, as: String.self).fetchAll(db)
    /// ```
    public func select<T>(_ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable, as type: T.Type = T.self) rethrows
        -> QueryInterfaceRequest<T>
    {
        try select([selection(RowDecoder.databaseComponents)]).asRequest(of: T.self)
    }

    /// The request selecting what the record's columns give, fetching values of another type.
    public func select<T>(_ selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable], as type: T.Type = T.self) rethrows
        -> QueryInterfaceRequest<T>
    {
        try select(selection(RowDecoder.databaseComponents)).asRequest(of: T.self)
    }

    /// The request selecting the primary key, as values of `type`.
    ///
    /// ```swift
    /// let ids = try Player.filter(Column("score") > 1000).selectPrimaryKey(as: Int64.self).fetchAll(db)
    /// ```
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        let table = relation.source
        return selectWhenConnected { db in
            let primaryKey = try db.primaryKey(table)
            if let rowID = primaryKey.rowIDColumn { return [Column(rowID)] }
            return primaryKey.columns.map { Column($0) }
        }.asRequest(of: PrimaryKey.self)
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord & Identifiable {
    /// The request selecting the records' ids.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        selectPrimaryKey(as: RowDecoder.ID.self)
    }
}

extension QueryInterfaceRequest: FilteredRequest {
    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        with { $0.filters.append(.expression(.deferred { db in try predicate(db).sqlExpression })) }
    }

    /// The request keeping the rows for which `predicate` is true.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "score" > ?
    /// let request = Player.all().filter(Column("score") > 1000)
    /// ```
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        with { $0.filters.append(.expression(.value(predicate.sqlExpression))) }
    }

    /// The request keeping the row of this primary key (single-column, or
    /// the rowid); no row for nil.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "id" = ?
    /// let player = try Player.all().filter(key: 1).fetchOne(db)
    /// ```
    public func filter(key: some DatabaseValueConvertible) -> Self {
        let value = key.databaseValue
        if value.isNull { return none() }
        return with { $0.filters.append(.primaryKeyValue(value)) }
    }

    /// The request keeping the rows of these primary keys.
    public func filter<Keys: Collection>(keys: Keys) -> Self where Keys.Element: DatabaseValueConvertible {
        let values = keys.map(\.databaseValue)
        if values.isEmpty { return none() }
        return with { $0.filters.append(.primaryKey(values)) }
    }
}

extension QueryInterfaceRequest where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The request keeping the record of this id (its primary key).
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "id" = ?
    /// let player = try Player.all().filter(id: 1).fetchOne(db)
    /// ```
    public func filter(id: RowDecoder.ID) -> Self {
        filter(key: id)
    }

    /// The request keeping the records of these ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self {
        filter(keys: ids)
    }
}

extension QueryInterfaceRequest: OrderedRequest {
    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        with { $0.ordering = SQLRelation.Ordering(terms: [.deferred { db in try orderings(db).map(\.sqlOrdering) }]) }
    }

    /// The request sorted by these terms (replacing its order).
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        with { $0.ordering = SQLRelation.Ordering(terms: [.value(orderings.map(\.sqlOrdering))]) }
    }

    /// The request sorted by these terms (replacing its order).
    ///
    /// ```swift
    /// // SELECT * FROM "player" ORDER BY "score" DESC, "name"
    /// let request = Player.all().order(Column("score").desc, Column("name"))
    /// ```
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    public func reversed() -> Self {
        with { $0.ordering.isReversed.toggle() }
    }

    public func unordered() -> Self {
        with { $0 = $0.unordered() }
    }

    public func withStableOrder() -> Self {
        with { $0 = $0.withStableOrder() }
    }
}

extension QueryInterfaceRequest: AggregatingRequest {
    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        with { $0.grouping = .deferred { db in try expressions(db).map(\.sqlExpression) } }
    }

    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        with { $0.havings.append(.deferred { db in try predicate(db).sqlExpression }) }
    }
}

extension QueryInterfaceRequest: TableRequest {
    public var databaseTableName: String { relation.source }
}

extension QueryInterfaceRequest: DerivableRequest {
    public func distinct() -> Self {
        with { $0.isDistinct = true }
    }

    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        with { $0 = $0.with(cte.cte) }
    }

    /// The request limited to `limit` rows, after skipping `offset` rows.
    ///
    /// ```swift
    /// // SELECT * FROM "player" LIMIT 10 OFFSET 20
    /// let page = Player.all().limit(10, offset: 20)
    /// ```
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        with { $0.limit = SQLLimit(limit: limit, offset: offset) }
    }
}

extension QueryInterfaceRequest {
    /// The same request, fetching another type.
    ///
    /// ```swift
    /// let rows = try Player.all().asRequest(of: Row.self).fetchAll(db)
    /// ```
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(relation: relation)
    }
}
