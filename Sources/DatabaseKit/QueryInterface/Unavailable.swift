// GRDB names that DatabaseKit does not have yet: each is declared
// unavailable, so that GRDB code gets a compiler error that says why and
// where to look, rather than "cannot find 'ValueObservation' in scope".
// Compatibility.md lists them. The bodies can never run (the compiler refuses
// every call); they return a value of the type rather than trap.

// MARK: - Observation

@available(*, unavailable, message: "SharedValueObservation is not in DatabaseKit (see Compatibility.md): start one ValueObservation per consumer")
public struct SharedValueObservation<Element> {}

// MARK: - Associations

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL, split rows with splittingRowAdapters")
public protocol Association {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL, split rows with splittingRowAdapters")
public protocol AssociationToMany {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL, split rows with splittingRowAdapters")
public protocol JoinableRequest {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct BelongsToAssociation<Origin, Destination> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct HasManyAssociation<Origin, Destination> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct HasOneAssociation<Origin, Destination> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct HasManyThroughAssociation<Origin, Destination> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct HasOneThroughAssociation<Origin, Destination> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): aggregate in SQL")
public struct AssociationAggregate<RowDecoder> {}

@available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
public struct ForeignKey {}

extension TableRecord {
    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func belongsTo<Destination>(_ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> BelongsToAssociation<Self, Destination>
    {
        BelongsToAssociation()
    }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func hasMany<Destination>(_ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasManyAssociation<Self, Destination>
    {
        HasManyAssociation()
    }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func hasOne<Destination>(_ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasOneAssociation<Self, Destination>
    {
        HasOneAssociation()
    }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func including<A>(all association: A) -> QueryInterfaceRequest<Self> { all() }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func including<A>(optional association: A) -> QueryInterfaceRequest<Self> { all() }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func including<A>(required association: A) -> QueryInterfaceRequest<Self> { all() }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func joining<A>(optional association: A) -> QueryInterfaceRequest<Self> { all() }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public static func joining<A>(required association: A) -> QueryInterfaceRequest<Self> { all() }

    @available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): use MATCH in SQL")
    public static func matching<P>(_ pattern: P?) -> QueryInterfaceRequest<Self> { all() }
}

extension QueryInterfaceRequest {
    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func including<A>(all association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func including<A>(optional association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func including<A>(required association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func joining<A>(optional association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func joining<A>(required association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func annotated<A>(withOptional association: A) -> Self { self }

    @available(*, unavailable, message: "associations are not in DatabaseKit yet (see Compatibility.md): join in SQL")
    public func annotated<A>(withRequired association: A) -> Self { self }

    @available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): use MATCH in SQL")
    public func matching<P>(_ pattern: P?) -> Self { self }
}

// MARK: - Full-text search, JSON columns

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts5 in SQL")
public struct FTS3 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts4 in SQL")
public struct FTS4 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts5 in SQL")
public struct FTS5 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): write the MATCH pattern in SQL")
public struct FTS3Pattern {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): write the MATCH pattern in SQL")
public struct FTS5Pattern {}

@available(*, unavailable, message: "virtual table modules are not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE in SQL")
public protocol VirtualTableModule {}

@available(*, unavailable, message: "JSONColumn is not in DatabaseKit (see Compatibility.md): use SQLite's json functions in SQL")
public struct JSONColumn {}
