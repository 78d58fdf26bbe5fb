import FoundationEssentials

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

    /// Contextual information given to `Decodable.init(from:)`. Default: empty.
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The decoder of the JSON columns (nested `Decodable` values). Default:
    /// base64 data, dates in milliseconds since 1970, and an error for
    /// NaN and infinite floats.
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// How `Data` properties are decoded. Default: ``DatabaseDataDecodingStrategy/deferredToData``.
    static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy

    /// How `Date` properties are decoded. Default: ``DatabaseDateDecodingStrategy/deferredToDate``.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy

    /// How columns map to coding keys. Default: ``DatabaseColumnDecodingStrategy/useDefaultKeys``.
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { get }
}

extension FetchableRecord {
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        decoder.userInfo = codingUserInfo(databaseDecodingUserInfo)
        return decoder
    }

    public static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy { .deferredToData }

    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .deferredToDate }

    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .useDefaultKeys }
}

extension FetchableRecord {
    fileprivate static func cursor(_ source: FetchSource) throws -> RecordCursor<Self> {
        try RecordCursor(statement: source.statement, arguments: source.arguments, adapter: source.adapter)
    }

    // MARK: From SQL

    /// A cursor over the records of a query.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> RecordCursor<Self> {
        try cursor(FetchSource(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// All the records of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchAll(Self.init(row:))
    }

    /// The record of the first row of a query, if any.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchOne(Self.init(row:))
    }

    // MARK: From an SQL literal

    /// A cursor over the records of an SQL literal.
    public static func fetchCursor(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws
        -> RecordCursor<Self>
    {
        try cursor(FetchSource(db, literal: sqlLiteral, adapter: adapter))
    }

    /// All the records of an SQL literal.
    public static func fetchAll(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchAll(Self.init(row:))
    }

    /// The record of the first row of an SQL literal, if any.
    public static func fetchOne(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Self? {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchOne(Self.init(row:))
    }

    // MARK: From a prepared statement

    /// A cursor over the records of a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> RecordCursor<Self>
    {
        try cursor(FetchSource(statement, arguments: arguments, adapter: adapter))
    }

    /// All the records of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> [Self]
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchAll(Self.init(row:))
    }

    /// The record of the first row of a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Self?
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchOne(Self.init(row:))
    }

    // MARK: From a request

    /// A cursor over the records of a request.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RecordCursor<Self> {
        try cursor(FetchSource(db, request: request).refusingPrefetch())
    }

    /// All the records of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try FetchSource(db, request: request).fetchAll(Self.init(row:))
    }

    /// The record of the first row of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try FetchSource(db, request: request, singleResult: true).fetchOne(Self.init(row:))
    }
}

extension FetchableRecord where Self: Hashable {
    /// The distinct records of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try FetchSource(db, sql: sql, arguments: arguments, adapter: adapter).fetchSet(Self.init(row:))
    }

    /// The distinct records of an SQL literal.
    public static func fetchSet(_ db: Database, literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try FetchSource(db, literal: sqlLiteral, adapter: adapter).fetchSet(Self.init(row:))
    }

    /// The distinct records of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil)
        throws -> Set<Self>
    {
        try FetchSource(statement, arguments: arguments, adapter: adapter).fetchSet(Self.init(row:))
    }

    /// The distinct records of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try FetchSource(db, request: request).fetchSet(Self.init(row:))
    }
}

extension FetchRequest where RowDecoder: FetchableRecord {
    /// A cursor over the records of the request.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the records of the request.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The record of the first row of the request, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    /// The distinct records of the request.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}
