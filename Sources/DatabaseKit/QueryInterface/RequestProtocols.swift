// The derivation protocols of the query interface, as GRDB declares them:
// each names one kind of refinement (selecting, filtering, sorting,
// grouping), so that an application's own request extensions work on any
// request that supports it:
//
//     extension DerivableRequest<Player> {
//         func bestFirst() -> Self { order(Column("score").desc) }
//     }

/// A request that knows the type it fetches.
public protocol TypedRequest<RowDecoder> {
    /// The type of what the request fetches.
    associatedtype RowDecoder
}

// MARK: - Selection

/// A request that can choose its columns.
public protocol SelectionRequest {
    /// The request selecting what `selection` gives when SQL is built.
    func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self

    /// The request selecting, after its columns, what `selection` gives.
    func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self
}

extension SelectionRequest {
    /// The request selecting these columns and expressions instead.
    ///
    /// ```swift
    /// // SELECT "id", "name" FROM "player"
    /// let request = Player.all().select([Column("id"), Column("name")])
    /// ```
    public func select(_ selection: [any SQLSelectable]) -> Self {
        let selection = SendableSelection(selection)
        return selectWhenConnected { _ in selection.values }
    }

    /// The request selecting these columns and expressions instead.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// The request selecting raw SQL: `select(sql: "id, name")`.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(literal: SQL(sql: sql, arguments: arguments))
    }

    /// The request selecting an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self {
        select([sqlLiteral])
    }

    /// The request selecting these expressions after its columns.
    ///
    /// ```swift
    /// // SELECT *, "score" + "bonus" AS "total" FROM "player"
    /// let request = Player.annotated(with: (Column("score") + Column("bonus")).forKey("total"))
    /// ```
    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let selection = SendableSelection(selection)
        return annotatedWhenConnected { _ in selection.values }
    }

    /// The request selecting these expressions after its columns.
    public func annotated(with selection: any SQLSelectable...) -> Self {
        annotated(with: selection)
    }
}

extension SelectionRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// The request selecting what the record's columns give:
    /// `Player.all().select { $0.name }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try select([selection(RowDecoder.databaseComponents)])
    }

    /// The request selecting what the record's columns give:
    /// `Player.all().select { [$0.id, $0.name] }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try select(selection(RowDecoder.databaseComponents))
    }

    /// The request selecting, after its columns, what the record's columns give.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try annotated(with: [selection(RowDecoder.databaseComponents)])
    }

    /// The request selecting, after its columns, what the record's columns give.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try annotated(with: selection(RowDecoder.databaseComponents))
    }
}

/// Selections kept by a request: values (`Column`, `SQLExpression`,
/// `SQLSelection`…), converted once.
struct SendableSelection: Sendable {
    let selections: [SQLSelection]

    init(_ selection: [any SQLSelectable]) {
        selections = selection.map(\.sqlSelection)
    }

    var values: [any SQLSelectable] { selections }
}

// MARK: - Filter

/// A request that can filter its rows.
public protocol FilteredRequest {
    /// The request keeping the rows for which `predicate` is true.
    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension FilteredRequest {
    /// The request keeping the rows for which `predicate` is true.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "score" > ?
    /// let request = Player.all().filter(Column("score") > 1000)
    /// ```
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        let expression = predicate.sqlExpression
        return filterWhenConnected { _ in expression }
    }

    /// The request filtered by raw SQL: `filter(sql: "score > ?", arguments: [1000])`.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(literal: SQL(sql: sql, arguments: arguments))
    }

    /// The request filtered by an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> Self {
        filter(sqlLiteral)
    }

    /// The request that gives no row (`WHERE 0`, without querying the database for keys).
    public func none() -> Self {
        filterWhenConnected { _ in false }
    }

    /// The request itself: the counterpart of ``none()``.
    public func all() -> Self { self }
}

extension FilteredRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// The request keeping the rows for which the predicate on the
    /// record's columns is true: `Player.all().filter { $0.score > 1000 }`.
    public func filter(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        let expression = try predicate(RowDecoder.databaseComponents).sqlExpression
        return filterWhenConnected { _ in expression }
    }
}

// MARK: - Ordering

/// A request that can sort its rows.
public protocol OrderedRequest {
    /// The request sorted by what `orderings` gives (replacing its order).
    func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self

    /// The request in reverse order: `ASC` becomes `DESC`, and the other way around.
    func reversed() -> Self

    /// The request without its order.
    func unordered() -> Self

    /// The request sorted, after its own order, by the primary key: a
    /// stable order, whatever the order of equal rows.
    func withStableOrder() -> Self
}

extension OrderedRequest {
    /// The request sorted by these terms (replacing its order).
    ///
    /// ```swift
    /// // SELECT * FROM "player" ORDER BY "score" DESC, "name"
    /// let request = Player.all().order(Column("score").desc, Column("name"))
    /// ```
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// The request sorted by these terms (replacing its order).
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        let orderings = orderings.map(\.sqlOrdering)
        return orderWhenConnected { _ in orderings }
    }

    /// The request sorted by raw SQL: `order(sql: "score DESC")`.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order(literal: SQL(sql: sql, arguments: arguments))
    }

    /// The request sorted by an SQL literal.
    public func order(literal sqlLiteral: SQL) -> Self {
        order([sqlLiteral])
    }
}

extension OrderedRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// The request sorted by what the record's columns give:
    /// `Player.all().order(\.score.desc)`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> Self {
        try order([orderings(RowDecoder.databaseComponents)])
    }

    /// The request sorted by what the record's columns give:
    /// `Player.all().order { [$0.score.desc, $0.name] }`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> Self {
        try order(orderings(RowDecoder.databaseComponents))
    }
}

// MARK: - Aggregation

/// A request that can group its rows.
public protocol AggregatingRequest {
    /// The request grouped by what `expressions` gives.
    func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self

    /// The request keeping the groups for which `predicate` is true.
    func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension AggregatingRequest {
    /// The request grouped by these expressions.
    ///
    /// ```swift
    /// // SELECT "teamId", MAX("score") FROM "player" GROUP BY "teamId"
    /// let request = Player.select(Column("teamId"), max(Column("score"))).group(Column("teamId"))
    /// ```
    public func group(_ expressions: [any SQLExpressible]) -> Self {
        let expressions = expressions.map(\.sqlExpression)
        return groupWhenConnected { _ in expressions }
    }

    /// The request grouped by these expressions.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        group(expressions)
    }

    /// The request grouped by raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group(literal: SQL(sql: sql, arguments: arguments))
    }

    /// The request grouped by an SQL literal.
    public func group(literal sqlLiteral: SQL) -> Self {
        group([sqlLiteral])
    }

    /// The request keeping the groups for which `predicate` is true.
    public func having(_ predicate: some SQLExpressible) -> Self {
        let expression = predicate.sqlExpression
        return havingWhenConnected { _ in expression }
    }

    /// The request keeping the groups for which raw SQL is true.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        having(literal: SQL(sql: sql, arguments: arguments))
    }

    /// The request keeping the groups for which an SQL literal is true.
    public func having(literal sqlLiteral: SQL) -> Self {
        having(sqlLiteral)
    }
}

extension AggregatingRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// The request grouped by what the record's columns give.
    public func group(_ expressions: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        try group([expressions(RowDecoder.databaseComponents)])
    }

    /// The request grouped by what the record's columns give.
    public func group(_ expressions: (RowDecoder.DatabaseComponents) throws -> [any SQLExpressible]) rethrows -> Self {
        try group(expressions(RowDecoder.databaseComponents))
    }

    /// The request keeping the groups for which the predicate on the
    /// record's columns is true.
    public func having(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        let expression = try predicate(RowDecoder.databaseComponents).sqlExpression
        return havingWhenConnected { _ in expression }
    }
}

// MARK: - Table

/// A request that reads a table: it can filter by key and sort by primary key.
public protocol TableRequest {
    /// The table the request reads.
    var databaseTableName: String { get }

    /// The request whose table is known by `alias`, for expressions that
    /// refer to its columns from elsewhere in the request.
    func aliased(_ alias: TableAliasBase) -> Self
}

extension TableRequest where Self: FilteredRequest, Self: TypedRequest {
    /// The request keeping the row of this primary key (single-column, or
    /// the rowid); no row for nil.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "id" = ?
    /// let request = Player.all().filter(key: 1)
    /// ```
    public func filter(key: some DatabaseValueConvertible) -> Self {
        let value = key.databaseValue
        if value.isNull { return none() }
        return filterByPrimaryKeys([value.sqlExpression])
    }

    /// The request keeping the rows of these primary keys.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "id" IN (?, ?, ?)
    /// let request = Player.all().filter(keys: [1, 2, 3])
    /// ```
    public func filter<Keys: Collection>(keys: Keys) -> Self where Keys.Element: DatabaseValueConvertible {
        let expressions = keys.map { $0.databaseValue.sqlExpression }
        if expressions.isEmpty { return none() }
        return filterByPrimaryKeys(expressions)
    }

    /// The request keeping the row with these values of a unique key (or of
    /// the primary key); no row for nil.
    ///
    /// ```swift
    /// // SELECT * FROM "player" WHERE "email" = ?
    /// let request = Player.all().filter(key: ["email": "arthur@example.com"])
    /// ```
    ///
    /// Fetching throws a ``DatabaseError`` (`SQLITE_MISUSE`) when the columns
    /// are not a unique key of the table.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> Self {
        guard let key else { return none() }
        return filter(keys: [key])
    }

    /// The request keeping the rows with these values of a unique key.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> Self {
        if keys.isEmpty { return none() }
        let keys = keys.map { $0.mapValues { $0?.databaseValue ?? .null } }
        let table = databaseTableName
        return filterWhenConnected { db in
            try keys.map { key in
                guard let columns = try db.columnsForUniqueKey(Array(key.keys), in: table) else {
                    throw DatabaseError.misuse(
                        "table \(table) has no unique key on column(s) \(key.keys.sorted().joined(separator: ", ")): a key must identify at most one row")
                }
                // The columns of the unique index first, in its order; the others after.
                let order = Dictionary(columns.enumerated().map { ($1.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
                return key.sorted { (order[$0.key.lowercased()] ?? Int.max) < (order[$1.key.lowercased()] ?? Int.max) }
                    .map { Column($0.key) == $0.value }
                    .joined(operator: .and)
            }.joined(operator: .or)
        }
    }

    /// `primaryKey IN (keys)`, the primary key read from the schema.
    private func filterByPrimaryKeys(_ keys: [SQLExpression]) -> Self {
        let table = databaseTableName
        return filterWhenConnected { db in
            SQLCollection.array(keys).contains(Column(try db.filteringPrimaryKeyColumn(table)).sqlExpression)
        }
    }
}

extension TableRequest where Self: FilteredRequest, Self: TypedRequest, RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The request keeping the record of this id (its primary key).
    public func filter(id: RowDecoder.ID) -> Self {
        filter(key: id)
    }

    /// The request keeping the records of these ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self {
        filter(keys: ids)
    }
}

extension TableRequest where Self: OrderedRequest {
    /// The request sorted by primary key (the rowid for a table without one).
    public func orderByPrimaryKey() -> Self {
        let table = databaseTableName
        return orderWhenConnected { db in try db.primaryKey(table).columns.map { Column($0) } }
    }
}

extension TableRequest where Self: AggregatingRequest {
    /// The request grouped by primary key.
    public func groupByPrimaryKey() -> Self {
        let table = databaseTableName
        return groupWhenConnected { db in
            // The rowid under its own name when it has one, as GRDB groups.
            let primaryKey = try db.primaryKey(table)
            if let rowID = primaryKey.rowIDColumn { return [Column(rowID)] }
            if primaryKey.tableHasRowID { return [Column.rowID] }
            return primaryKey.columns.map { Column($0) }
        }
    }
}

// MARK: - Derivable

/// A request that can be refined in every way: selected, filtered, sorted,
/// grouped, made distinct, given common table expressions.
///
/// ```swift
/// extension DerivableRequest<Player> {
///     func bestFirst() -> Self { order(Column("score").desc) }
///     func withTeam() -> Self { including(required: Player.team) }
/// }
/// let best = try Player.all().bestFirst().limit(10).fetchAll(db)
/// ```
public protocol DerivableRequest<RowDecoder>: AggregatingRequest, FilteredRequest, JoinableRequest, OrderedRequest, SelectionRequest,
    TableRequest, TypedRequest
{
    /// The request without duplicate rows: `SELECT DISTINCT`.
    func distinct() -> Self

    /// The request with a common table expression in its `WITH` clause.
    func with<T>(_ cte: CommonTableExpression<T>) -> Self
}
