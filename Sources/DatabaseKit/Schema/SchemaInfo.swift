import FoundationEssentials

/// The identifier of a schema of the connection: main, temp, or an
/// attached database. See <https://sqlite.org/lang_naming.html>.
public struct DatabaseSchemaID: Hashable, Sendable {
    private enum Impl: Hashable, Sendable {
        case main
        case temp
        case attached(String)
    }

    private let impl: Impl

    private init(impl: Impl) { self.impl = impl }

    /// The schema of a name from `PRAGMA database_list`.
    init(name: String) {
        switch name.lowercased() {
        case "main": self = .main
        case "temp": self = .temp
        default: self = .attached(name)
        }
    }

    /// The main database.
    public static let main = DatabaseSchemaID(impl: .main)

    /// The temporary database.
    public static let temp = DatabaseSchemaID(impl: .temp)

    /// An attached database.
    public static func attached(_ name: String) -> DatabaseSchemaID { DatabaseSchemaID(impl: .attached(name)) }

    /// The schema's name, for SQL: `main`, `temp`, or the attachment name.
    public var name: String {
        switch impl {
        case .main: return "main"
        case .temp: return "temp"
        case .attached(let name): return name
        }
    }

    /// The schema table: `sqlite_master`, `sqlite_temp_master`, or
    /// `name.sqlite_master`.
    public var schemaTableName: String {
        switch impl {
        case .main: return "sqlite_master"
        case .temp: return "sqlite_temp_master"
        case .attached(let name): return "\(name.quotedDatabaseIdentifier).sqlite_master"
        }
    }

    /// The schema table's name inside its schema.
    var unqualifiedSchemaTableName: String {
        if case .temp = impl { return "sqlite_temp_master" }
        return "sqlite_master"
    }
}

/// A table, view or other object of a schema.
public struct DatabaseObjectID: Hashable, Sendable {
    /// The object's name.
    public var name: String

    /// The object's schema.
    public var schemaID: DatabaseSchemaID

    /// An object identifier.
    public init(name: String, schemaID: DatabaseSchemaID) {
        self.name = name
        self.schemaID = schemaID
    }

    /// `schema."name"`, safe to splice into SQL.
    var quotedDatabaseIdentifier: String {
        schemaID.name.quotedDatabaseIdentifier + "." + name.quotedDatabaseIdentifier
    }
}

/// A column of a table, as `PRAGMA table_xinfo` describes it.
public struct ColumnInfo: FetchableRecord, Sendable, Hashable {
    /// The position of the column in the table, from 0.
    let cid: Int
    /// 0 for a normal column, 1 for a hidden column of a virtual table, 2
    /// and 3 for generated columns.
    let hidden: Int?
    /// The column name.
    public let name: String
    /// The declared type, as written in `CREATE TABLE` ("" when none).
    public let type: String
    /// The declared type as a ``Database/ColumnType``, nil when none was declared.
    public var columnType: Database.ColumnType? { type.isEmpty ? nil : Database.ColumnType(rawValue: type) }
    /// True for a `NOT NULL` column.
    public let isNotNull: Bool
    /// The SQL of the default value, such as `'anonymous'` or `CURRENT_TIMESTAMP`; nil when none.
    public let defaultValueSQL: String?
    /// The 1-based position of the column in the primary key, 0 when it is not part of it.
    public internal(set) var primaryKeyIndex: Int
    /// The position of the column in the table, from 0.
    public var position: Int { cid }

    public init(row: Row) {
        cid = row["cid"]
        name = row["name"]
        type = row["type"]
        isNotNull = row["notnull"]
        defaultValueSQL = row["dflt_value"]
        primaryKeyIndex = row["pk"]
        hidden = row["hidden"]
    }
}

/// The primary key of a table: the hidden rowid, a column that aliases the
/// rowid (`INTEGER PRIMARY KEY`), or regular columns.
public struct PrimaryKeyInfo: Sendable, Hashable {
    /// Indirect: a record operation copies its table's primary key, and a
    /// boxed payload copies with one retain, whatever the columns hold.
    private indirect enum Impl: Hashable, Sendable {
        case hiddenRowID
        case rowID(ColumnInfo)
        case regular([ColumnInfo], tableHasRowID: Bool)
    }

    private let impl: Impl

    /// The primary key columns, in key order. `["rowid"]` for a table without
    /// an explicit primary key. Stored: record persistence reads it on every
    /// insert and lookup.
    public let columns: [String]

    private init(impl: Impl) {
        self.impl = impl
        switch impl {
        case .hiddenRowID: columns = [Column.rowID.name]
        case .rowID(let column): columns = [column.name]
        case .regular(let columns, _): self.columns = columns.map(\.name)
        }
    }

    static let hiddenRowID = PrimaryKeyInfo(impl: .hiddenRowID)

    static func rowID(_ column: ColumnInfo) -> PrimaryKeyInfo { PrimaryKeyInfo(impl: .rowID(column)) }

    static func regular(_ columns: [ColumnInfo], tableHasRowID: Bool) -> PrimaryKeyInfo {
        PrimaryKeyInfo(impl: .regular(columns, tableHasRowID: tableHasRowID))
    }

    /// The information of the key columns; nil for the hidden rowid.
    var columnInfos: [ColumnInfo]? {
        switch impl {
        case .hiddenRowID: return nil
        case .rowID(let column): return [column]
        case .regular(let columns, _): return columns
        }
    }

    /// The column that aliases the rowid (an `INTEGER PRIMARY KEY`), or nil.
    public var rowIDColumn: String? {
        if case .rowID(let column) = impl { return column.name }
        return nil
    }

    /// True when the primary key is the rowid, hidden or aliased by ``rowIDColumn``.
    public var isRowID: Bool {
        if case .regular = impl { return false }
        return true
    }

    /// True when the table has a rowid (it is not `WITHOUT ROWID`, nor a view).
    public var tableHasRowID: Bool {
        if case .regular(_, let tableHasRowID) = impl { return tableHasRowID }
        return true
    }
}

/// An index of a table, as `PRAGMA index_list` and `PRAGMA index_info` describe it.
public struct IndexInfo: Sendable, Hashable {
    /// Why the index exists.
    public struct Origin: RawRepresentable, Hashable, DatabaseValueConvertible, Sendable {
        /// SQLite's code: "c", "u" or "pk".
        public var rawValue: String

        /// An origin from SQLite's code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A `CREATE INDEX` statement.
        public static let createIndex = Origin(rawValue: "c")
        /// A `UNIQUE` constraint.
        public static let uniqueConstraint = Origin(rawValue: "u")
        /// A `PRIMARY KEY` constraint.
        public static let primaryKeyConstraint = Origin(rawValue: "pk")
    }

    /// The index name.
    public let name: String
    /// The indexed columns, in index order.
    public let columns: [String]
    /// True for a unique index.
    public let isUnique: Bool
    /// Why the index exists.
    public let origin: Origin
    /// True when the index has a `WHERE` clause.
    public let isPartial: Bool

    init(name: String, columns: [String], isUnique: Bool, origin: Origin, isPartial: Bool = false) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
        self.origin = origin
        self.isPartial = isPartial
    }
}

/// A foreign key of a table, as `PRAGMA foreign_key_list` describes it.
public struct ForeignKeyInfo: Sendable {
    /// The foreign key's identifier within its table.
    public var id: Int
    /// The referenced table.
    public let destinationTable: String
    /// The origin and destination columns, pair by pair.
    public let mapping: [(origin: String, destination: String)]
    /// The `ON DELETE` action, such as "CASCADE" or "NO ACTION".
    public let onDelete: String
    /// The `ON UPDATE` action.
    public let onUpdate: String

    /// The columns of the origin table, in key order.
    public var originColumns: [String] { mapping.map(\.origin) }

    /// The referenced columns, in key order: the primary key when the
    /// constraint names none, nothing when it names none and the referenced
    /// table does not exist.
    public var destinationColumns: [String] { mapping.map(\.destination) }
}

extension ForeignKeyInfo: Hashable {
    public static func == (lhs: ForeignKeyInfo, rhs: ForeignKeyInfo) -> Bool {
        lhs.id == rhs.id && lhs.destinationTable == rhs.destinationTable && lhs.originColumns == rhs.originColumns
            && lhs.destinationColumns == rhs.destinationColumns && lhs.onDelete == rhs.onDelete && lhs.onUpdate == rhs.onUpdate
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(destinationTable)
        hasher.combine(originColumns)
    }
}

/// A row that breaks a foreign key constraint, as `PRAGMA foreign_key_check` reports it.
public struct ForeignKeyViolation: FetchableRecord, Sendable, Hashable, CustomStringConvertible {
    /// The table that holds the faulty row.
    public var originTable: String
    /// The rowid of the faulty row, nil for a `WITHOUT ROWID` table.
    public var originRowID: Int64?
    /// The referenced table.
    public var destinationTable: String
    /// The identifier of the broken foreign key in ``ForeignKeyInfo/id``.
    public var foreignKeyId: Int

    public init(row: Row) {
        originTable = row[0]
        originRowID = row[1]
        destinationTable = row[2]
        foreignKeyId = row[3]
    }

    /// "FOREIGN KEY constraint violation - from player to team, in rowid 3".
    public var description: String {
        var text = "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
        if let originRowID { text += ", in rowid \(originRowID)" }
        return text
    }

    /// A description with the columns and the faulty row:
    /// "FOREIGN KEY constraint violation - from player(teamId) to team(id),
    /// in [id:1 teamId:2]".
    public func failureDescription(_ db: Database) throws -> String {
        let row = try originRowID.flatMap { rowid in
            try Row.fetchOne(db, sql: "SELECT * FROM \(originTable.quotedDatabaseIdentifier) WHERE rowid = ?", arguments: [rowid])
        }
        var text: String
        if let key = try db.foreignKeys(on: originTable).first(where: { $0.id == foreignKeyId }) {
            text =
                "FOREIGN KEY constraint violation - from \(originTable)(\(key.originColumns.joined(separator: ", "))) to \(destinationTable)(\(key.destinationColumns.joined(separator: ", ")))"
        } else {
            text = "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
        }
        if let row {
            text += ", in \(row)"
        } else if let originRowID {
            text += ", in rowid \(originRowID)"
        }
        return text
    }

    /// The error of this violation: SQLITE_CONSTRAINT_FOREIGNKEY, with the
    /// ``failureDescription(_:)``.
    public func databaseError(_ db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: (try? failureDescription(db)) ?? description)
    }
}

/// The kinds of schema objects.
struct SchemaObjectType: Hashable, RawRepresentable, DatabaseValueConvertible, Sendable {
    var rawValue: String
    static let index = SchemaObjectType(rawValue: "index")
    static let table = SchemaObjectType(rawValue: "table")
    static let trigger = SchemaObjectType(rawValue: "trigger")
    static let view = SchemaObjectType(rawValue: "view")
}

/// An object of a schema table.
struct SchemaObject: Hashable, FetchableRecord, Sendable {
    var type: SchemaObjectType
    var name: String
    var tableName: String?
    var sql: String?

    init(row: Row) {
        type = row["type"]
        name = row["name"]
        tableName = row["tbl_name"]
        sql = row["sql"]
    }
}

/// The objects of one schema.
struct SchemaInfo: Equatable, Sendable {
    let objects: Set<SchemaObject>

    init(_ db: Database, schemaID: DatabaseSchemaID) throws {
        objects = try SchemaObject.fetchSet(db, sql: "SELECT type, name, tbl_name, sql FROM \(schemaID.schemaTableName)")
    }

    /// The name of an object, as the schema spells it; names compare
    /// case-insensitively.
    func canonicalName(_ name: String, ofType type: SchemaObjectType) -> String? {
        let name = name.lowercased()
        return objects.first { $0.type == type && $0.name.lowercased() == name }?.name
    }

    func contains(_ name: String, ofType type: SchemaObjectType) -> Bool {
        canonicalName(name, ofType: type) != nil
    }
}
