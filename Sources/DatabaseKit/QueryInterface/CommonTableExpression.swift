/// A common table expression: a named request that other requests read
/// as a table, through a `WITH` clause.
///
/// ```swift
/// let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
/// // WITH "bestScore" AS (SELECT MAX("score") FROM "player")
/// // SELECT * FROM "player" WHERE "score" = (SELECT * FROM "bestScore")
/// let request = Player.with(bestScore).filter(Column("score") == bestScore.all())
/// ```
public struct CommonTableExpression<RowDecoder>: Sendable {
    let cte: SQLCTE

    /// The name of the table the expression defines.
    public var tableName: String { cte.tableName }

    private init(recursive: Bool, named tableName: String, columns: [String]?, subquery: SQLSubquery) {
        cte = SQLCTE(tableName: tableName, columns: columns, subquery: subquery, isRecursive: recursive)
    }

    /// A common table expression of a request.
    ///
    /// - parameters:
    ///   - recursive: Whether the request refers to the expression itself.
    ///   - tableName: The name of the table the expression defines.
    ///   - columns: The names of its columns, if the request's are not the ones.
    ///   - request: The request.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// A common table expression of raw SQL.
    public init(
        recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = StatementArguments()
    ) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(SQL(sql: sql, arguments: arguments)))
    }

    /// A common table expression of an SQL literal.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(sqlLiteral))
    }

    /// A request of all the rows of the expression: `SELECT * FROM "name"`.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(relation: SQLRelation(source: tableName))
    }

    /// `element IN "name"`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLExpression(.inCollection(element.sqlExpression, .table(tableName), negated: false))
    }
}

extension CommonTableExpression<Row> {
    /// A common table expression of a request, fetching rows.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// A common table expression of raw SQL, fetching rows.
    public init(
        recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = StatementArguments()
    ) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(SQL(sql: sql, arguments: arguments)))
    }

    /// A common table expression of an SQL literal, fetching rows.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(sqlLiteral))
    }
}

extension SQLInterpolation {
    /// The expression's table name: `SELECT * FROM \(cte)`.
    public mutating func appendInterpolation(_ cte: CommonTableExpression<some Any>) {
        appendLiteral(cte.tableName.quotedDatabaseIdentifier)
    }

    /// The expression's definition: `WITH \(definitionFor: cte) SELECT * FROM \(cte)`.
    public mutating func appendInterpolation(definitionFor cte: CommonTableExpression<some Any>) {
        var definition = cte.tableName.quotedDatabaseIdentifier
        if let columns = cte.cte.columns, !columns.isEmpty {
            definition += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        appendLiteral(definition + " AS (")
        elements.append(.subquery(cte.cte.subquery))
        appendLiteral(")")
    }
}
