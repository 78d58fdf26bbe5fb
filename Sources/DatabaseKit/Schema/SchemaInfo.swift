/// A column of a table, as `PRAGMA table_xinfo` describes it.
public struct ColumnInfo: FetchableRecord, Sendable, Hashable {
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
    public let primaryKeyIndex: Int
    /// The position of the column in the table, from 0.
    public let position: Int

    public init(row: Row) {
        position = row["cid"]
        name = row["name"]
        type = row["type"]
        isNotNull = row["notnull"]
        defaultValueSQL = row["dflt_value"]
        primaryKeyIndex = row["pk"]
    }
}

/// The primary key of a table.
public struct PrimaryKeyInfo: Sendable, Hashable {
    /// The primary key columns, in key order. `["rowid"]` for a table without
    /// an explicit primary key.
    public let columns: [String]
    /// The column that aliases the rowid (an `INTEGER PRIMARY KEY`), or nil.
    public let rowIDColumn: String?
    /// True when the primary key is the rowid, hidden or aliased by ``rowIDColumn``.
    public let isRowID: Bool

    static let hiddenRowID = PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: nil, isRowID: true)
}

/// An index of a table, as `PRAGMA index_list` and `PRAGMA index_info` describe it.
public struct IndexInfo: Sendable, Hashable {
    /// Why the index exists.
    public enum Origin: String, Sendable, Hashable {
        /// A `CREATE INDEX` statement.
        case createIndex = "c"
        /// A `UNIQUE` constraint.
        case uniqueConstraint = "u"
        /// A `PRIMARY KEY` constraint.
        case primaryKeyConstraint = "pk"
    }

    /// The index name.
    public let name: String
    /// The indexed columns, in index order (an expression appears as "").
    public let columns: [String]
    /// True for a unique index.
    public let isUnique: Bool
    /// Why the index exists.
    public let origin: Origin
    /// True when the index has a `WHERE` clause.
    public let isPartial: Bool
}

/// A foreign key of a table, as `PRAGMA foreign_key_list` describes it.
public struct ForeignKeyInfo: Sendable, Hashable {
    /// The foreign key's identifier within its table.
    public let id: Int
    /// The referenced table.
    public let destinationTable: String
    /// The columns of the origin table, in key order.
    public let originColumns: [String]
    /// The referenced columns, in key order: the primary key when the
    /// constraint names none, nothing when it names none and the referenced
    /// table does not exist.
    public let destinationColumns: [String]
    /// The `ON DELETE` action, such as "CASCADE" or "NO ACTION".
    public let onDelete: String
    /// The `ON UPDATE` action.
    public let onUpdate: String

    /// The origin and destination columns, pair by pair.
    public var mapping: [(origin: String, destination: String)] {
        zip(originColumns, destinationColumns).map { (origin: $0, destination: $1) }
    }
}

/// A row that breaks a foreign key constraint, as `PRAGMA foreign_key_check` reports it.
public struct ForeignKeyViolation: FetchableRecord, Sendable, Hashable, CustomStringConvertible {
    /// The table that holds the faulty row.
    public let originTable: String
    /// The rowid of the faulty row, nil for a `WITHOUT ROWID` table.
    public let originRowID: Int64?
    /// The referenced table.
    public let destinationTable: String
    /// The identifier of the broken foreign key in ``ForeignKeyInfo/id``.
    public let foreignKeyId: Int

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
}
