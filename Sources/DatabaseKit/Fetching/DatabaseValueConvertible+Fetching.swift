internal import DatabaseKitSQLite

// Fetching values: the first column of each row is converted. `fetchAll`,
// `fetchSet` and `fetchCursor` throw on NULL (use an Optional type to get nil);
// `fetchOne` returns nil when there is no row or the value is NULL.

extension DatabaseValueConvertible {
    /// The first column of a row, nil for NULL (unless the type decodes NULL,
    /// as `DatabaseValue` does). Written without `Self?` as a type argument:
    /// in this generic code its metadata would be looked up at each call.
    @inline(__always)
    fileprivate static func decodeOne(_ row: Row) throws -> Self? {
        let dbValue = row.databaseValue(atIndex: 0)
        if dbValue.isNull { return fromDatabaseValue(.null) }
        return try row.decode(Self.self, atIndex: 0)
    }

    @inline(__always)
    fileprivate static func decodeValue(_ row: Row) throws -> Self {
        try row.decode(Self.self, atIndex: 0)
    }

    fileprivate static func cursor(_ source: FetchSource) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: source.statement, arguments: source.arguments, adapter: source.adapter)
    }

    // MARK: From SQL

    /// A cursor over the values of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> DatabaseValueCursor<Self> {
        try cursor(FetchSource(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// All the values of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of a query; nil when there is no row or the value is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchOne(decodeOne)
    }

    // MARK: From an SQL literal

    /// A cursor over the values of an SQL literal.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws
        -> DatabaseValueCursor<Self>
    {
        try cursor(FetchSource(db, literal: sqlLiteral, adapter: adapter))
    }

    /// All the values of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of an SQL literal; nil when there is no row or the value is NULL.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Self? {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchOne(decodeOne)
    }

    // MARK: From a prepared statement

    /// A cursor over the values of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> DatabaseValueCursor<Self>
    {
        try cursor(FetchSource(statement, arguments: arguments, adapter: adapter))
    }

    /// All the values of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> [Self]
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of a prepared statement; nil when there is no row or the value is NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Self?
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchOne(decodeOne)
    }

    // MARK: From a request

    /// A cursor over the values of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValueCursor<Self> {
        try cursor(FetchSource(db, request: request).refusingPrefetch())
    }

    /// All the values of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try FetchSource(db, request: request).fetchAll(decodeValue)
    }

    /// The value of the first row of a request; nil when there is no row or the value is NULL.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try FetchSource(db, request: request, singleResult: true).fetchOne(decodeOne)
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of an SQL literal.
    public static func fetchSet(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Set<Self>
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try FetchSource(db, request: request).fetchSet(decodeValue)
    }
}

// MARK: - Fast path

// Types that read themselves from a statement column skip the intermediate
// DatabaseValue. These overloads are picked whenever the type is known to
// conform.

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// The first column of a row, nil for NULL, read straight from the
    /// statement when the row is a statement row.
    @inline(__always)
    fileprivate static func decodeOne(_ row: Row) throws -> Self? {
        if let sqliteStatement = row.sqliteStatement {
            // NULL goes through fromDatabaseValue: an Optional type decodes
            // it as `.some(nil)`, which tells NULL from no row.
            if sqlite3_column_type(sqliteStatement, 0) == SQLITE_NULL { return fromDatabaseValue(.null) }
            if let value = Self(sqliteStatement: sqliteStatement, index: 0) { return value }
        } else if row.hasNull(atIndex: 0) {
            return fromDatabaseValue(.null)
        }
        return try row.decode(Self.self, atIndex: 0)
    }

    /// The first column of the statement's current row, nil for NULL, read
    /// without building a row; only a failed conversion builds one, for its
    /// error.
    @inline(__always)
    fileprivate static func decodeOne(_ statement: Statement) throws -> Self? {
        let sqliteStatement = statement.sqliteStatement
        if sqlite3_column_type(sqliteStatement, 0) == SQLITE_NULL { return fromDatabaseValue(.null) }
        if let value = Self(sqliteStatement: sqliteStatement, index: 0) { return value }
        return try Row(statement: statement).decode(Self.self, atIndex: 0)
    }

    @inline(__always)
    fileprivate static func decodeValue(_ row: Row) throws -> Self {
        try row.decode(Self.self, atIndex: 0)
    }

    fileprivate static func cursor(_ source: FetchSource) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: source.statement, arguments: source.arguments, adapter: source.adapter)
    }

    /// A cursor over the values of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> FastDatabaseValueCursor<Self> {
        try cursor(FetchSource(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// All the values of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of a query; nil when there is no row or the value is NULL.
    @_specialize(where Self == Int)
    @_specialize(where Self == Int64)
    @_specialize(where Self == String)
    @_specialize(where Self == Double)
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        // Straight to the statement: the hottest fetch of all, where building
        // a FetchSource would copy the arguments and the adapter once more,
        // and, without an adapter, a row would be allocated for one read.
        let statement = try db.statementForFetch(sql: sql)
        if adapter == nil { return try statement.fetchOne(arguments: arguments, decodeOne) }
        return try statement.fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    /// A cursor over the values of an SQL literal.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws
        -> FastDatabaseValueCursor<Self>
    {
        try cursor(FetchSource(db, literal: sqlLiteral, adapter: adapter))
    }

    /// All the values of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of an SQL literal; nil when there is no row or the value is NULL.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Self? {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchOne(decodeOne)
    }

    /// A cursor over the values of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> FastDatabaseValueCursor<Self>
    {
        try cursor(FetchSource(statement, arguments: arguments, adapter: adapter))
    }

    /// All the values of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> [Self]
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchAll(decodeValue)
    }

    /// The value of the first row of a prepared statement; nil when there is no row or the value is NULL.
    @_specialize(where Self == Int)
    @_specialize(where Self == Int64)
    @_specialize(where Self == String)
    @_specialize(where Self == Double)
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Self?
    {
        // The path of fetchOne(_:sql:), which the statement cache of
        // `db.cachedStatement(sql:)` users must not pay more than.
        if adapter == nil { return try statement.fetchOne(arguments: arguments, decodeOne) }
        return try statement.fetchOne(arguments: arguments, adapter: adapter, decodeOne)
    }

    /// A cursor over the values of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> FastDatabaseValueCursor<Self> {
        try cursor(FetchSource(db, request: request).refusingPrefetch())
    }

    /// All the values of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try FetchSource(db, request: request).fetchAll(decodeValue)
    }

    /// The value of the first row of a request; nil when there is no row or the value is NULL.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try FetchSource(db, request: request, singleResult: true).fetchOne(decodeOne)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// The distinct values of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of an SQL literal.
    public static func fetchSet(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Set<Self>
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchSet(decodeValue)
    }

    /// The distinct values of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try FetchSource(db, request: request).fetchSet(decodeValue)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    /// A cursor over the values of the request.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first row of the request; nil when there is no row or the value is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// The distinct values of the request.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// A cursor over the values of the request.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first row of the request; nil when there is no row or the value is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// The distinct values of the request.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}
