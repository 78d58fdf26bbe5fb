/// The changes of ``Database/alter(table:body:)``, run in declaration order.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "email", .text)
///     t.rename(column: "score", to: "points")
///     t.drop(column: "nickname")
/// }
/// ```
public final class TableAlteration {
    let name: String
    private var changes: [Change] = []

    private enum Change {
        case add(ColumnDefinition)
        case addLiteral(SQL)
        case rename(String, String)
        case drop(String)
    }

    init(name: String) {
        self.name = name
    }

    /// Adds a column (`ALTER TABLE ... ADD COLUMN`).
    @discardableResult
    public func add(column name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// Adds a column written in SQL.
    public func addColumn(sql: String) {
        changes.append(.addLiteral(SQL(sql: sql)))
    }

    /// Adds a column written in SQL, with interpolated values written as literals.
    public func addColumn(literal: SQL) {
        changes.append(.addLiteral(literal))
    }

    /// Renames a column (SQLite 3.25+).
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// Drops a column (SQLite 3.35+).
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    /// One `ALTER TABLE` statement per change, then the `CREATE INDEX`
    /// statements of the added ``ColumnDefinition/indexed()`` columns.
    func statements(_ db: Database) throws -> [String] {
        let table = "ALTER TABLE \(name.quotedDatabaseIdentifier) "
        var statements: [String] = []
        var indexes: [String] = []
        for change in changes {
            switch change {
            case .add(let column):
                statements.append(try table + "ADD COLUMN " + column.sql(db, table: name))
                if column.isIndexed {
                    indexes.append(
                        createIndexSQL(
                            column.indexName(in: name), on: name,
                            columns: [column.name], options: [], condition: nil))
                }
            case .addLiteral(let literal):
                statements.append(try table + "ADD COLUMN " + rawSQL(literal, db))
            case .rename(let old, let new):
                statements.append(table + "RENAME COLUMN \(old.quotedDatabaseIdentifier) TO \(new.quotedDatabaseIdentifier)")
            case .drop(let column):
                statements.append(table + "DROP COLUMN \(column.quotedDatabaseIdentifier)")
            }
        }
        return statements + indexes
    }
}
