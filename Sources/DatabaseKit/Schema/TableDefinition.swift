/// The columns and constraints of a table being created; see
/// ``Database/create(table:options:body:)``.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
///     t.column("score", .integer).notNull().defaults(to: 0)
/// }
/// ```
public final class TableDefinition {
    let name: String
    private var columns: [ColumnDefinition] = []
    private var columnSQL: [String] = []  // in declaration order, with `columns`
    private var tableConstraints: [String] = []

    init(name: String) {
        self.name = name
    }

    /// Adds an `INTEGER PRIMARY KEY AUTOINCREMENT` column: an alias of the
    /// rowid whose values are never reused.
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict: Database.ConflictResolution? = nil) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: onConflict, autoincrement: true)
    }

    /// Adds a primary key column: `t.primaryKey("uuid", .text)`.
    @discardableResult
    public func primaryKey(_ name: String, _ type: Database.ColumnType, onConflict: Database.ConflictResolution? = nil)
        -> ColumnDefinition
    {
        column(name, type).primaryKey(onConflict: onConflict)
    }

    /// Adds a primary key on several columns, declared with ``column(_:_:)``.
    public func primaryKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        tableConstraints.append(
            "PRIMARY KEY (\(Self.columnList(columns)))" + ColumnDefinition.onConflictClause(onConflict))
    }

    /// Adds a column, with a type or without (then any value goes, with no affinity).
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        columns.append(column)
        columnSQL.append("")  // rendered from `column` when the table is created
        return column
    }

    /// Adds a column written in SQL: `t.column(sql: "name TEXT NOT NULL")`.
    public func column(sql: String) {
        columnSQL.append(sql)
    }

    /// Adds a `UNIQUE` constraint on several columns.
    public func uniqueKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        tableConstraints.append("UNIQUE (\(Self.columnList(columns)))" + ColumnDefinition.onConflictClause(onConflict))
    }

    /// Adds a foreign key on several columns, to `destinationColumns` of
    /// `table` or to its primary key when nil.
    public func foreignKey(
        _ columns: [String], references table: String, columns destinationColumns: [String]? = nil,
        onDelete: Database.ForeignKeyAction? = nil, onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) {
        tableConstraints.append(
            "FOREIGN KEY (\(Self.columnList(columns))) "
                + foreignKeyClause(
                    table: table, columns: destinationColumns, onDelete: onDelete, onUpdate: onUpdate,
                    deferred: deferred))
    }

    /// Adds a table `CHECK` constraint: `t.check(sql: "start <= stop")`.
    public func check(sql: String) {
        tableConstraints.append("CHECK (\(sql))")
    }

    /// Adds a table constraint written in SQL.
    public func constraint(sql: String) {
        tableConstraints.append(sql)
    }

    /// The `CREATE TABLE` statement, then the `CREATE INDEX` statements of
    /// the ``ColumnDefinition/indexed()`` columns.
    func statements(options: TableOptions) -> [String] {
        var sql = "CREATE "
        if options.contains(.temporary) { sql += "TEMPORARY " }
        sql += "TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        var columnIterator = columns.makeIterator()
        let definitions = columnSQL.map { $0.isEmpty ? columnIterator.next()!.sql : $0 } + tableConstraints
        sql += "\(name.quotedDatabaseIdentifier) (\(definitions.joined(separator: ", ")))"
        var tableOptions: [String] = []
        if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if options.contains(.strict) { tableOptions.append("STRICT") }
        if !tableOptions.isEmpty { sql += " " + tableOptions.joined(separator: ", ") }
        let indexOptions: IndexOptions = options.contains(.ifNotExists) ? [.ifNotExists] : []
        return [sql]
            + columns.filter(\.isIndexed).map {
                createIndexSQL(
                    Database.defaultIndexName(on: name, columns: [$0.name]), on: name, columns: [$0.name],
                    options: indexOptions, condition: nil)
            }
    }

    static func columnList(_ columns: [String]) -> String {
        columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }
}

/// Options of ``Database/create(table:options:body:)``.
public struct TableOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: no error when the table exists (its definition is not compared).
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// A `TEMPORARY` table, gone when the connection closes.
    public static let temporary = TableOptions(rawValue: 1 << 1)
    /// A `WITHOUT ROWID` table (https://www.sqlite.org/withoutrowid.html).
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// A `STRICT` table (https://www.sqlite.org/stricttables.html).
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// Options of ``Database/create(index:on:columns:options:condition:)``.
public struct IndexOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: no error when the index exists.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)
    /// A `UNIQUE` index.
    public static let unique = IndexOptions(rawValue: 1 << 1)
}

/// The `CREATE INDEX` statement.
func createIndexSQL(_ name: String, on table: String, columns: [String], options: IndexOptions, condition: String?)
    -> String
{
    var sql = "CREATE "
    if options.contains(.unique) { sql += "UNIQUE " }
    sql += "INDEX "
    if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
    sql += "\(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)(\(TableDefinition.columnList(columns)))"
    if let condition { sql += " WHERE \(condition)" }
    return sql
}
