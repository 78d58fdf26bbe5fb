/// A request that can join or prefetch associated records: query
/// interface requests and associations themselves (to nest them).
public protocol JoinableRequest<RowDecoder>: TypedRequest {
    /// The request with the association's records prefetched.
    func _including(all association: _SQLAssociation) -> Self
    /// The request with the association's record joined, NULL when missing.
    func _including(optional association: _SQLAssociation) -> Self
    /// The request with the association's record joined; rows without one are left out.
    func _including(required association: _SQLAssociation) -> Self
    /// The request joined to the association, selecting nothing of it.
    func _joining(optional association: _SQLAssociation) -> Self
    /// The request joined to the association, selecting nothing of it;
    /// rows without one are left out.
    func _joining(required association: _SQLAssociation) -> Self
}

extension JoinableRequest {
    /// The request with all the associated records of each row, fetched
    /// by a second query and decoded under the association's key.
    ///
    /// ```swift
    /// struct AuthorInfo: Decodable, FetchableRecord {
    ///     var author: Author
    ///     var books: [Book]
    /// }
    /// let infos = try Author.including(all: Author.books).asRequest(of: AuthorInfo.self).fetchAll(db)
    /// ```
    public func including<A: AssociationToMany>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(all: association._sqlAssociation)
    }

    /// The request with the associated record joined (`LEFT JOIN`): its
    /// columns decode under the association's key, all NULL when missing.
    public func including<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(optional: association._sqlAssociation)
    }

    /// The request with the associated record joined (`JOIN`): rows
    /// without one are left out.
    ///
    /// ```swift
    /// struct BookInfo: Decodable, FetchableRecord {
    ///     var book: Book
    ///     var author: Author
    /// }
    /// let infos = try Book.including(required: Book.author).asRequest(of: BookInfo.self).fetchAll(db)
    /// ```
    public func including<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(required: association._sqlAssociation)
    }

    /// The request joined to the associated record (`LEFT JOIN`), for
    /// filters and orderings on its columns; nothing of it is selected.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(optional: association._sqlAssociation)
    }

    /// The request joined to the associated record (`JOIN`), keeping the
    /// rows that have one; nothing of it is selected.
    ///
    /// ```swift
    /// // Books whose author is French
    /// let request = Book.joining(required: Book.author.filter(Column("country") == "FR"))
    /// ```
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(required: association._sqlAssociation)
    }
}

extension JoinableRequest where Self: SelectionRequest {
    /// The request with the selection of the associated record added to its
    /// own columns (`LEFT JOIN`): `Book.annotated(withOptional: Book.author.select(Column("name").forKey("authorName")))`.
    public func annotated<A: Association>(withOptional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        let (joined, selection) = Self.annotation(association)
        return _joining(optional: joined).annotatedWhenConnected(with: selection)
    }

    /// The request with the selection of the associated record added to its
    /// own columns (`JOIN`): rows without one are left out.
    public func annotated<A: Association>(withRequired association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        let (joined, selection) = Self.annotation(association)
        return _joining(required: joined).annotatedWhenConnected(with: selection)
    }

    private static func annotation<A: Association>(_ association: A)
        -> (_SQLAssociation, @Sendable (Database) throws -> [any SQLSelectable])
    {
        let alias = TableAliasBase()
        let aliased = association.aliased(alias)._sqlAssociation
        let relation = aliased.destination.relation
        return (aliased, { db in try relation.resolvedSelection(db).map { $0.qualified(with: .alias(alias)) } })
    }
}

// MARK: - Query interface requests

extension QueryInterfaceRequest: JoinableRequest {
    public func _including(all association: _SQLAssociation) -> Self {
        QueryInterfaceRequest(relation: relation.appendingChild(for: association, kind: .all))
    }

    public func _including(optional association: _SQLAssociation) -> Self {
        QueryInterfaceRequest(relation: relation.appendingChild(for: association, kind: .oneOptional))
    }

    public func _including(required association: _SQLAssociation) -> Self {
        QueryInterfaceRequest(relation: relation.appendingChild(for: association, kind: .oneRequired))
    }

    public func _joining(optional association: _SQLAssociation) -> Self {
        QueryInterfaceRequest(relation: relation.appendingChild(for: association.selectingNothing(), kind: .oneOptional))
    }

    public func _joining(required association: _SQLAssociation) -> Self {
        QueryInterfaceRequest(relation: relation.appendingChild(for: association.selectingNothing(), kind: .oneRequired))
    }

    /// The request whose table is known by `alias`, for filters that refer
    /// to its columns from an association or a subquery.
    ///
    /// ```swift
    /// let bookAlias = TableAlias<Book>()
    /// let request = Book.aliased(bookAlias)
    ///     .joining(required: Book.author.filter(Column("birthYear") < bookAlias[Column("year")] - 30))
    /// ```
    public func aliased(_ alias: TableAliasBase) -> Self {
        QueryInterfaceRequest(relation: relation.aliased(alias))
    }
}

extension _SQLAssociation {
    /// The association selecting nothing of its destination (`joining`).
    func selectingNothing() -> _SQLAssociation {
        var association = self
        association.destination.relation = destination.relation.selectingNothing()
        return association
    }
}

// MARK: - Associations

extension Association {
    private func mapRelation(_ transform: (SQLRelation) -> SQLRelation) -> Self {
        var association = self
        association._sqlAssociation.destination.relation = transform(_sqlAssociation.destination.relation)
        return association
    }

    public func _including(all association: _SQLAssociation) -> Self {
        mapRelation { $0.appendingChild(for: association, kind: .all) }
    }

    public func _including(optional association: _SQLAssociation) -> Self {
        mapRelation { $0.appendingChild(for: association, kind: .oneOptional) }
    }

    public func _including(required association: _SQLAssociation) -> Self {
        mapRelation { $0.appendingChild(for: association, kind: .oneRequired) }
    }

    public func _joining(optional association: _SQLAssociation) -> Self {
        mapRelation { $0.appendingChild(for: association.selectingNothing(), kind: .oneOptional) }
    }

    public func _joining(required association: _SQLAssociation) -> Self {
        mapRelation { $0.appendingChild(for: association.selectingNothing(), kind: .oneRequired) }
    }
}

// MARK: - Record types

extension TableRecord {
    /// All records, with all the associated records of each.
    public static func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(all: association)
    }

    /// All records, with the associated record joined (`LEFT JOIN`).
    public static func including<A: Association>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(optional: association)
    }

    /// The records that have an associated record, with it (`JOIN`).
    public static func including<A: Association>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(required: association)
    }

    /// All records, joined to the associated record (`LEFT JOIN`), selecting nothing of it.
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(optional: association)
    }

    /// The records that have an associated record (`JOIN`), selecting nothing of it.
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(required: association)
    }

    /// All records, with the selection of the associated record (`LEFT JOIN`).
    public static func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().annotated(withOptional: association)
    }

    /// The records that have an associated record, with its selection (`JOIN`).
    public static func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().annotated(withRequired: association)
    }

    /// All records, their table known by `alias` in the request.
    public static func aliased(_ alias: TableAliasBase) -> QueryInterfaceRequest<Self> {
        all().aliased(alias)
    }
}
