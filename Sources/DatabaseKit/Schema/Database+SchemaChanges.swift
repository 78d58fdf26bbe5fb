// The table-definition calls: each builds SQL with quoted identifiers and runs
// it, so that a failure names the statement. A definition of several
// statements (a table and its indexes, several alterations) runs inside a
// savepoint: it applies completely or not at all.

extension Database {
    /// Creates a table.
    ///
    /// ```swift
    /// try db.create(table: "place") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("title", .text).notNull()
    ///     t.column("favorite", .boolean).notNull().defaults(to: false)
    ///     t.column("latitude", .double).notNull()
    ///     t.column("longitude", .double).notNull()
    /// }
    /// ```
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let definition = TableDefinition(name: name)
        try body(definition)
        try executeAtomically(definition.statements(self, options: options))
    }

    /// Changes a table: adds, renames or drops columns.
    public func alter(table name: String, body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(name: name)
        try body(alteration)
        try executeAtomically(alteration.statements(self))
    }

    /// Renames a table.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME TO \(newName.quotedDatabaseIdentifier)")
    }

    /// Drops a table.
    public func drop(table name: String) throws {
        try execute(sql: "DROP TABLE \(name.quotedDatabaseIdentifier)")
    }

    /// Drops a view.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW \(name.quotedDatabaseIdentifier)")
    }

    /// Drops an index.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
    }

    /// Creates a table (the older form of ``create(table:options:body:)``).
    public func create(
        table name: String, temporary: Bool = false, ifNotExists: Bool = false, withoutRowID: Bool = false,
        body: (TableDefinition) throws -> Void
    ) throws {
        var options: TableOptions = []
        if temporary { options.insert(.temporary) }
        if ifNotExists { options.insert(.ifNotExists) }
        if withoutRowID { options.insert(.withoutRowID) }
        try create(table: name, options: options, body: body)
    }

    /// Creates a view from a request:
    ///
    /// ```swift
    /// try db.create(view: "hero", as: SQLRequest(literal: "SELECT * FROM player WHERE isHero"))
    /// ```
    ///
    /// Interpolated values are written in the view's SQL as literals.
    ///
    /// - parameters:
    ///   - name: The view's name.
    ///   - options: `CREATE TEMPORARY VIEW`, `IF NOT EXISTS`.
    ///   - columns: The names of the view's columns, when they differ from
    ///     the request's.
    ///   - request: What the view selects.
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: some SQLSubqueryable)
        throws
    {
        let context = SQLGenerationContext(self, rawSQL: true)
        try createView(name, options: options, columns: columns, selectSQL: request.sqlSubquery.sql(context))
    }

    /// Creates a view from an SQL literal:
    ///
    /// ```swift
    /// try db.create(view: "hero", asLiteral: "SELECT * FROM player WHERE isHero")
    /// ```
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sqlLiteral: SQL)
        throws
    {
        try createView(name, options: options, columns: columns, selectSQL: rawSQL(sqlLiteral, self))
    }

    private func createView(_ name: String, options: ViewOptions, columns: [String]?, selectSQL: String) throws {
        var sql = "CREATE "
        if options.contains(.temporary) { sql += "TEMPORARY " }
        sql += "VIEW "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += name.quotedDatabaseIdentifier
        if let columns { sql += "(" + TableDefinition.columnList(columns) + ")" }
        sql += " AS " + selectSQL
        try execute(sql: sql)
    }

    /// Creates an index.
    ///
    /// ```swift
    /// try db.create(index: "player_on_email", on: "player", columns: ["email"], options: .unique)
    /// ```
    ///
    /// - parameters:
    ///   - name: The index's name.
    ///   - table: The indexed table.
    ///   - columns: The indexed columns.
    ///   - options: `UNIQUE`, `IF NOT EXISTS`.
    ///   - condition: The condition of a partial index, such as
    ///     `SQL("email IS NOT NULL")`. A Swift string is a value, not SQL.
    public func create(
        index name: String, on table: String, columns: [String], options: IndexOptions = [],
        condition: (any SQLExpressible)? = nil
    ) throws {
        try execute(
            sql: createIndexSQL(
                name, on: table, columns: columns, options: options, condition: condition.map { try conditionSQL($0) }))
    }

    /// Creates an index (the older form of ``create(index:on:columns:options:condition:)``).
    public func create(
        index name: String, on table: String, columns: [String], unique: Bool = false, ifNotExists: Bool = false,
        condition: (any SQLExpressible)? = nil
    ) throws {
        var options: IndexOptions = []
        if unique { options.insert(.unique) }
        if ifNotExists { options.insert(.ifNotExists) }
        try create(index: name, on: table, columns: columns, options: options, condition: condition)
    }

    /// Creates an index on expressions, such as `SQL("lower(name)")`.
    public func create(
        index name: String, on table: String, expressions: [any SQLExpressible], options: IndexOptions = [],
        condition: (any SQLExpressible)? = nil
    ) throws {
        let context = SQLGenerationContext(self, rawSQL: true)
        let terms = try expressions.map { try $0.sqlExpression.sql(context) }
        var sql = "CREATE "
        if options.contains(.unique) { sql += "UNIQUE " }
        sql += "INDEX "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += "\(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)(\(terms.joined(separator: ", ")))"
        if let condition { sql += try " WHERE " + conditionSQL(condition) }
        try execute(sql: sql)
    }

    /// Creates an index named `index_<table>_on_<columns>`.
    public func create(
        indexOn table: String, columns: [String], options: IndexOptions = [], condition: (any SQLExpressible)? = nil
    ) throws {
        try create(
            index: Self.defaultIndexName(on: table, columns: columns), on: table, columns: columns, options: options,
            condition: condition)
    }

    /// Drops the index created by ``create(indexOn:columns:options:condition:)``.
    public func drop(indexOn table: String, columns: [String]) throws {
        try drop(index: Self.defaultIndexName(on: table, columns: columns))
    }

    /// Rebuilds the indexes that use a collation (`REINDEX`), after its
    /// definition changed.
    public func reindex(collation: Database.CollationName) throws {
        try execute(sql: "REINDEX \(collation.rawValue)")
    }

    /// Rebuilds the indexes that use a custom collation.
    public func reindex(collation: DatabaseCollation) throws {
        try reindex(collation: Database.CollationName(rawValue: collation.name))
    }

    private func conditionSQL(_ condition: any SQLExpressible) throws -> String {
        try condition.sqlExpression.sql(SQLGenerationContext(self, rawSQL: true))
    }

    /// The name of ``create(indexOn:columns:options:condition:)`` indexes.
    static func defaultIndexName(on table: String, columns: [String]) -> String {
        "index_\(table)_on_\(columns.joined(separator: "_"))"
    }

    private func executeAtomically(_ statements: [String]) throws {
        if statements.count == 1 {
            try execute(sql: statements[0])
            return
        }
        try inSavepoint {
            for sql in statements { try execute(sql: sql) }
            return .commit
        }
    }
}

/// Options of ``Database/create(view:options:columns:as:)``.
public struct ViewOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: no error when the view exists.
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)
    /// A `TEMPORARY` view, gone when the connection closes.
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}
