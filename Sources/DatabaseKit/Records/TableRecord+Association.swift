extension TableRecord {
    /// The record its foreign key refers to: a book belongs to its author.
    ///
    /// ```swift
    /// struct Book: TableRecord {
    ///     static let author = belongsTo(Author.self)
    /// }
    /// ```
    ///
    /// The foreign key is read from the schema; give `foreignKey` when the
    /// table has none, or several to the destination. The key, the name the
    /// associated record decodes under, is the singular of the destination
    /// table name unless given.
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    )
        -> BelongsToAssociation<Self, Destination>
    {
        BelongsToAssociation(
            _sqlAssociation: .belongsTo(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The one record whose foreign key refers to this one: a country has
    /// one profile.
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    )
        -> HasOneAssociation<Self, Destination>
    {
        HasOneAssociation(
            _sqlAssociation: .hasOne(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The records whose foreign key refers to this one: an author has many
    /// books. They decode under the plural of the destination table name
    /// unless `key` is given.
    ///
    /// ```swift
    /// struct Author: TableRecord {
    ///     static let books = hasMany(Book.self)
    /// }
    /// ```
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    )
        -> HasManyAssociation<Self, Destination>
    {
        HasManyAssociation(
            _sqlAssociation: .hasMany(Destination.databaseTableName, .all(Destination.self), key: key, foreignKey))
    }

    /// The records of `target`, reached through `pivot`: an author has many
    /// reviews through their books.
    ///
    /// ```swift
    /// struct Author: TableRecord {
    ///     static let books = hasMany(Book.self)
    ///     static let reviews = hasMany(Review.self, through: books, using: Book.reviews)
    /// }
    /// ```
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        HasManyThroughAssociation(_sqlAssociation: .through(pivot, using: target, key: key.map { .fixedPlural($0) }))
    }

    /// The record of `target`, reached through `pivot`: a book has one
    /// country through its author.
    public static func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        HasOneThroughAssociation(_sqlAssociation: .through(pivot, using: target, key: key.map { .fixedSingular($0) }))
    }

}

extension _SQLAssociation {
    /// To the row a foreign key of the origin refers to, in `table` (whose
    /// rows `relation` selects); decoded under `key`, else the singular of
    /// the table name.
    static func belongsTo(_ table: String, _ relation: SQLRelation, key: String?, _ foreignKey: ForeignKey?) -> _SQLAssociation {
        direct(table, relation, key: key.map { .fixedSingular($0) }, foreignKey, originIsLeft: true, toOne: true)
    }

    /// To the one row of `table` whose foreign key refers to the origin.
    static func hasOne(_ table: String, _ relation: SQLRelation, key: String?, _ foreignKey: ForeignKey?) -> _SQLAssociation {
        direct(table, relation, key: key.map { .fixedSingular($0) }, foreignKey, originIsLeft: false, toOne: true)
    }

    /// To the rows of `table` whose foreign key refers to the origin;
    /// decoded under `key`, else the plural of the table name.
    static func hasMany(_ table: String, _ relation: SQLRelation, key: String?, _ foreignKey: ForeignKey?) -> _SQLAssociation {
        direct(table, relation, key: key.map { .fixedPlural($0) }, foreignKey, originIsLeft: false, toOne: false)
    }

    /// To the destination of `target`, reached through `pivot`; under `key`
    /// when given.
    static func through(_ pivot: some Association, using target: some Association, key: AssociationKey?) -> _SQLAssociation {
        var association = target._sqlAssociation.through(pivot._sqlAssociation)
        if let key { association.destination.key = key }
        return association
    }

    /// One step from an origin to the table `table`.
    private static func direct(
        _ table: String, _ relation: SQLRelation, key: AssociationKey?, _ foreignKey: ForeignKey?, originIsLeft: Bool, toOne: Bool
    ) -> _SQLAssociation {
        let step = AssociationStep(
            key: key ?? .inflected(table),
            condition: AssociationCondition(destinationTable: table, foreignKey: foreignKey, originIsLeft: originIsLeft),
            relation: relation, isToOne: toOne)
        return _SQLAssociation(steps: [step])
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The request of this record's associated records.
    ///
    /// ```swift
    /// let books = try author.request(for: Author.books).fetchAll(db)
    /// ```
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder> where A.OriginRowDecoder == Self {
        // Encode now, throw when the request runs: the request itself is
        // not throwing (`var books: QueryInterfaceRequest<Book>`).
        let container = Result { try databaseContainer() }
        let condition = association._sqlAssociation.pivot.condition
        let originTable = Self.databaseTableName
        var sqlAssociation = association._sqlAssociation
        sqlAssociation.pivot.relation.filters.append(
            .expression(
                .deferred { db in
                    let values = try container.get()
                    let mapping = try condition.joinMapping(db, from: originTable)
                    return pivotFilter(mapping, leftRows: [{ values[$0]?.databaseValue ?? .null }])
                }))
        return QueryInterfaceRequest(relation: sqlAssociation.destinationRelation())
    }
}

/// The filter of a pivot on the values of origin rows: `"authorId" IN (1, 2)`
/// for one column (NULL matches nothing), `("a" = 1 AND "b" = 2) OR ...` for
/// several. Each origin row is a lookup of its values by column name.
func pivotFilter(_ mapping: JoinMapping, leftRows: [(String) -> DatabaseValue]) -> SQLExpression {
    guard let first = mapping.first else { return true.sqlExpression }
    if mapping.count == 1 {
        var values = Set<DatabaseValue>()
        for row in leftRows {
            let value = row(first.left)
            if !value.isNull { values.insert(value) }
        }
        return pivotFilter(first, sortedValues: values.sorted(by: databaseValueOrder))
    }
    let alternatives = leftRows.compactMap { row -> SQLExpression? in
        var conditions: [SQLExpression] = []
        for pair in mapping {
            let value = row(pair.left)
            if value.isNull { return nil }
            conditions.append(.equal(Column(pair.right).sqlExpression, value.sqlExpression))
        }
        return .associative(.and, conditions)
    }
    return .associative(.or, alternatives)
}

/// The filter of a single-column pivot on the values of origin rows, sorted
/// (``databaseValueOrder(_:_:)``), without NULL: `"authorId" IN (1, 2)`.
func pivotFilter(_ pair: (left: String, right: String), sortedValues: [DatabaseValue]) -> SQLExpression {
    SQLCollection.array(sortedValues.map(\.sqlExpression)).contains(Column(pair.right).sqlExpression)
}

/// SQLite's order of values (numbers, then text, then blobs), which sorts
/// the keys of a prefetch so that its SQL is stable.
func databaseValueOrder(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool {
    func rank(_ value: DatabaseValue) -> Int {
        switch value.storage {
        case .null: 0
        case .int64, .double: 1
        case .string: 2
        case .blob: 3
        }
    }
    switch (lhs.storage, rhs.storage) {
    case let (.int64(a), .int64(b)): return a < b
    case let (.int64(a), .double(b)): return Double(a) < b
    case let (.double(a), .int64(b)): return a < Double(b)
    case let (.double(a), .double(b)): return a < b
    case let (.string(a), .string(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
    case let (.blob(a), .blob(b)): return a.lexicographicallyPrecedes(b)
    default: return rank(lhs) < rank(rhs)
    }
}
