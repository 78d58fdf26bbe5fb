import DatabaseKit

/// The schema of a database as `dbtool schema` reports it: built on
/// DatabaseKit's introspection API, in a stable order (tables by name,
/// columns in table order), so that two reports of one schema are equal.
public struct SchemaReport: Codable, Sendable, Equatable {
    /// The database file.
    public var database: String
    /// `PRAGMA schema_version`: grows on every schema change.
    public var schemaVersion: Int32
    /// `PRAGMA user_version`.
    public var userVersion: Int
    /// The tables, by name (`sqlite_` internal tables and the shadow tables
    /// of virtual tables excluded).
    public var tables: [Table]
    /// The view names.
    public var views: [String]
    /// The triggers.
    public var triggers: [Trigger]

    /// A table.
    public struct Table: Codable, Sendable, Equatable {
        /// The table name.
        public var name: String
        /// The columns, in table order.
        public var columns: [Column]
        /// The primary key columns; `["rowid"]` when the table declares none.
        public var primaryKey: [String]
        /// True for a `WITHOUT ROWID` table.
        public var withoutRowID: Bool
        /// The module of a virtual table (`fts5`, `rtree`); nil for an
        /// ordinary table.
        public var virtualModule: String?
        /// The indexes, by name.
        public var indexes: [Index]
        /// The foreign keys.
        public var foreignKeys: [ForeignKey]
        /// The `CREATE TABLE` statement.
        public var sql: String
    }

    /// A column.
    public struct Column: Codable, Sendable, Equatable {
        /// The column name.
        public var name: String
        /// The declared type ("" when none).
        public var type: String
        /// True for a `NOT NULL` column.
        public var notNull: Bool
        /// The SQL of the default value, or null.
        public var defaultValue: String?
        /// The 1-based position in the primary key, 0 when not part of it.
        public var primaryKeyIndex: Int
    }

    /// An index.
    public struct Index: Codable, Sendable, Equatable {
        /// The index name.
        public var name: String
        /// The indexed columns, in index order ("" for an expression).
        public var columns: [String]
        /// True for a unique index.
        public var unique: Bool
        /// "createIndex", "uniqueConstraint" or "primaryKeyConstraint".
        public var origin: String
        /// True when the index has a `WHERE` clause.
        public var partial: Bool
    }

    /// A foreign key.
    public struct ForeignKey: Codable, Sendable, Equatable {
        /// The columns of this table.
        public var columns: [String]
        /// The referenced table.
        public var table: String
        /// The referenced columns (empty when the referenced table does not exist).
        public var destinationColumns: [String]
        /// The `ON DELETE` action, such as "CASCADE" or "NO ACTION".
        public var onDelete: String
        /// The `ON UPDATE` action.
        public var onUpdate: String
    }

    /// A trigger.
    public struct Trigger: Codable, Sendable, Equatable {
        /// The trigger name.
        public var name: String
        /// The table it is attached to.
        public var table: String
    }
}

extension SchemaReport {
    /// Reads the schema of the connection's main database; `tableNames`
    /// limits the tables (all when empty).
    ///
    /// - throws: ``DBToolError`` (65) naming a table of `tableNames` that
    ///   does not exist; `DatabaseError` on SQLite errors.
    public init(_ db: Database, path: String, tableNames: [String] = []) throws {
        database = path
        schemaVersion = try db.schemaVersion()
        userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let objects = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_master
                WHERE type IN ('table', 'view', 'trigger') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow')
                ORDER BY name COLLATE NOCASE
                """)
        var tableNamesInDatabase: [String] = []
        var tableSQL: [String: String] = [:]
        views = []
        triggers = []
        for object in objects {
            switch object["type"] as String {
            case "table":
                tableNamesInDatabase.append(object["name"])
                tableSQL[object["name"]] = object["sql"]
            case "view": views.append(object["name"])
            default: triggers.append(Trigger(name: object["name"], table: object["tbl_name"]))
            }
        }
        var selected = tableNamesInDatabase
        if !tableNames.isEmpty {
            selected = try tableNames.map { requested in
                guard let name = tableNamesInDatabase.first(where: { $0.lowercased() == requested.lowercased() }) else {
                    let known = tableNamesInDatabase.isEmpty ? "none" : tableNamesInDatabase.joined(separator: ", ")
                    throw DBToolError(
                        .dataError, "no table \(requested) in \(path)", hint: "Its tables are: \(known).")
                }
                return name
            }
            let selectedSet = Set(selected.map { $0.lowercased() })
            triggers = triggers.filter { selectedSet.contains($0.table.lowercased()) }
            views = []
        }
        tables = try selected.map { name in
            let sql = tableSQL[name] ?? ""
            if let module = SchemaReport.virtualModule(sql) {
                // A virtual table's module owns its storage: no index, no key.
                return Table(
                    name: name,
                    columns: try db.columns(in: name).map {
                        Column(name: $0.name, type: $0.type, notNull: $0.isNotNull, defaultValue: $0.defaultValueSQL, primaryKeyIndex: 0)
                    },
                    primaryKey: [], withoutRowID: false, virtualModule: module, indexes: [], foreignKeys: [], sql: sql)
            }
            let indexes = try db.indexes(on: name)
            return Table(
                name: name,
                columns: try db.columns(in: name).map {
                    Column(
                        name: $0.name, type: $0.type, notNull: $0.isNotNull, defaultValue: $0.defaultValueSQL,
                        primaryKeyIndex: $0.primaryKeyIndex)
                },
                primaryKey: try db.primaryKey(name).columns,
                // pragma_table_list (SQLite 3.37+) knows; the SQL text might mislead.
                withoutRowID: try Bool.fetchOne(
                    db, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", arguments: [name])
                    ?? false,
                virtualModule: nil,
                indexes: indexes.sorted { $0.name < $1.name }.map {
                    Index(
                        name: $0.name, columns: $0.columns, unique: $0.isUnique, origin: "\($0.origin)",
                        partial: $0.isPartial)
                },
                foreignKeys: try db.foreignKeys(on: name).map {
                    ForeignKey(
                        columns: $0.originColumns, table: $0.destinationTable,
                        destinationColumns: $0.destinationColumns, onDelete: $0.onDelete, onUpdate: $0.onUpdate)
                },
                sql: tableSQL[name] ?? "")
        }
    }
}

extension SchemaReport {
    /// "fts5" for `CREATE VIRTUAL TABLE docs USING fts5(...)`; nil for
    /// another statement.
    static func virtualModule(_ sql: String) -> String? {
        let words = sql.split(whereSeparator: { $0.isWhitespace || $0 == "(" }).prefix(6).map { $0.uppercased() }
        guard words.count >= 2, words[0] == "CREATE", words[1] == "VIRTUAL",
            let using = sql.firstRange(of: /(?i)using/)
        else { return nil }
        let module = sql[using.upperBound...].drop(while: \.isWhitespace).prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
        return module.isEmpty ? nil : module.lowercased()
    }
}
