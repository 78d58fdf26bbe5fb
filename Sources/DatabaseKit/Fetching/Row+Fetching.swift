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
        try RowCursor(statement: db.statementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the rows of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Row] {
        try db.statementForFetch(sql: sql).fetchAll(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    /// The distinct rows of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Row> {
        try db.statementForFetch(sql: sql).fetchSet(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    /// The first row of a query, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Row? {
        try db.statementForFetch(sql: sql).fetchOne(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    // MARK: From a prepared statement

    /// A cursor over the rows of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> RowCursor
    {
        try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// All the rows of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> [Row]
    {
        try statement.fetchAll(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    /// The distinct rows of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Set<Row>
    {
        try statement.fetchSet(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    /// The first row of a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Row?
    {
        try statement.fetchOne(arguments: arguments, adapter: adapter) { $0.copy() }
    }

    // MARK: From a request

    /// A cursor over the rows of a request.
    public static func fetchCursor<R>(_ db: Database, _ request: SQLRequest<R>) throws -> RowCursor {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchCursor(statement, arguments: arguments, adapter: adapter)
    }

    /// All the rows of a request.
    ///
    /// ```swift
    /// let rows = try Row.fetchAll(db, SQLRequest(literal: "SELECT * FROM player WHERE name = \(name)"))
    /// ```
    public static func fetchAll<R>(_ db: Database, _ request: SQLRequest<R>) throws -> [Row] {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchAll(statement, arguments: arguments, adapter: adapter)
    }

    /// The distinct rows of a request.
    public static func fetchSet<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Set<Row> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchSet(statement, arguments: arguments, adapter: adapter)
    }

    /// The first row of a request, if any.
    public static func fetchOne<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Row? {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchOne(statement, arguments: arguments, adapter: adapter)
    }
}

extension SQLRequest where RowDecoder == Row {
    /// A cursor over the rows of the request.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try Row.fetchCursor(db, self) }
    /// All the rows of the request.
    public func fetchAll(_ db: Database) throws -> [Row] { try Row.fetchAll(db, self) }
    /// The distinct rows of the request.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try Row.fetchSet(db, self) }
    /// The first row of the request, if any.
    public func fetchOne(_ db: Database) throws -> Row? { try Row.fetchOne(db, self) }
}
