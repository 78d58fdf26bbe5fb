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
        try executeAtomically(definition.statements(options: options))
    }

    /// Changes a table: adds, renames or drops columns.
    public func alter(table name: String, body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(name: name)
        try body(alteration)
        try executeAtomically(alteration.statements)
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

    /// Creates an index.
    ///
    /// ```swift
    /// try db.create(index: "player_on_email", on: "player", columns: ["email"], options: .unique)
    /// ```
    ///
    /// - parameter condition: The SQL of a `WHERE` clause, for a partial index.
    public func create(
        index name: String, on table: String, columns: [String], options: IndexOptions = [], condition: String? = nil
    ) throws {
        try execute(sql: createIndexSQL(name, on: table, columns: columns, options: options, condition: condition))
    }

    /// Creates an index named `index_<table>_on_<columns>`.
    public func create(indexOn table: String, columns: [String], options: IndexOptions = [], condition: String? = nil)
        throws
    {
        try create(
            index: Self.defaultIndexName(on: table, columns: columns), on: table, columns: columns, options: options,
            condition: condition)
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
