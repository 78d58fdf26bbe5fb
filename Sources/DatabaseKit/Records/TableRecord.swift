/// A type that is stored in a database table.
///
/// ```swift
/// struct Place: TableRecord {
///     static let databaseTableName = "places"
/// }
/// try Place.fetchCount(db)
/// try Place.deleteOne(db, key: 1)
/// ```
public protocol TableRecord {
    /// The table name. By default, the type name with a lowercased first
    /// letter: `Player` is stored in "player", `HTTPRequest` in "httpRequest".
    static var databaseTableName: String { get }

    /// The columns a record selects, as `\(columnsOf: Player.self)`
    /// interpolates them. Default: all columns.
    static var databaseSelection: [any SQLSelectable] { get }

    /// The record's columns, usually an `enum Columns` of `Column`
    /// constants, found by its name.
    associatedtype Columns = Never

    /// What the closures of requests receive: `Player.filter { $0.score > 1000 }`
    /// reads `Player.Columns.score`. By default, `Columns.Type`.
    associatedtype DatabaseComponents = Columns.Type

    /// The value the closures of requests receive (``DatabaseComponents``).
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord where DatabaseComponents == Columns.Type {
    /// `Columns.self`.
    public static var databaseComponents: DatabaseComponents { Columns.self }
}

extension TableRecord {
    public static var databaseTableName: String { defaultTableName(for: String(describing: Self.self)) }

    public static var databaseSelection: [any SQLSelectable] { allColumnsSelection }
}

/// The default selection, `*`: one shared array, so that the lookups that
/// read it allocate nothing. Immutable, and its element is a value.
nonisolated(unsafe) let allColumnsSelection: [any SQLSelectable] = [AllColumns()]

/// "Player" → "player", "HTTPRequest" → "httpRequest", "URL" → "url".
func defaultTableName(for typeName: String) -> String {
    let name = typeName.split(separator: "<").first.map(String.init) ?? typeName  // generic types
    let uppercasePrefix = name.prefix { $0.isUppercase }
    switch uppercasePrefix.count {
    case 0: return name
    case 1, name.count: return uppercasePrefix.lowercased() + name.dropFirst(uppercasePrefix.count)
    default:
        // "HTTPRequest": the last capital starts the next word.
        let acronym = uppercasePrefix.dropLast()
        return acronym.lowercased() + name.dropFirst(acronym.count)
    }
}

extension TableRecord {
    /// The number of rows in the table.
    public static func fetchCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(databaseTableName.quotedDatabaseIdentifier)") ?? 0
    }

    /// Deletes every row of the table, and returns how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM \(databaseTableName.quotedDatabaseIdentifier)")
        return db.changesCount
    }

    /// Deletes the row with this primary key (a single-column key, or the
    /// rowid), and returns whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try KeyFilter(db, table: databaseTableName, primaryKeys: [key.databaseValue]).delete(db) > 0
    }

    /// Deletes the rows with these primary keys, and returns how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        try KeyFilter(db, table: databaseTableName, primaryKeys: keys.map(\.databaseValue)).delete(db)
    }

    /// Deletes the row with these values of a unique key (or of the primary
    /// key), and returns whether there was one.
    ///
    /// ```swift
    /// try Player.deleteOne(db, key: ["email": "arthur@example.com"])
    /// ```
    ///
    /// - throws: ``DatabaseError`` (SQLITE_MISUSE) when the columns are not a unique key.
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try KeyFilter(db, table: databaseTableName, uniqueKeys: [key]).delete(db) > 0
    }

    /// Deletes the rows with these unique keys, and returns how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        try KeyFilter(db, table: databaseTableName, uniqueKeys: keys).delete(db)
    }

    /// True when a row has this primary key.
    public static func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try KeyFilter(db, table: databaseTableName, primaryKeys: [key.databaseValue]).exists(db)
    }

    /// True when a row has these values of a unique key.
    public static func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try KeyFilter(db, table: databaseTableName, uniqueKeys: [key]).exists(db)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Deletes the row with this id, and returns whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool {
        try deleteOne(db, key: id)
    }

    /// Deletes the rows with these ids, and returns how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }

    /// True when a row has this id.
    public static func exists(_ db: Database, id: ID) throws -> Bool {
        try exists(db, key: id)
    }
}
