/// The columns that link two tables of an association, when the schema's
/// foreign keys do not say it alone (no foreign key, or several to the
/// same table).
///
/// ```swift
/// struct Book: TableRecord {
///     static let authorForeignKey = ForeignKey(["authorId"])
///     static let translatorForeignKey = ForeignKey(["translatorId"])
///     static let author = belongsTo(Person.self, using: authorForeignKey)
///     static let translator = belongsTo(Person.self, using: translatorForeignKey)
/// }
/// ```
public struct ForeignKey: Equatable, Sendable {
    var originColumns: [String]
    var destinationColumns: [String]?

    /// The columns of the table that holds the foreign key, and the columns
    /// they refer to (the primary key of the other table when nil).
    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }

    /// The columns of the table that holds the foreign key, and the columns
    /// they refer to (the primary key of the other table when nil).
    public init(_ originColumns: [any ColumnExpression], to destinationColumns: [any ColumnExpression]? = nil) {
        self.init(originColumns.map(\.name), to: destinationColumns?.map(\.name))
    }

    public static func == (lhs: ForeignKey, rhs: ForeignKey) -> Bool {
        lhs.originColumns == rhs.originColumns && lhs.destinationColumns == rhs.destinationColumns
    }
}

/// Pairs of columns that join two tables: `left.column = right.column`.
typealias JoinMapping = [(left: String, right: String)]

/// How the rows of two tables of an association match: through a foreign
/// key, read from the schema or given.
struct AssociationCondition: Sendable, Equatable {
    /// The table the association leads to.
    var destinationTable: String
    var foreignKey: ForeignKey?
    /// True when the origin of the association holds the foreign key
    /// (`belongsTo`), false when the destination does (`hasMany`, `hasOne`).
    var originIsLeft: Bool

    /// The same condition, seen from the other table.
    func reversed(to destinationTable: String) -> AssociationCondition {
        AssociationCondition(destinationTable: destinationTable, foreignKey: foreignKey, originIsLeft: !originIsLeft)
    }

    /// The columns of `originTable` (left) and of the destination (right)
    /// that match.
    func joinMapping(_ db: Database, from originTable: String) throws -> JoinMapping {
        let (keyOrigin, keyDestination) = originIsLeft ? (originTable, destinationTable) : (destinationTable, originTable)
        let mapping = try Self.foreignKeyMapping(db, origin: keyOrigin, destination: keyDestination, foreignKey: foreignKey)
        return mapping.map { originIsLeft ? (left: $0.origin, right: $0.destination) : (left: $0.destination, right: $0.origin) }
    }

    /// `right.b = left.a AND ...`, as GRDB writes the `ON` clause.
    func joinExpression(_ db: Database, left: TableAliasBase, leftTable: String, right: TableAliasBase) throws -> SQLExpression? {
        let mapping = try joinMapping(db, from: leftTable)
        if mapping.isEmpty { return nil }
        return .associative(.and, mapping.map { SQLExpression.compare(.equal, right[$0.right], left[$0.left]) })
    }

    /// The columns of the foreign key from `origin` to `destination`: the
    /// given ones, or the one foreign key of the schema that fits.
    private static func foreignKeyMapping(_ db: Database, origin: String, destination: String, foreignKey: ForeignKey?)
        throws -> [(origin: String, destination: String)]
    {
        if let foreignKey, let destinationColumns = foreignKey.destinationColumns {
            guard destinationColumns.count == foreignKey.originColumns.count else {
                throw DatabaseError.misuse(
                    "the foreign key from \(origin) to \(destination) has \(foreignKey.originColumns.count) columns for \(destinationColumns.count)"
                )
            }
            return Array(zip(foreignKey.originColumns, destinationColumns)).map { (origin: $0.0, destination: $0.1) }
        }
        if try db.tableExists(origin) {
            let candidates = try db.foreignKeys(on: origin).filter { key in
                guard key.destinationTable.lowercased() == destination.lowercased() else { return false }
                if let columns = foreignKey?.originColumns {
                    return Set(columns.map { $0.lowercased() }) == Set(key.mapping.map { $0.origin.lowercased() })
                }
                return true
            }
            if candidates.count == 1 { return candidates[0].mapping }
            if candidates.count > 1 {
                throw DatabaseError.misuse(
                    "ambiguous foreign key from '\(origin)' to '\(destination)': give the association a ForeignKey (belongsTo(_:using:))")
            }
        } else if foreignKey == nil {
            guard try db.viewExists(origin) else { throw DatabaseError.noSuchTable(origin) }
            throw DatabaseError.misuse(
                "could not infer the foreign key from the view '\(origin)' to '\(destination)': give the association a ForeignKey")
        }
        guard let originColumns = foreignKey?.originColumns else {
            throw DatabaseError.misuse(
                "no foreign key from '\(origin)' to '\(destination)': declare one in the schema, or give the association a ForeignKey")
        }
        // Columns given without a foreign key in the schema: they refer to
        // the destination's primary key.
        let primaryKey = try db.primaryKey(destination).columns
        guard primaryKey.count == originColumns.count else {
            throw DatabaseError.misuse("the foreign key \(originColumns) does not match the primary key \(primaryKey) of '\(destination)'")
        }
        return Array(zip(originColumns, primaryKey)).map { (origin: $0.0, destination: $0.1) }
    }
}
