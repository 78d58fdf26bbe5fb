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

    /// The columns, in declaration order.
    private enum ColumnComponent {
        case column(ColumnDefinition)
        case literal(SQL)
        case belongsTo(ForeignKeyDefinition)
    }

    /// A column of a primary or unique key.
    private enum KeyComponent {
        case name(String)
        case column(ColumnDefinition)
        case belongsTo(ForeignKeyDefinition)
    }

    private struct KeyConstraint {
        var components: [KeyComponent]
        var conflictResolution: Database.ConflictResolution?
    }

    private struct ForeignKeyConstraint {
        var columns: [String]
        var table: String
        var destinationColumns: [String]?
        var onDelete: Database.ForeignKeyAction?
        var onUpdate: Database.ForeignKeyAction?
        var deferred: Bool
    }

    private var components: [ColumnComponent] = []
    private var primaryKeyConstraint: KeyConstraint?
    private var uniqueKeyConstraints: [KeyConstraint] = []
    private var foreignKeyConstraints: [ForeignKeyConstraint] = []
    private var checkConstraints: [SQLExpression] = []
    private var literalConstraints: [SQL] = []
    private var inPrimaryKeyBody = false
    /// A misuse found while the table was defined, thrown when it is created.
    private var misuse: DatabaseError?

    init(name: String) {
        self.name = name
    }

    /// Adds an `INTEGER PRIMARY KEY AUTOINCREMENT` column: an alias of the
    /// rowid whose values are never reused.
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict: Database.ConflictResolution? = nil) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: onConflict, autoincrement: true)
    }

    /// Adds a primary key column: `t.primaryKey("uuid", .text)`. Unless it
    /// is an `INTEGER PRIMARY KEY` (an alias of the rowid), the column is
    /// also `NOT NULL`, which SQLite does not imply
    /// (<https://www.sqlite.org/quirks.html#primary_keys_can_sometimes_contain_nulls>).
    @discardableResult
    public func primaryKey(_ name: String, _ type: Database.ColumnType, onConflict: Database.ConflictResolution? = nil)
        -> ColumnDefinition
    {
        let column = column(name, type).primaryKey(onConflict: onConflict)
        return type == .integer ? column : column.notNull()
    }

    /// Adds a primary key on the columns the body defines, each `NOT NULL`:
    ///
    /// ```swift
    /// try db.create(table: "passport") { t in
    ///     t.primaryKey {
    ///         t.column("citizenId", .integer)
    ///         t.belongsTo("country")
    ///     }
    ///     t.column("issueDate", .date).notNull()
    /// }
    /// ```
    public func primaryKey(onConflict: Database.ConflictResolution? = nil, body: () throws -> Void) rethrows {
        guard primaryKeyConstraint == nil else {
            misuse = misuse ?? .misuse("can't define several primary keys in table \(name)")
            return
        }
        primaryKeyConstraint = KeyConstraint(components: [], conflictResolution: onConflict)
        let wasInBody = inPrimaryKeyBody
        inPrimaryKeyBody = true
        defer { inPrimaryKeyBody = wasInBody }
        try body()
    }

    /// Adds a primary key on several columns, declared with ``column(_:_:)``.
    public func primaryKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        guard primaryKeyConstraint == nil else {
            misuse = misuse ?? .misuse("can't define several primary keys in table \(name)")
            return
        }
        primaryKeyConstraint = KeyConstraint(components: columns.map { .name($0) }, conflictResolution: onConflict)
    }

    /// Adds a column, with a type or without (then any value goes, with no affinity).
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        components.append(.column(column))
        if inPrimaryKeyBody {
            column.notNull()
            primaryKeyConstraint?.components.append(.column(column))
        }
        return column
    }

    /// Adds a column written in SQL: `t.column(sql: "name TEXT NOT NULL")`.
    public func column(sql: String) {
        column(literal: SQL(sql: sql))
    }

    /// Adds a column written in SQL, with interpolated values written as literals.
    public func column(literal: SQL) {
        if inPrimaryKeyBody {
            misuse = misuse ?? .misuse("Primary key columns can not be defined with raw SQL")
            return
        }
        components.append(.literal(literal))
    }

    /// Adds the columns of a foreign key to the primary key of another
    /// table, and indexes them (unless `indexed` is false). `belongsTo("team")`
    /// adds `teamId`, referencing the table "team" or "teams";
    /// `belongsTo("country")` adds `countryCode` when the primary key of
    /// "country" is `code`. A composite primary key gives several columns.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.belongsTo("team", onDelete: .cascade)
    ///     t.belongsTo("captain", inTable: "player", onDelete: .setNull)
    ///     t.belongsTo("country").notNull()
    /// }
    /// ```
    ///
    /// - parameters:
    ///   - name: The prefix of the columns, and the referenced table unless
    ///     `table` is given.
    ///   - table: The referenced table.
    ///   - onDelete: The action when the referenced row is deleted.
    ///   - onUpdate: The action when the referenced key changes.
    ///   - deferred: Whether the foreign key is checked at commit only.
    ///   - indexed: Whether the columns are indexed. Default: true.
    @discardableResult
    public func belongsTo(
        _ name: String, inTable table: String? = nil, onDelete: Database.ForeignKeyAction? = nil,
        onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false, indexed: Bool = true
    ) -> ForeignKeyDefinition {
        let foreignKey = ForeignKeyDefinition(
            name: name, table: table, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred,
            indexed: indexed && !inPrimaryKeyBody)
        components.append(.belongsTo(foreignKey))
        if inPrimaryKeyBody {
            foreignKey.notNull()
            primaryKeyConstraint?.components.append(.belongsTo(foreignKey))
        }
        return foreignKey
    }

    /// Adds a `UNIQUE` constraint on several columns.
    public func uniqueKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        uniqueKeyConstraints.append(KeyConstraint(components: columns.map { .name($0) }, conflictResolution: onConflict))
    }

    /// Adds a foreign key on several columns, to `destinationColumns` of
    /// `table` or to its primary key when nil.
    public func foreignKey(
        _ columns: [String], references table: String, columns destinationColumns: [String]? = nil,
        onDelete: Database.ForeignKeyAction? = nil, onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) {
        foreignKeyConstraints.append(
            ForeignKeyConstraint(
                columns: columns, table: table, destinationColumns: destinationColumns, onDelete: onDelete,
                onUpdate: onUpdate, deferred: deferred))
    }

    /// Adds a table `CHECK` constraint: `t.check(sql: "start <= stop")`.
    public func check(sql: String) {
        checkConstraints.append(SQL(sql: sql).sqlExpression)
    }

    /// Adds a table `CHECK` constraint from an expression, such as an SQL
    /// literal: `t.check(SQL("start <= stop"))`.
    public func check(_ condition: some SQLExpressible) {
        checkConstraints.append(condition.sqlExpression)
    }

    /// Adds a table constraint written in SQL.
    public func constraint(sql: String) {
        literalConstraints.append(SQL(sql: sql))
    }

    /// Adds a table constraint written in SQL, with interpolated values
    /// written as literals.
    public func constraint(literal: SQL) {
        literalConstraints.append(literal)
    }

    // MARK: SQL

    /// The `CREATE TABLE` statement, then the `CREATE INDEX` statements of
    /// the indexed columns and foreign keys.
    func statements(_ db: Database, options: TableOptions) throws -> [String] {
        if let misuse { throw misuse }
        let context = SQLGenerationContext(db, rawSQL: true)
        let indexOptions: IndexOptions = options.contains(.ifNotExists) ? [.ifNotExists] : []
        let forwardPrimaryKey = try self.forwardPrimaryKey(db)
        var items: [String] = []
        var indexes: [String] = []
        var foreignKeys = foreignKeyConstraints
        func indexColumn(_ column: ColumnDefinition) {
            if column.isIndexed {
                indexes.append(
                    createIndexSQL(
                        column.indexName(in: name), on: name, columns: [column.name],
                        options: indexOptions, condition: nil))
            }
        }
        for component in components {
            switch component {
            case .column(let column):
                items.append(try column.sql(db, table: name, forwardPrimaryKey: forwardPrimaryKey?.map(\.name)))
                indexColumn(column)
            case .literal(let literal):
                items.append(try literal.sql(context))
            case .belongsTo(let foreignKey):
                let generated = try foreignKey.generate(db, originTable: name, forwardPrimaryKey: forwardPrimaryKey)
                for column in generated.columns {
                    items.append(try column.sql(db, table: name, forwardPrimaryKey: forwardPrimaryKey?.map(\.name)))
                    indexColumn(column)
                }
                if let constraint = generated.tableConstraint {
                    foreignKeys.append(
                        ForeignKeyConstraint(
                            columns: constraint.columns, table: constraint.table, destinationColumns: nil,
                            onDelete: foreignKey.onDelete, onUpdate: foreignKey.onUpdate, deferred: foreignKey.deferred))
                }
                if let unique = generated.compositeIndex {
                    indexes.append(
                        createIndexSQL(
                            Database.defaultIndexName(on: name, columns: generated.columns.map(\.name)), on: name,
                            columns: generated.columns.map(\.name), options: unique ? indexOptions.union(.unique) : indexOptions,
                            condition: nil))
                }
            }
        }
        if let primaryKeyConstraint {
            items.append(try keySQL("PRIMARY KEY", primaryKeyConstraint, db, forwardPrimaryKey: forwardPrimaryKey))
        }
        for constraint in uniqueKeyConstraints {
            items.append(try keySQL("UNIQUE", constraint, db, forwardPrimaryKey: forwardPrimaryKey))
        }
        for constraint in foreignKeys {
            var destination = constraint.destinationColumns
            if destination == nil && constraint.table.lowercased() == name.lowercased() {
                destination = forwardPrimaryKey?.map(\.name) ?? ["rowid"]
            }
            items.append(
                "FOREIGN KEY (\(Self.columnList(constraint.columns))) "
                    + foreignKeyClause(
                        table: constraint.table, columns: destination, onDelete: constraint.onDelete,
                        onUpdate: constraint.onUpdate, deferred: constraint.deferred))
        }
        for check in checkConstraints {
            items.append("CHECK (\(try check.sql(context)))")
        }
        for literal in literalConstraints {
            items.append(try literal.sql(context))
        }
        var sql = "CREATE "
        if options.contains(.temporary) { sql += "TEMPORARY " }
        sql += "TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += "\(name.quotedDatabaseIdentifier) (\(items.joined(separator: ", ")))"
        var tableOptions: [String] = []
        if options.contains(.strict) { tableOptions.append("STRICT") }
        if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if !tableOptions.isEmpty { sql += " " + tableOptions.joined(separator: ", ") }
        return [sql] + indexes
    }

    /// The primary key of the table being defined, for foreign keys to
    /// itself; nil for the hidden rowid.
    private func forwardPrimaryKey(_ db: Database) throws -> [ColumnDefinition]? {
        if let primaryKeyConstraint {
            var columns: [ColumnDefinition] = []
            for component in primaryKeyConstraint.components {
                switch component {
                case .name(let name):
                    let declared = components.lazy.compactMap { component -> ColumnDefinition? in
                        if case .column(let column) = component, column.name.lowercased() == name.lowercased() { return column }
                        return nil
                    }.first
                    columns.append(declared ?? ColumnDefinition(name: name, type: nil))
                case .column(let column):
                    columns.append(column)
                case .belongsTo(let foreignKey):
                    columns += try foreignKey.generate(db, originTable: name, forwardPrimaryKey: nil).columns
                }
            }
            return columns
        }
        for component in components {
            if case .column(let column) = component, column.isPrimaryKey { return [column] }
        }
        return nil
    }

    private func keySQL(
        _ keyword: String, _ constraint: KeyConstraint, _ db: Database, forwardPrimaryKey: [ColumnDefinition]?
    ) throws -> String {
        var columns: [String] = []
        for component in constraint.components {
            switch component {
            case .name(let name): columns.append(name)
            case .column(let column): columns.append(column.name)
            case .belongsTo(let foreignKey):
                columns += try foreignKey.generate(db, originTable: name, forwardPrimaryKey: forwardPrimaryKey).columns.map(\.name)
            }
        }
        return "\(keyword) (\(Self.columnList(columns)))" + ColumnDefinition.onConflictClause(constraint.conflictResolution)
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
