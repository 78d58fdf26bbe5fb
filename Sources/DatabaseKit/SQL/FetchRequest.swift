import FoundationEssentials

/// The SQL of a request, for ``SQLSubqueryable`` values: raw SQL, or a
/// query interface request, built when the enclosing SQL is.
public struct SQLSubquery: Sendable {
    enum Impl: Sendable {
        case literal(SQL)
        case relation(SQLRelation)
    }

    let impl: Impl

    /// A subquery from an SQL literal.
    static func literal(_ sqlLiteral: SQL) -> SQLSubquery { SQLSubquery(impl: .literal(sqlLiteral)) }

    /// A subquery from a query interface request.
    static func relation(_ relation: SQLRelation) -> SQLSubquery { SQLSubquery(impl: .relation(relation)) }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .literal(let sqlLiteral): try sqlLiteral.sql(context)
        case .relation(let relation): try SQLQueryGenerator(relation).selectSQL(context)
        }
    }
}

/// A type that can be used as a subquery: requests.
public protocol SQLSubqueryable: SQLSpecificExpressible {
    /// The SQL of the request.
    var sqlSubquery: SQLSubquery { get }
}

extension SQLSubqueryable {
    /// The subquery between parentheses, as an expression.
    public var sqlExpression: SQLExpression { SQLExpression(.subquery(sqlSubquery)) }

    /// `EXISTS (subquery)`.
    ///
    /// ```swift
    /// let request = Player.filter(Player.all().exists())
    /// ```
    public func exists() -> SQLExpression { SQLExpression(.exists(sqlSubquery, negated: false)) }

    /// `element IN (subquery)`.
    ///
    /// ```swift
    /// let bestIDs = Player.select(Column("id")).filter(Column("score") > 1000)
    /// let awards = try Award.filter(bestIDs.contains(Column("playerId"))).fetchAll(db)
    /// ```
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLCollection.subquery(sqlSubquery).contains(element.sqlExpression)
    }
}

/// A request that fetches rows, values or records of a type.
///
/// ```swift
/// func fetchPlayers(_ db: Database, _ request: some FetchRequest<Player>) throws -> [Player] {
///     try request.fetchAll(db)
/// }
/// try fetchPlayers(db, SQLRequest(sql: "SELECT * FROM player"))
/// ```
public protocol FetchRequest<RowDecoder>: SQLSubqueryable, DatabaseRegionConvertible {
    /// The type of what the request fetches: `Row`, a value, or a record.
    associatedtype RowDecoder

    /// The compiled statement and the adapter of the fetched rows.
    ///
    /// - parameters:
    ///   - db: A connection.
    ///   - singleResult: A hint that only one row is needed.
    func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest

    /// The number of rows the request fetches.
    func fetchCount(_ db: Database) throws -> Int

    /// The statement of a fetch, the arguments the fetch binds, and the
    /// adapter; nil to fetch from ``makePreparedRequest(_:forSingleResult:)``.
    /// DatabaseKit's own requests use it to fetch without a dynamic cast;
    /// other requests keep the default.
    func _fetchParts(_ db: Database, singleResult: Bool) throws -> _FetchParts?
}

extension FetchRequest {
    /// nil: the fetch prepares the request.
    public func _fetchParts(_ db: Database, singleResult: Bool) throws -> _FetchParts? { nil }
}

/// What a fetch of a request runs (see ``FetchRequest/_fetchParts(_:singleResult:)``).
public struct _FetchParts {
    let statement: Statement
    let arguments: StatementArguments?
    let adapter: (any RowAdapter)?
    /// Fetches the rows of `including(all:)` associations for the fetched
    /// rows; nil for the requests that have none.
    var prefetch: ((Database, [Row]) throws -> Void)?

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)?, prefetch: ((Database, [Row]) throws -> Void)? = nil) {
        self.statement = statement
        self.arguments = arguments
        self.adapter = adapter
        self.prefetch = prefetch
    }
}

extension FetchRequest {
    /// The tables and columns the request reads.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
    }
}

/// A request compiled for a connection: a statement with its arguments set,
/// and the adapter of its rows.
public struct PreparedRequest {
    /// The statement, with its arguments.
    public var statement: Statement

    /// The adapter of the fetched rows, if any.
    public var adapter: (any RowAdapter)?

    /// A prepared request.
    public init(statement: Statement, adapter: (any RowAdapter)? = nil) {
        self.statement = statement
        self.adapter = adapter
    }
}

@available(*, unavailable, message: "A prepared request holds a statement, confined to its database access block")
extension PreparedRequest: Sendable {}

extension FetchRequest {
    /// The request, with an adapter applied to its rows (after its own
    /// adapter, if any).
    ///
    /// ```swift
    /// let request = SQLRequest<Row>(sql: "SELECT ...").adapted { db in SuffixRowAdapter(fromIndex: 2) }
    /// ```
    public func adapted(_ adapter: @escaping @Sendable (Database) throws -> any RowAdapter) -> AdaptedFetchRequest<Self> {
        AdaptedFetchRequest(base: self, adapter: adapter)
    }
}

/// A request whose rows are adapted; see ``FetchRequest/adapted(_:)``.
public struct AdaptedFetchRequest<Base: FetchRequest>: FetchRequest {
    public typealias RowDecoder = Base.RowDecoder

    let base: Base
    let adapter: @Sendable (Database) throws -> any RowAdapter

    public var sqlSubquery: SQLSubquery { base.sqlSubquery }

    public func fetchCount(_ db: Database) throws -> Int {
        try base.fetchCount(db)
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        var prepared = try base.makePreparedRequest(db, forSingleResult: singleResult)
        let adapter = try self.adapter(db)
        prepared.adapter = prepared.adapter.map { ChainedAdapter(first: $0, second: adapter) } ?? adapter
        return prepared
    }
}

/// A type-erased request.
public struct AnyFetchRequest<RowDecoder>: FetchRequest {
    private let subquery: @Sendable () -> SQLSubquery
    private let count: @Sendable (Database) throws -> Int
    private let prepare: @Sendable (Database, Bool) throws -> PreparedRequest

    /// Erases the type of a request (requests are Sendable, as
    /// ``DatabaseRegionConvertible`` values).
    public init(_ request: some FetchRequest<RowDecoder>) {
        subquery = { request.sqlSubquery }
        count = { try request.fetchCount($0) }
        prepare = { try request.makePreparedRequest($0, forSingleResult: $1) }
    }

    private init(subquery: @escaping @Sendable () -> SQLSubquery, count: @escaping @Sendable (Database) throws -> Int,
        prepare: @escaping @Sendable (Database, Bool) throws -> PreparedRequest)
    {
        self.subquery = subquery
        self.count = count
        self.prepare = prepare
    }

    /// The same request, fetching another type.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest<T>(subquery: subquery, count: count, prepare: prepare)
    }

    public var sqlSubquery: SQLSubquery { subquery() }

    public func fetchCount(_ db: Database) throws -> Int { try count(db) }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        try prepare(db, singleResult)
    }
}
