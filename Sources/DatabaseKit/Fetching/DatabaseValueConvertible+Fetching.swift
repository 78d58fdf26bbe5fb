internal import DatabaseKitSQLite

// Fetching values: the first column of each row is converted. `fetchAll`,
// `fetchSet` and `fetchCursor` throw on NULL (use an Optional type to get nil);
// `fetchOne` returns nil when there is no row or the value is NULL.

extension DatabaseValueConvertible {
    /// The first column of the first row, nil when absent or NULL.
    @inline(__always)
    fileprivate static func decodeOne(_ row: Row) throws -> Self? {
        let dbValue = row.databaseValue(atIndex: 0)
        if dbValue.isNull { return fromDatabaseValue(.null) }
        return try row.decode(Self.self, atIndex: 0)
    }

    // MARK: From SQL

    /// A cursor over the values of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws
        -> DatabaseValueCursor<Self>
    {
        try DatabaseValueCursor(statement: db.statementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the values of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try db.statementForFetch(sql: sql).fetchAll(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The value of the first row of a query; nil when there is no row or the value is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try db.statementForFetch(sql: sql).fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    // MARK: From a prepared statement

    /// A cursor over the values of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> DatabaseValueCursor<Self>
    {
        try DatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// All the values of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> [Self]
    {
        try statement.fetchAll(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The value of the first row of a prepared statement; nil when there is no row or the value is NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Self?
    {
        try statement.fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    // MARK: From a request

    /// A cursor over the values of a request.
    public static func fetchCursor<R>(_ db: Database, _ request: SQLRequest<R>) throws -> DatabaseValueCursor<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchCursor(statement, arguments: arguments, adapter: adapter)
    }

    /// All the values of a request.
    public static func fetchAll<R>(_ db: Database, _ request: SQLRequest<R>) throws -> [Self] {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchAll(statement, arguments: arguments, adapter: adapter)
    }

    /// The value of the first row of a request; nil when there is no row or the value is NULL.
    public static func fetchOne<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Self? {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchOne(statement, arguments: arguments, adapter: adapter)
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try db.statementForFetch(sql: sql).fetchSet(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The distinct values of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Set<Self>
    {
        try statement.fetchSet(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The distinct values of a request.
    public static func fetchSet<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Set<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchSet(statement, arguments: arguments, adapter: adapter)
    }
}

// MARK: - Fast path

// Types that read themselves from a statement column skip the intermediate
// DatabaseValue. These overloads are picked whenever the type is known to
// conform.

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    @inline(__always)
    fileprivate static func decodeOne(_ row: Row) throws -> Self? {
        if let sqliteStatement = row.sqliteStatement {
            if let value = Self(sqliteStatement: sqliteStatement, index: 0) { return value }
            if sqlite3_column_type(sqliteStatement, 0) == SQLITE_NULL { return nil }
        }
        let dbValue = row.databaseValue(atIndex: 0)
        if dbValue.isNull { return fromDatabaseValue(.null) }
        return try row.decode(Self.self, atIndex: 0)
    }

    /// A cursor over the values of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws
        -> FastDatabaseValueCursor<Self>
    {
        try FastDatabaseValueCursor(statement: db.statementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the values of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try db.statementForFetch(sql: sql).fetchAll(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The value of the first row of a query; nil when there is no row or the value is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try db.statementForFetch(sql: sql).fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    /// A cursor over the values of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> FastDatabaseValueCursor<Self>
    {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// All the values of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> [Self]
    {
        try statement.fetchAll(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The value of the first row of a prepared statement; nil when there is no row or the value is NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Self?
    {
        try statement.fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    /// A cursor over the values of a request.
    public static func fetchCursor<R>(_ db: Database, _ request: SQLRequest<R>) throws -> FastDatabaseValueCursor<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchCursor(statement, arguments: arguments, adapter: adapter)
    }

    /// All the values of a request.
    public static func fetchAll<R>(_ db: Database, _ request: SQLRequest<R>) throws -> [Self] {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchAll(statement, arguments: arguments, adapter: adapter)
    }

    /// The value of the first row of a request; nil when there is no row or the value is NULL.
    public static func fetchOne<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Self? {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchOne(statement, arguments: arguments, adapter: adapter)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// The distinct values of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try db.statementForFetch(sql: sql).fetchSet(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The distinct values of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws
        -> Set<Self>
    {
        try statement.fetchSet(arguments: arguments, adapter: adapter) { try $0.decode(Self.self, atIndex: 0) }
    }

    /// The distinct values of a request.
    public static func fetchSet<R>(_ db: Database, _ request: SQLRequest<R>) throws -> Set<Self> {
        let (statement, arguments, adapter) = try request.makeStatement(db)
        return try fetchSet(statement, arguments: arguments, adapter: adapter)
    }
}

extension SQLRequest where RowDecoder: DatabaseValueConvertible {
    /// A cursor over the values of the request.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first row of the request; nil when there is no row or the value is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension SQLRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// A cursor over the values of the request.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first row of the request; nil when there is no row or the value is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}
