import FoundationEssentials

/// A request built from SQL, that fetches rows, values, or records.
///
/// ```swift
/// let request: SQLRequest<Player> = "SELECT * FROM player WHERE id = \(id)"
/// let player = try request.fetchOne(db)
/// let names = try SQLRequest<String>(literal: "SELECT name FROM player").fetchAll(db)
/// let rows = try SQLRequest(sql: "SELECT * FROM player").fetchAll(db)  // a SQLRequest<Row>
/// ```
public struct SQLRequest<RowDecoder>: Sendable {
    /// The SQL and its arguments.
    public private(set) var sqlLiteral: SQL

    /// The adapter applied to the fetched rows, if any.
    public var adapter: (any RowAdapter)?

    /// True for a request whose statement comes from the public statement cache.
    let isCached: Bool

    private init(literal sqlLiteral: SQL, adapter: (any RowAdapter)?, cached: Bool, type: RowDecoder.Type) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
        self.isCached = cached
    }

    /// The request with an adapter.
    public func adapted(_ adapter: some RowAdapter) -> SQLRequest {
        var request = self
        request.adapter = adapter
        return request
    }
}

extension SQLRequest {
    /// A request from raw SQL and arguments.
    ///
    /// - parameters:
    ///   - sql: The SQL of the request.
    ///   - arguments: Its arguments.
    ///   - adapter: An adapter of the fetched rows, if any.
    ///   - cached: If true, the statement is kept in the connection's
    ///     statement cache (see ``Database/cachedStatement(sql:)``).
    public init(
        sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
        cached: Bool = false
    ) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached, type: RowDecoder.self)
    }

    /// A request from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(literal: sqlLiteral, adapter: adapter, cached: cached, type: RowDecoder.self)
    }
}

extension SQLRequest<Row> {
    /// A request of rows from raw SQL: `SQLRequest(sql: ...)` fetches rows.
    public init(
        sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
        cached: Bool = false
    ) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached, type: Row.self)
    }

    /// A request of rows from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(literal: sqlLiteral, adapter: adapter, cached: cached, type: Row.self)
    }
}

extension SQLRequest: FetchRequest {
    public var sqlSubquery: SQLSubquery { .literal(sqlLiteral) }

    /// The number of rows the request fetches: `SELECT COUNT(*) FROM (...)`.
    public func fetchCount(_ db: Database) throws -> Int {
        try SQLRequest<Int>(literal: "SELECT COUNT(*) FROM (\(self))").fetchOne(db) ?? 0
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        let (sql, arguments) = try sqlLiteral.build(db)
        // The statement is handed out: one the application may keep and
        // change must not be shared with the cache unless it asked for it.
        let statement = isCached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return PreparedRequest(statement: statement, adapter: adapter)
    }

    /// The statement, its arguments and the adapter, for the fetch methods:
    /// the arguments are bound by the fetch itself. The statement never
    /// leaves the fetch, so an uncached request reuses the statement of the
    /// `sql:` fetches rather than compiling its SQL again.
    func makeFetch(_ db: Database) throws -> (Statement, StatementArguments, (any RowAdapter)?) {
        let (sql, arguments) = try sqlLiteral.build(db)
        let statement = isCached ? try db.cachedStatement(sql: sql) : try db.reusableStatement(sql: sql)
        return (statement, arguments, adapter)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(unicodeScalarLiteral value: String) {
        self.init(sql: value)
    }

    public init(extendedGraphemeClusterLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: SQLInterpolation) {
        self.init(literal: SQL(stringInterpolation: stringInterpolation))
    }
}
