/// A foreign key added by ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``,
/// refined by chained calls: `t.belongsTo("country").notNull().unique()`.
public final class ForeignKeyDefinition {
    let name: String
    let table: String?
    let onDelete: Database.ForeignKeyAction?
    let onUpdate: Database.ForeignKeyAction?
    let deferred: Bool
    private var indexing: Indexing?
    /// Set by ``notNull(onConflict:)``; the inner nil is the default resolution.
    private var notNullConflictResolution: Database.ConflictResolution??

    private enum Indexing {
        case index, unique
    }

    init(
        name: String, table: String?, onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?,
        deferred: Bool, indexed: Bool
    ) {
        self.name = name
        self.table = table
        self.onDelete = onDelete
        self.onUpdate = onUpdate
        self.deferred = deferred
        self.indexing = indexed ? .index : nil
    }

    /// Makes the columns `NOT NULL`.
    @discardableResult
    public func notNull(onConflict: Database.ConflictResolution? = nil) -> Self {
        notNullConflictResolution = .some(onConflict)
        return self
    }

    /// Makes the columns unique: one row of this table per referenced row.
    @discardableResult
    public func unique() -> Self {
        indexing = .unique
        return self
    }

    /// The columns of the foreign key, and for a composite key its table
    /// constraint and whether its index is unique.
    struct Generated {
        var columns: [ColumnDefinition]
        var tableConstraint: (columns: [String], table: String)?
        /// nil: no index on several columns; false: an index; true: a unique index.
        var compositeIndex: Bool?
    }

    /// The columns, from the primary key of the referenced table (or of the
    /// table being created, `forwardPrimaryKey`, for a reference to itself).
    func generate(_ db: Database, originTable: String, forwardPrimaryKey: [ColumnDefinition]?) throws -> Generated {
        let (destinationTable, keyColumns) = try destination(db, originTable: originTable, forwardPrimaryKey: forwardPrimaryKey)
        guard let keyColumns else {
            // A hidden rowid.
            let column = ColumnDefinition(name: name + "Id", type: .integer)
                .references(destinationTable, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
            refine(column)
            return Generated(columns: [column])
        }
        let names = keyColumns.map { name + $0.name.prefix(1).uppercased() + $0.name.dropFirst() }
        if keyColumns.count == 1 {
            let column = ColumnDefinition(name: names[0], type: keyColumns[0].type)
                .references(destinationTable, column: keyColumns[0].name, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
            refine(column)
            return Generated(columns: [column])
        }
        let columns = zip(keyColumns, names).map { keyColumn, name in
            let column = ColumnDefinition(name: name, type: keyColumn.type)
            if let notNullConflictResolution { column.notNull(onConflict: notNullConflictResolution) }
            return column
        }
        return Generated(
            columns: columns, tableConstraint: (names, destinationTable),
            compositeIndex: indexing.map { $0 == .unique })
    }

    private func refine(_ column: ColumnDefinition) {
        if let notNullConflictResolution { column.notNull(onConflict: notNullConflictResolution) }
        switch indexing {
        case nil: break
        case .index: column.indexed()
        case .unique: column.unique()
        }
    }

    /// The referenced table and its primary key columns (nil for a hidden rowid).
    private func destination(_ db: Database, originTable: String, forwardPrimaryKey: [ColumnDefinition]?) throws
        -> (String, [(name: String, type: Database.ColumnType?)]?)
    {
        let isSelfReference: Bool
        if let table {
            isSelfReference = table.lowercased() == originTable.lowercased()
        } else {
            isSelfReference = originTable.singularized.lowercased() == name.singularized.lowercased()
        }
        if isSelfReference {
            return (table ?? originTable, forwardPrimaryKey.map { $0.map { ($0.name, $0.type) } })
        }
        let destinationTable: String
        if let table {
            destinationTable = table
        } else if try db.tableExists(name) {
            destinationTable = name
        } else if try db.tableExists(name.pluralized) {
            destinationTable = name.pluralized
        } else {
            throw DatabaseError.noSuchTable(name)
        }
        let primaryKey = try db.primaryKey(destinationTable)
        if primaryKey.isRowID && primaryKey.rowIDColumn == nil { return (destinationTable, nil) }
        let infos = try db.columns(in: destinationTable)
        let columns = primaryKey.columns.map { column in
            (name: column, type: infos.first { $0.name.lowercased() == column.lowercased() }?.columnType)
        }
        return (destinationTable, columns)
    }
}

// A mutable builder, used on the thread that defines the table.
@available(*, unavailable)
extension ForeignKeyDefinition: Sendable {}
