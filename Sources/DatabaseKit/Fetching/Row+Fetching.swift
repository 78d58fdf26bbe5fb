// Fetching rows from SQL, SQL literals, prepared statements and requests.
// Rows of a cursor are reused as it moves; rows of fetchAll, fetchSet and
// fetchOne are copies.

extension Row {
    // MARK: From SQL

    /// A cursor over the rows of a query.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [100])
    /// while let row = try rows.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> RowCursor {
        try cursor(FetchSource(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// All the rows of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Row] {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchAll { $0.copy() }
    }

    /// The distinct rows of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Row> {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchSet { $0.copy() }
    }

    /// The first row of a query, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Row? {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchOne { $0.copy() }
    }

    // MARK: From an SQL literal

    /// A cursor over the rows of an SQL literal: `"SELECT * FROM player WHERE id = \(id)"`.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> RowCursor {
        try cursor(FetchSource(db, literal: sqlLiteral, adapter: adapter))
    }

    /// All the rows of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> [Row] {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchAll { $0.copy() }
    }

    /// The distinct rows of an SQL literal.
    public static func fetchSet(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Set<Row> {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchSet { $0.copy() }
    }

    /// The first row of an SQL literal, if any.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Row? {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchOne { $0.copy() }
    }

    // MARK: From a prepared statement

    /// A cursor over the rows of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> RowCursor
    {
        try cursor(FetchSource(statement, arguments: arguments, adapter: adapter))
    }

    /// All the rows of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> [Row]
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchAll { $0.copy() }
    }

    /// The distinct rows of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Set<Row>
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchSet { $0.copy() }
    }

    /// The first row of a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Row?
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchOne { $0.copy() }
    }

    // MARK: From a request

    /// A cursor over the rows of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RowCursor {
        try cursor(FetchSource(db, request: request).refusingPrefetch())
    }

    /// All the rows of a request.
    ///
    /// ```swift
    /// let rows = try Row.fetchAll(db, SQLRequest(literal: "SELECT * FROM player WHERE name = \(name)"))
    /// ```
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Row] {
        try FetchSource(db, request: request).fetchAll { $0.copy() }
    }

    /// The distinct rows of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Row> {
        try FetchSource(db, request: request).fetchSet { $0.copy() }
    }

    /// The first row of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Row? {
        try FetchSource(db, request: request, singleResult: true).fetchOne { $0.copy() }
    }

    private static func cursor(_ source: FetchSource) throws -> RowCursor {
        try RowCursor(statement: source.statement, arguments: source.arguments, adapter: source.adapter)
    }
}

extension FetchRequest where RowDecoder == Row {
    /// A cursor over the rows of the request.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try Row.fetchCursor(db, self) }
    /// All the rows of the request.
    public func fetchAll(_ db: Database) throws -> [Row] { try Row.fetchAll(db, self) }
    /// The distinct rows of the request.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try Row.fetchSet(db, self) }
    /// The first row of the request, if any.
    public func fetchOne(_ db: Database) throws -> Row? { try Row.fetchOne(db, self) }
}
