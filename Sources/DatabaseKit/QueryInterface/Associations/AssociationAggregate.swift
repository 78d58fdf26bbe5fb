extension AssociationToMany {
    /// The key name in the singular: "book" for `hasMany(Book.self)`.
    private var singularKey: String { _sqlAssociation.destination.key.name(singular: true) }

    private func aggregate(_ expression: SQLExpression) -> AssociationAggregate<OriginRowDecoder> {
        AssociationAggregate(associations: [_sqlAssociation]) { aliases in expression.qualified(with: .alias(aliases[0])) }
    }

    private func aggregate(_ function: String, _ expression: some SQLSpecificExpressible, key: (String, String) -> String)
        -> AssociationAggregate<OriginRowDecoder>
    {
        let result = aggregate(.function(function, [expression.sqlExpression]))
        guard let column = expression as? any ColumnExpression else { return result }
        return result.forKey(key(singularKey, column.name))
    }

    /// The number of associated records: `Author.books.count`, annotated
    /// as "bookCount".
    ///
    /// ```swift
    /// // SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount"
    /// // FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id"
    /// // GROUP BY "author"."id"
    /// let request = Author.annotated(with: Author.books.count)
    /// ```
    public var count: AssociationAggregate<OriginRowDecoder> {
        aggregate(.aggregate("COUNT", [SQLExpression(.fastPrimaryKey(nil))], distinct: true)).forKey("\(singularKey)Count")
    }

    /// True when there is no associated record: `Author.having(Author.books.isEmpty)`,
    /// annotated as "hasNoBook".
    public var isEmpty: AssociationAggregate<OriginRowDecoder> {
        aggregate(SQLExpression(.isEmpty(.aggregate("COUNT", [SQLExpression(.fastPrimaryKey(nil))], distinct: true), negated: false)))
            .forKey("hasNo\(singularKey.capitalizingFirstLetter)")
    }

    /// The average of an expression over the associated records, annotated
    /// as "averageBookPrice" for a column.
    public func average(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate("AVG", expression) { "average\($0.capitalizingFirstLetter)\($1.capitalizingFirstLetter)" }
    }

    /// The largest value of an expression over the associated records,
    /// annotated as "maxBookYear" for a column.
    public func max(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate("MAX", expression) { "max\($0.capitalizingFirstLetter)\($1.capitalizingFirstLetter)" }
    }

    /// The smallest value of an expression over the associated records,
    /// annotated as "minBookYear" for a column.
    public func min(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate("MIN", expression) { "min\($0.capitalizingFirstLetter)\($1.capitalizingFirstLetter)" }
    }

    /// The sum of an expression over the associated records (`SUM`: NULL
    /// without any), annotated as "bookPriceSum" for a column.
    public func sum(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate("SUM", expression) { "\($0)\($1.capitalizingFirstLetter)Sum" }
    }

    /// The sum of an expression over the associated records (`TOTAL`: 0.0
    /// without any), annotated as "bookPriceSum" for a column.
    public func total(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate("TOTAL", expression) { "\($0)\($1.capitalizingFirstLetter)Sum" }
    }
}

extension AssociationToMany where RowDecoder: TableRecord {
    /// The average of a column of the record's components.
    public func average(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    { try average(expression(RowDecoder.databaseComponents)) }

    /// The largest value of a column of the record's components.
    public func max(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    { try max(expression(RowDecoder.databaseComponents)) }

    /// The smallest value of a column of the record's components.
    public func min(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    { try min(expression(RowDecoder.databaseComponents)) }

    /// The sum (`SUM`) of a column of the record's components.
    public func sum(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    { try sum(expression(RowDecoder.databaseComponents)) }

    /// The sum (`TOTAL`) of a column of the record's components.
    public func total(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
        -> AssociationAggregate<OriginRowDecoder>
    { try total(expression(RowDecoder.databaseComponents)) }
}

extension String {
    fileprivate var capitalizingFirstLetter: String { prefix(1).uppercased() + dropFirst() }
}

/// A value computed over the associated records of each record: a count,
/// an emptiness test, a sum... Annotate a request with it, or filter on it.
///
/// ```swift
/// // Authors with their number of books, those with at least two
/// let request = Author
///     .annotated(with: Author.books.count)
///     .having(Author.books.count >= 2)
/// ```
///
/// Each use joins the association (`LEFT JOIN`) and groups the request by
/// the primary key; aggregates combine with operators.
public struct AssociationAggregate<RowDecoder>: Sendable {
    /// The associations to join, one table alias each.
    let associations: [_SQLAssociation]
    /// The expression, from the aliases of the joined tables.
    let expression: @Sendable ([TableAliasBase]) -> SQLExpression
    /// The name of the annotation.
    var key: String?

    init(associations: [_SQLAssociation], key: String? = nil, expression: @escaping @Sendable ([TableAliasBase]) -> SQLExpression) {
        self.associations = associations
        self.key = key
        self.expression = expression
    }

    /// The aggregate, annotated under another name.
    public func forKey(_ key: String) -> Self {
        var aggregate = self
        aggregate.key = key
        return aggregate
    }

    /// The aggregate, annotated under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> Self { forKey(key.stringValue) }

    /// Joins the associations to `request`, groups it, and gives the
    /// expression, its columns in the joined tables. Fresh aliases each
    /// time: an aggregate can serve several requests.
    func prepare<Request: JoinableRequest & AggregatingRequest & TableRequest>(_ request: inout Request) -> SQLExpression {
        var aliases: [TableAliasBase] = []
        for association in associations {
            let alias = TableAliasBase()
            var aliased = association
            aliased.destination.relation = association.destination.relation.aliased(alias)
            // `_joining` selects nothing of the joined table.
            request = request._joining(optional: aliased)
            aliases.append(alias)
        }
        request = request.groupByPrimaryKey()
        return expression(aliases)
    }

    /// A new aggregate from this one's expression.
    func map(_ transform: @escaping @Sendable (SQLExpression) -> SQLExpression) -> Self {
        let expression = self.expression
        return AssociationAggregate(associations: associations) { transform(expression($0)) }
    }

    /// A new aggregate from two, joining the associations of both.
    static func combine(_ lhs: Self, _ rhs: Self, _ combine: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let split = lhs.associations.count
        let (left, right) = (lhs.expression, rhs.expression)
        return AssociationAggregate(associations: lhs.associations + rhs.associations) { aliases in
            combine(left(Array(aliases[..<split])), right(Array(aliases[split...])))
        }
    }
}

// MARK: - Requests

extension JoinableRequest where Self: AggregatingRequest & TableRequest & SelectionRequest {
    /// The request with aggregates over associated records in its selection.
    ///
    /// ```swift
    /// struct AuthorInfo: Decodable, FetchableRecord {
    ///     var author: Author
    ///     var bookCount: Int
    /// }
    /// let infos = try Author.annotated(with: Author.books.count).asRequest(of: AuthorInfo.self).fetchAll(db)
    /// ```
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> Self {
        annotated(with: aggregates)
    }

    /// The request with aggregates over associated records in its selection.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> Self {
        var request = self
        for aggregate in aggregates {
            let expression = aggregate.prepare(&request)
            let selection = aggregate.key.map { expression.forKey($0) } ?? expression.sqlSelection
            request = request.annotatedWhenConnected { _ in [selection] }
        }
        return request
    }

    /// The request keeping the rows for which the aggregate is true: `Author.having(Author.books.isEmpty)`.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> Self {
        var request = self
        let expression = predicate.prepare(&request)
        return request.havingWhenConnected { _ in expression }
    }
}

extension TableRecord {
    /// All records, with aggregates over associated records in their selection.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// All records, with aggregates over associated records in their selection.
    public static func annotated(with aggregates: [AssociationAggregate<Self>]) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// The records for which the aggregate is true.
    public static func having(_ predicate: AssociationAggregate<Self>) -> QueryInterfaceRequest<Self> {
        all().having(predicate)
    }
}

// MARK: - Operators

extension AssociationAggregate {
    public static prefix func ! (aggregate: Self) -> Self { aggregate.map { !$0 } }
    public static func && (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 && $1 } }
    public static func && (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 && rhs } }
    public static func && (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs && $0 } }
    public static func || (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 || $1 } }
    public static func || (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 || rhs } }
    public static func || (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs || $0 } }

    public static func == (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 == $1 } }
    public static func == (lhs: Self, rhs: (any SQLExpressible & Sendable)?) -> Self { lhs.map { $0 == rhs } }
    public static func == (lhs: (any SQLExpressible & Sendable)?, rhs: Self) -> Self { rhs.map { lhs == $0 } }
    public static func == (lhs: Self, rhs: Bool) -> Self { lhs.map { $0 == rhs } }
    public static func == (lhs: Bool, rhs: Self) -> Self { rhs.map { lhs == $0 } }
    public static func != (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 != $1 } }
    public static func != (lhs: Self, rhs: (any SQLExpressible & Sendable)?) -> Self { lhs.map { $0 != rhs } }
    public static func != (lhs: (any SQLExpressible & Sendable)?, rhs: Self) -> Self { rhs.map { lhs != $0 } }
    public static func != (lhs: Self, rhs: Bool) -> Self { lhs.map { $0 != rhs } }
    public static func != (lhs: Bool, rhs: Self) -> Self { rhs.map { lhs != $0 } }
    public static func === (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 === $1 } }
    public static func === (lhs: Self, rhs: (any SQLExpressible & Sendable)?) -> Self { lhs.map { $0 === rhs } }
    public static func === (lhs: (any SQLExpressible & Sendable)?, rhs: Self) -> Self { rhs.map { lhs === $0 } }
    public static func !== (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 !== $1 } }
    public static func !== (lhs: Self, rhs: (any SQLExpressible & Sendable)?) -> Self { lhs.map { $0 !== rhs } }
    public static func !== (lhs: (any SQLExpressible & Sendable)?, rhs: Self) -> Self { rhs.map { lhs !== $0 } }

    public static func < (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 < $1 } }
    public static func < (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 < rhs } }
    public static func < (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs < $0 } }
    public static func <= (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 <= $1 } }
    public static func <= (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 <= rhs } }
    public static func <= (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs <= $0 } }
    public static func > (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 > $1 } }
    public static func > (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 > rhs } }
    public static func > (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs > $0 } }
    public static func >= (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 >= $1 } }
    public static func >= (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 >= rhs } }
    public static func >= (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs >= $0 } }

    public static prefix func - (aggregate: Self) -> Self { aggregate.map { -$0 } }
    public static func + (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 + $1 } }
    public static func + (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 + rhs } }
    public static func + (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs + $0 } }
    public static func - (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 - $1 } }
    public static func - (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 - rhs } }
    public static func - (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs - $0 } }
    public static func * (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 * $1 } }
    public static func * (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 * rhs } }
    public static func * (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs * $0 } }
    public static func / (lhs: Self, rhs: Self) -> Self { combine(lhs, rhs) { $0 / $1 } }
    public static func / (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self { lhs.map { $0 / rhs } }
    public static func / (lhs: some SQLExpressible & Sendable, rhs: Self) -> Self { rhs.map { lhs / $0 } }

    /// The aggregate, or a default value when it is NULL: `Author.books.sum(Column("price")) ?? 0`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible & Sendable) -> Self {
        let key = lhs.key
        var result = lhs.map { .function("IFNULL", [$0, rhs.sqlExpression]) }
        result.key = key
        return result
    }
}

// MARK: - Functions

/// The `ABS` SQL function of an aggregate: `abs(Team.players.sum(Column("score")))`.
public func abs<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { abs($0) }
}

/// The `CAST` SQL expression of an aggregate; it keeps the aggregate's key.
public func cast<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>, as storageClass: Database.StorageClass)
    -> AssociationAggregate<RowDecoder>
{
    var result = aggregate.map { cast($0, as: storageClass) }
    result.key = aggregate.key
    return result
}

/// The `LENGTH` SQL function of an aggregate.
public func length<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { length($0) }
}
