/// A link between two record types, declared once and used by requests to
/// join or fetch the associated records.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
/// }
/// struct Author: TableRecord {
///     static let books = hasMany(Book.self)
/// }
/// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// let request = Book.including(required: Book.author)
/// ```
///
/// An association is a request on its destination: filter, order, select
/// and nest other associations in it like in any request.
public protocol Association: DerivableRequest, JoinableRequest, Sendable {
    /// The record type the association starts from.
    associatedtype OriginRowDecoder

    /// The tables the association goes through, and their requests.
    var _sqlAssociation: _SQLAssociation { get set }

    /// The association decoded under another key: the name of the
    /// property of the record that decodes it.
    func forKey(_ key: String) -> Self
}

/// An association that gives at most one record: `belongsTo`, `hasOne`.
public protocol AssociationToOne: Association {}

/// An association that gives any number of records: `hasMany`, and
/// indirect associations through one.
public protocol AssociationToMany: Association {}

extension Association {
    /// The association with its destination request changed: every
    /// derivation of a request applies to an association this way.
    func mapDestination(_ transform: (QueryInterfaceRequest<RowDecoder>) -> QueryInterfaceRequest<RowDecoder>) -> Self {
        var association = self
        let request = QueryInterfaceRequest<RowDecoder>(relation: _sqlAssociation.destination.relation)
        association._sqlAssociation.destination.relation = transform(request).relation
        return association
    }

    /// The association decoded under the name of a coding key.
    public func forKey(_ codingKey: some CodingKey) -> Self {
        forKey(codingKey.stringValue)
    }

    /// The association whose table is known by `alias` in the request, for
    /// filters and orderings that refer to its columns.
    ///
    /// ```swift
    /// let authorAlias = TableAlias<Author>()
    /// let request = Book
    ///     .joining(required: Book.author.aliased(authorAlias))
    ///     .order(authorAlias[Column("name")])
    /// ```
    public func aliased(_ alias: TableAliasBase) -> Self {
        var association = self
        association._sqlAssociation.destination.relation = _sqlAssociation.destination.relation.aliased(alias)
        return association
    }
}

extension AssociationToOne {
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation.destination.key = .fixedSingular(key)
        return association
    }
}

extension AssociationToMany {
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation.destination.key = .fixedPlural(key)
        return association
    }
}

// MARK: - Derivation

extension Association {
    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination { $0.selectWhenConnected(selection) }
    }

    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination { $0.annotatedWhenConnected(with: selection) }
    }

    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.filterWhenConnected(predicate) }
    }

    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        mapDestination { $0.orderWhenConnected(orderings) }
    }

    public func reversed() -> Self { mapDestination { $0.reversed() } }

    public func unordered() -> Self { mapDestination { $0.unordered() } }

    public func withStableOrder() -> Self { mapDestination { $0.withStableOrder() } }

    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        mapDestination { $0.groupWhenConnected(expressions) }
    }

    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.havingWhenConnected(predicate) }
    }

    public var databaseTableName: String { _sqlAssociation.destination.relation.source }

    public func distinct() -> Self { mapDestination { $0.distinct() } }

    public func with<T>(_ cte: CommonTableExpression<T>) -> Self { mapDestination { $0.with(cte) } }
}

// MARK: - Concrete associations

/// The association of a record to the record its foreign key refers to:
/// a book belongs to its author. See ``TableRecord/belongsTo(_:key:using:)-(Destination.Type,_,_)``.
public struct BelongsToAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation
}

/// The association of a record to the one record whose foreign key refers
/// to it: a country has one profile. See ``TableRecord/hasOne(_:key:using:)-(Destination.Type,_,_)``.
public struct HasOneAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation
}

/// The association of a record to the records whose foreign key refers to
/// it: an author has many books. See ``TableRecord/hasMany(_:key:using:)-(Destination.Type,_,_)``.
public struct HasManyAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation
}

/// A to-one association through another one: a book has one country
/// through its author. See ``TableRecord/hasOne(_:through:using:key:)``.
public struct HasOneThroughAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation
}

/// A to-many association through another one: an author has many reviews
/// through their books. See ``TableRecord/hasMany(_:through:using:key:)``.
public struct HasManyThroughAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation
}
