// Associations with `Table` at either end: code that names its tables
// (`Table("author")`) instead of declaring record types defines and joins
// associations as record types do.

extension Table {
    /// The relation of this table: all its columns.
    var relationForAll: SQLRelation { SQLRelation(source: tableName) }

    /// The record of `destination` this table's foreign key refers to.
    ///
    /// ```swift
    /// let books = Table("book")
    /// let author = books.belongsTo(Author.self)
    /// ```
    public func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(
            _sqlAssociation: .belongsTo(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The one record of `destination` whose foreign key refers to this table.
    public func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(
            _sqlAssociation: .hasOne(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The records of `destination` whose foreign key refers to this table.
    public func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(
            _sqlAssociation: .hasMany(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The row of the table `destination` this table's foreign key refers to.
    ///
    /// ```swift
    /// let author = Table("book").belongsTo(Table("author"))
    /// ```
    public func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(
            _sqlAssociation: .belongsTo(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }

    /// The one row of the table `destination` whose foreign key refers to this table.
    public func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(
            _sqlAssociation: .hasOne(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }

    /// The rows of the table `destination` whose foreign key refers to this table.
    public func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(
            _sqlAssociation: .hasMany(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }

    /// The records of `target`, reached through `pivot`.
    public func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        HasManyThroughAssociation(_sqlAssociation: .through(pivot, using: target, key: key.map { .fixedPlural($0) }))
    }

    /// The record of `target`, reached through `pivot`.
    public func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        HasOneThroughAssociation(_sqlAssociation: .through(pivot, using: target, key: key.map { .fixedSingular($0) }))
    }
}

extension TableRecord {
    /// The row of the table `destination` this record's foreign key refers to.
    public static func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(
            _sqlAssociation: .belongsTo(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }

    /// The one row of the table `destination` whose foreign key refers to this record.
    public static func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(
            _sqlAssociation: .hasOne(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }

    /// The rows of the table `destination` whose foreign key refers to this record.
    public static func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(
            _sqlAssociation: .hasMany(destination.tableName, destination.relationForAll, key: key, foreignKey))
    }
}

// MARK: - Joining from a table

extension Table {
    /// All rows, with all the associated rows of each.
    public func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(all: association)
    }

    /// All rows, with the associated row joined (`LEFT JOIN`).
    public func including<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(optional: association)
    }

    /// The rows that have an associated row, with it (`JOIN`).
    public func including<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(required: association)
    }

    /// All rows, joined to the associated row (`LEFT JOIN`), selecting nothing of it.
    public func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().joining(optional: association)
    }

    /// The rows that have an associated row (`JOIN`), selecting nothing of it.
    public func joining<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().joining(required: association)
    }

    /// All rows, with the selection of the associated row (`LEFT JOIN`).
    public func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().annotated(withOptional: association)
    }

    /// The rows that have an associated row, with its selection (`JOIN`).
    public func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().annotated(withRequired: association)
    }

    /// All rows, with aggregates over associated rows in their selection.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// All rows, with aggregates over associated rows in their selection.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// The rows for which the aggregate is true.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> {
        all().having(predicate)
    }

    /// All rows, the table known by `alias` in the request.
    public func aliased(_ alias: TableAliasBase) -> QueryInterfaceRequest<RowDecoder> {
        all().aliased(alias)
    }
}
