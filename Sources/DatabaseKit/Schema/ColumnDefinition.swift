/// A column of ``Database/create(table:options:body:)`` or
/// ``TableAlteration/add(column:_:)``, configured by chained calls:
///
/// ```swift
/// t.column("name", .text).notNull().unique().defaults(to: "anonymous")
/// t.column("teamId", .integer).references("team", onDelete: .cascade)
/// ```
///
/// Whatever the order of the calls, the SQL lists the constraints in one
/// order: `PRIMARY KEY`, `NOT NULL`, `UNIQUE`, `CHECK`, `DEFAULT`,
/// `COLLATE`, `REFERENCES`, `GENERATED`.
public final class ColumnDefinition {
    let name: String
    let type: Database.ColumnType?
    private var primaryKey: (conflictResolution: Database.ConflictResolution?, autoincrement: Bool)?
    private var notNullConflictResolution: Database.ConflictResolution??
    private var indexing: Indexing?
    private var checks: [SQLExpression] = []
    private var defaultSQL: String?
    private var collation: String?
    private var references: [Reference] = []

    private struct Reference {
        var table: String
        var column: String?
        var onDelete: Database.ForeignKeyAction?
        var onUpdate: Database.ForeignKeyAction?
        var deferred: Bool
    }
    private var generated: (expression: SQLExpression, qualification: GeneratedColumnQualification)?

    private enum Indexing {
        case index
        case unique(Database.ConflictResolution?)
    }

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// True after ``indexed()``: the table definition then creates an index.
    var isIndexed: Bool {
        if case .index = indexing { return true }
        return false
    }

    /// The name of the index of an ``indexed()`` column: `<table>_on_<column>`
    /// (GRDB's; `create(indexOn:)` and composite keys use `index_<table>_on_...`).
    func indexName(in table: String) -> String { "\(table)_on_\(name)" }

    /// True after ``primaryKey(onConflict:autoincrement:)``.
    var isPrimaryKey: Bool { primaryKey != nil }

    /// Adds a `PRIMARY KEY` constraint.
    @discardableResult
    public func primaryKey(onConflict: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        primaryKey = (onConflict, autoincrement)
        return self
    }

    /// Adds a `NOT NULL` constraint.
    @discardableResult
    public func notNull(onConflict: Database.ConflictResolution? = nil) -> Self {
        notNullConflictResolution = .some(onConflict)
        return self
    }

    /// Adds a `UNIQUE` constraint (which ``indexed()`` keeps).
    @discardableResult
    public func unique(onConflict: Database.ConflictResolution? = nil) -> Self {
        indexing = .unique(onConflict)
        return self
    }

    /// Creates an index on the column, named `<table>_on_<column>`, after
    /// the table. A ``unique(onConflict:)`` column stays unique: its
    /// constraint is already an index.
    @discardableResult
    public func indexed() -> Self {
        if indexing == nil { indexing = .index }
        return self
    }

    /// Adds a `CHECK` constraint: `.check(sql: "length(name) > 0")`.
    @discardableResult
    public func check(sql: String) -> Self {
        checks.append(SQL(sql: sql).sqlExpression)
        return self
    }

    /// Adds a `CHECK` constraint built from the column:
    /// `.check { SQL("length(\($0)) > 0") }`.
    @discardableResult
    public func check(_ condition: (Column) -> any SQLExpressible) -> Self {
        checks.append(condition(Column(name)).sqlExpression)
        return self
    }

    /// Sets the default value.
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        // A literal, signed numbers included, as GRDB writes it: `DEFAULT -1`.
        defaultSQL = value.databaseValue.sqlLiteral
        return self
    }

    /// Sets the default as an SQL expression: `.defaults(sql: "CURRENT_TIMESTAMP")`.
    @discardableResult
    public func defaults(sql: String) -> Self {
        // Verbatim, as GRDB writes it: an expression other than a literal
        // or a keyword needs its own parentheses, `defaults(sql: "(datetime('now'))")`.
        defaultSQL = sql
        return self
    }

    /// Adds a `COLLATE` clause.
    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self {
        self.collation = collation.rawValue
        return self
    }

    /// Adds a `COLLATE` clause with a custom collation, which must be added
    /// to every connection that uses the table.
    @discardableResult
    public func collate(_ collation: DatabaseCollation) -> Self {
        self.collation = collation.name.quotedDatabaseIdentifier
        return self
    }

    /// Makes the column generated from an expression.
    @discardableResult
    public func generatedAs(_ expression: some SQLExpressible, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (expression.sqlExpression, qualification)
        return self
    }

    /// Makes the column generated from SQL: `.generatedAs(sql: "a + b")`.
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generatedAs(SQL(sql: sql), qualification)
    }

    /// Adds a foreign key to `table`: to `column`, or to its primary key when nil.
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: Database.ForeignKeyAction? = nil,
        onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) -> Self {
        references.append(Reference(table: table, column: column, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred))
        return self
    }

    /// The SQL of the column in `CREATE TABLE` or `ALTER TABLE ... ADD COLUMN`,
    /// with expressions written as SQL literals. A reference without column
    /// names the primary key of the referenced table when it is known: the
    /// table being created (`table`, whose primary key is
    /// `forwardPrimaryKey`), or an existing table.
    func sql(_ db: Database?, table: String? = nil, forwardPrimaryKey: [String]? = nil) throws -> String {
        let context = SQLGenerationContext(db, rawSQL: true)
        var chunks = [name.quotedDatabaseIdentifier]
        if let type { chunks.append(type.rawValue) }
        if let primaryKey {
            chunks.append("PRIMARY KEY" + Self.onConflictClause(primaryKey.conflictResolution))
            if primaryKey.autoincrement { chunks.append("AUTOINCREMENT") }
        }
        if let notNullConflictResolution { chunks.append("NOT NULL" + Self.onConflictClause(notNullConflictResolution)) }
        if case .unique(let conflictResolution) = indexing { chunks.append("UNIQUE" + Self.onConflictClause(conflictResolution)) }
        for check in checks { chunks.append(try "CHECK (" + check.sql(context) + ")") }
        if let defaultSQL { chunks.append("DEFAULT " + defaultSQL) }
        if let collation { chunks.append("COLLATE " + collation) }
        for reference in references {
            var columns = reference.column.map { [$0] }
            if columns == nil {
                if let table, reference.table.lowercased() == table.lowercased() {
                    columns = forwardPrimaryKey
                } else if let db, try db.tableExists(reference.table) {
                    let primaryKey = try db.primaryKey(reference.table)
                    if primaryKey.rowIDColumn != nil || !primaryKey.isRowID { columns = primaryKey.columns }
                }
            }
            chunks.append(
                foreignKeyClause(
                    table: reference.table, columns: columns, onDelete: reference.onDelete, onUpdate: reference.onUpdate,
                    deferred: reference.deferred))
        }
        if let generated {
            chunks.append(try "GENERATED ALWAYS AS (" + generated.expression.sql(context) + ") " + generated.qualification.rawValue)
        }
        return chunks.joined(separator: " ")
    }

    /// ` ON CONFLICT REPLACE`, and nothing for the default, `ABORT`.
    static func onConflictClause(_ resolution: Database.ConflictResolution?) -> String {
        guard let resolution, resolution != .abort else { return "" }
        return " ON CONFLICT \(resolution.rawValue)"
    }

    /// Whether a generated column is computed when read or stored.
    public enum GeneratedColumnQualification: String, Sendable {
        case virtual = "VIRTUAL"
        case stored = "STORED"
    }
}

/// The `REFERENCES` clause of a foreign key.
func foreignKeyClause(
    table: String, columns: [String]?, onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?,
    deferred: Bool
) -> String {
    var sql = "REFERENCES \(table.quotedDatabaseIdentifier)"
    if let columns { sql += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")" }
    if let onDelete { sql += " ON DELETE \(onDelete.rawValue)" }
    if let onUpdate { sql += " ON UPDATE \(onUpdate.rawValue)" }
    if deferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
    return sql
}

/// The SQL of a literal in a schema definition, where no argument can be
/// bound: values are written as SQL literals.
func rawSQL(_ literal: SQL, _ db: Database?) throws -> String {
    try literal.sql(SQLGenerationContext(db, rawSQL: true))
}

// A mutable builder, used on the thread that defines the table.
@available(*, unavailable)
extension ColumnDefinition: Sendable {}
