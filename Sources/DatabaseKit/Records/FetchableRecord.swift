/// A type that can be initialized from a database row.
///
/// ```swift
/// struct Player: FetchableRecord {
///     var id: Int64
///     var name: String
///     init(row: Row) {
///         id = row["id"]
///         name = row["name"]
///     }
/// }
/// let players = try Player.fetchAll(db, sql: "SELECT * FROM player")
/// ```
///
/// `Decodable` records get `init(row:)` for free: their coding keys are column
/// names.
public protocol FetchableRecord {
    /// Creates a record from a row. The row may be reused by a cursor: copy it
    /// (`row.copy()`) if the record keeps it.
    init(row: Row) throws
}

extension FetchableRecord {
    // MARK: From SQL

    /// A cursor over the records of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws
        -> RecordCursor<Self>
    {
        try RecordCursor(statement: db.statementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the records of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try db.statementForFetch(sql: sql).fetchAll(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    /// The record of the first row of a query, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try db.statementForFetch(sql: sql).fetchOne(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    // MARK: From a prepared statement

    /// A cursor over the records of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> RecordCursor<Self>
    {
        try RecordCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// All the records of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> [Self]
    {
        try statement.fetchAll(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    /// The record of the first row of a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Self?
    {
        try statement.fetchOne(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    // MARK: From a request

    /// A cursor over the records of a request.
    public static func fetchCursor<R>(_ db: Database, _ request: SQLRequest<R>) throws -> RecordCursor<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchCursor(statement, arguments: arguments, adapter: adapter)
    }

    /// All the records of a request.
    public static func fetchAll<R>(_ db: Database, _ request: SQLRequest<R>) throws -> [Self] {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchAll(statement, arguments: arguments, adapter: adapter)
    }

    /// The record of the first row of a request, if any.
    public static func fetchOne<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Self? {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchOne(statement, arguments: arguments, adapter: adapter)
    }
}

extension FetchableRecord where Self: Hashable {
    /// The distinct records of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try db.statementForFetch(sql: sql).fetchSet(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    /// The distinct records of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Set<Self>
    {
        try statement.fetchSet(arguments: arguments, adapter: adapter, Self.init(row:))
    }

    /// The distinct records of a request.
    public static func fetchSet<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Set<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchSet(statement, arguments: arguments, adapter: adapter)
    }
}

extension SQLRequest where RowDecoder: FetchableRecord {
    /// A cursor over the records of the request.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the records of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The record of the first row of the request, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}
