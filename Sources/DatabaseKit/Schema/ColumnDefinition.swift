/// A column of ``Database/create(table:options:body:)`` or
/// ``TableAlteration/add(column:_:)``, configured by chained calls:
///
/// ```swift
/// t.column("name", .text).notNull().unique().defaults(to: "anonymous")
/// t.column("teamId", .integer).references("team", onDelete: .cascade)
/// ```
public final class ColumnDefinition {
    let name: String
    let type: Database.ColumnType?
    private var constraints: [String] = []
    /// Set by ``indexed()``: the table definition then creates an index.
    private(set) var isIndexed = false

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// Adds a `PRIMARY KEY` constraint.
    @discardableResult
    public func primaryKey(onConflict: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        constraints.append("PRIMARY KEY" + Self.onConflictClause(onConflict) + (autoincrement ? " AUTOINCREMENT" : ""))
        return self
    }

    /// Adds a `NOT NULL` constraint.
    @discardableResult
    public func notNull(onConflict: Database.ConflictResolution? = nil) -> Self {
        constraints.append("NOT NULL" + Self.onConflictClause(onConflict))
        return self
    }

    /// Adds a `UNIQUE` constraint.
    @discardableResult
    public func unique(onConflict: Database.ConflictResolution? = nil) -> Self {
        constraints.append("UNIQUE" + Self.onConflictClause(onConflict))
        return self
    }

    /// Adds a `CHECK` constraint, such as `check(sql: "score >= 0")`.
    @discardableResult
    public func check(sql: String) -> Self {
        constraints.append("CHECK (\(sql))")
        return self
    }

    /// Adds a `DEFAULT` clause with a value: `defaults(to: 0)`, `defaults(to: "anonymous")`.
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        let literal = value.databaseValue.sqlLiteral
        // SQLite wants parentheses around a default that is not a plain literal.
        constraints.append("DEFAULT " + (literal.hasPrefix("-") ? "(\(literal))" : literal))
        return self
    }

    /// Adds a `DEFAULT` clause with an SQL expression: `defaults(sql: "CURRENT_TIMESTAMP")`.
    @discardableResult
    public func defaults(sql: String) -> Self {
        constraints.append("DEFAULT (\(sql))")
        return self
    }

    /// Adds a `COLLATE` clause.
    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self {
        constraints.append("COLLATE \(collation.rawValue)")
        return self
    }

    /// Makes the column a generated column (https://www.sqlite.org/gencol.html).
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        constraints.append("GENERATED ALWAYS AS (\(sql)) \(qualification.rawValue)")
        return self
    }

    /// Adds a foreign key to `table`: to `column`, or to its primary key when nil.
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: Database.ForeignKeyAction? = nil,
        onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false
    ) -> Self {
        constraints.append(
            foreignKeyClause(
                table: table, columns: column.map { [$0] }, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred))
        return self
    }

    /// Creates an index on the column, named `index_<table>_on_<column>`,
    /// after the table.
    @discardableResult
    public func indexed() -> Self {
        isIndexed = true
        return self
    }

    /// The SQL of the column in `CREATE TABLE` or `ALTER TABLE ... ADD COLUMN`.
    var sql: String {
        ([name.quotedDatabaseIdentifier] + (type.map { [$0.rawValue] } ?? []) + constraints).joined(separator: " ")
    }

    static func onConflictClause(_ resolution: Database.ConflictResolution?) -> String {
        resolution.map { " ON CONFLICT \($0.rawValue)" } ?? ""
    }

    /// Whether a generated column is computed when read or stored.
    public enum GeneratedColumnQualification: String, Sendable {
        /// Computed when read.
        case virtual = "VIRTUAL"
        /// Computed when written, and stored.
        case stored = "STORED"
    }
}

/// The `REFERENCES` clause of a column or table foreign key.
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
