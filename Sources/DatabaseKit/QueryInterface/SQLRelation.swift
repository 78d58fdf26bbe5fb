/// A value of a request that may need the connection to be known: the
/// primary key a `filter(id:)` compares, the columns of `orderByPrimaryKey()`.
/// Most parts are plain values, which cost no closure.
enum DatabasePromise<Value: Sendable>: Sendable {
    case value(Value)
    case deferred(@Sendable (Database) throws -> Value)

    /// The value; a deferred one needs a connection.
    func resolve(_ db: Database?) throws -> Value {
        switch self {
        case .value(let value): return value
        case .deferred(let make):
            guard let db else { throw DatabaseError.misuse("this request reads the database schema: build its SQL with a connection") }
            return try make(db)
        }
    }
}

/// What a query interface request selects, from which table, filtered,
/// grouped, sorted and limited how: the value its methods derive, and
/// ``SQLQueryGenerator`` renders. Expressions are unqualified: the generator
/// qualifies them with the source's alias when the request joins tables.
struct SQLRelation: Sendable {
    /// The table (or common table expression) the rows come from.
    var source: String
    /// The selection; a `select` replaces it and the annotations.
    var selection: DatabasePromise<[SQLSelection]> {
        didSet { selectsAllColumns = false }
    }
    /// True while the selection is `*`, the one a lookup by primary key of
    /// the record statement cache selects.
    private(set) var selectsAllColumns: Bool
    /// The filters, joined by `AND`.
    var filters: [Filter] = []
    var ordering = Ordering()
    var limit: SQLLimit?

    /// The parts most requests do not have, in one shared box: a request is
    /// copied several times per fetch (each derivation, the fetch itself),
    /// and a copy costs a retain per reference it holds.
    private var rareParts: RareParts?

    /// The alias the application gave the source (`aliased(_:)`), if any.
    var alias: TableAliasBase? {
        get { rareParts?.alias }
        set { changeRareParts { $0.alias = newValue } }
    }
    /// The associated tables: joined (to-one) or prefetched (to-many), by key.
    var children: [SQLRelationChild] {
        get { rareParts?.children ?? [] }
        set { changeRareParts { $0.children = newValue } }
    }
    /// Misuses found while the request was built (two associations under
    /// one key, an alias given to two tables): the fetch throws them, since
    /// deriving a request can not.
    var misuses: [String] {
        get { rareParts?.misuses ?? [] }
        set { changeRareParts { $0.misuses = newValue } }
    }
    /// What `annotated(with:)` added to the selection.
    var annotations: [DatabasePromise<[SQLSelection]>] {
        get { rareParts?.annotations ?? [] }
        set { changeRareParts { $0.annotations = newValue } }
    }
    var grouping: DatabasePromise<[SQLExpression]>? {
        get { rareParts?.grouping }
        set { changeRareParts { $0.grouping = newValue } }
    }
    /// The `HAVING` conditions, joined by `AND`.
    var havings: [DatabasePromise<SQLExpression>] {
        get { rareParts?.havings ?? [] }
        set { changeRareParts { $0.havings = newValue } }
    }
    var isDistinct: Bool {
        get { rareParts?.isDistinct ?? false }
        set { changeRareParts { $0.isDistinct = newValue } }
    }
    /// The common table expressions of the `WITH` clause, in order, one per name.
    var ctes: [SQLCTE] {
        get { rareParts?.ctes ?? [] }
        set { changeRareParts { $0.ctes = newValue } }
    }

    /// Changes the rare parts, copying the box first when another relation
    /// shares it: relations stay values.
    private mutating func changeRareParts(_ change: (RareParts) -> Void) {
        if rareParts == nil {
            rareParts = RareParts()
        } else if !isKnownUniquelyReferenced(&rareParts) {
            rareParts = rareParts.map(RareParts.init(copying:))
        }
        if let rareParts { change(rareParts) }
    }

    /// The box of the rare parts. Changed only through
    /// ``changeRareParts(_:)``, when no other relation refers to it: shared,
    /// it is immutable, hence `Sendable`.
    private final class RareParts: @unchecked Sendable {
        var alias: TableAliasBase?
        var children: [SQLRelationChild] = []
        var misuses: [String] = []
        var annotations: [DatabasePromise<[SQLSelection]>] = []
        var grouping: DatabasePromise<[SQLExpression]>?
        var havings: [DatabasePromise<SQLExpression>] = []
        var isDistinct = false
        var ctes: [SQLCTE] = []

        init() {}

        init(copying other: RareParts) {
            alias = other.alias
            children = other.children
            misuses = other.misuses
            annotations = other.annotations
            grouping = other.grouping
            havings = other.havings
            isDistinct = other.isDistinct
            ctes = other.ctes
        }
    }

    init(source: String, selection: DatabasePromise<[SQLSelection]>, selectsAllColumns: Bool) {
        self.source = source
        self.selection = selection
        self.selectsAllColumns = selectsAllColumns
    }

    /// `SELECT * FROM source`.
    init(source: String) {
        self.init(source: source, selection: allColumnsPromise, selectsAllColumns: true)
    }

    /// A condition of `WHERE`.
    enum Filter: Sendable {
        case expression(DatabasePromise<SQLExpression>)
        /// The primary key among these values: `"id" = ?`, `"id" IN (?, ?)`,
        /// the column read from the schema.
        case primaryKey([DatabaseValue])
        /// One primary key, `"id" = ?`: the commonest filter, without an
        /// array to allocate.
        case primaryKeyValue(DatabaseValue)

        func resolve(_ db: Database?, table: String) throws -> SQLExpression {
            switch self {
            case .expression(let promise):
                return try promise.resolve(db)
            case .primaryKeyValue(let value):
                return try Filter.primaryKey([value]).resolve(db, table: table)
            case .primaryKey(let values):
                guard let db else {
                    throw DatabaseError.misuse("a filter by key reads the database schema: build its SQL with a connection")
                }
                return SQLCollection.array(values.map(\.sqlExpression)).contains(
                    Column(try db.filteringPrimaryKeyColumn(table)).sqlExpression)
            }
        }
    }

    /// The key of a request that is a plain lookup by primary key
    /// (`Player.filter(id: 1)`): all columns, one key, nothing else. Its
    /// fetch takes the statement of `Player.fetchOne(db, key:)`.
    var primaryKeyLookup: DatabaseValue? {
        guard filters.count == 1, case .primaryKeyValue(let value) = filters[0], selectsAllColumns, annotations.isEmpty,
            ordering.isEmpty, grouping == nil, havings.isEmpty, limit == nil, !isDistinct, ctes.isEmpty, children.isEmpty, alias == nil
        else { return nil }
        return value
    }

    /// The relation whose source is known by `alias` too: the alias adopts
    /// the table, or becomes another name of the alias the source has.
    func aliased(_ alias: TableAliasBase) -> SQLRelation {
        var relation = self
        do {
            if let current = relation.alias {
                try alias.becomeProxy(of: current)
            } else {
                try alias.adopt(tableName: source)
                relation.alias = alias
            }
        } catch {
            relation.misuses.append("\(error)")
        }
        return relation
    }

    /// The relation of a record type: its table and `databaseSelection`.
    static func all<T: TableRecord>(_ type: T.Type) -> SQLRelation {
        let selection = T.databaseSelection
        if DatabaseKit.selectsAllColumns(selection) { return SQLRelation(source: T.databaseTableName) }
        return SQLRelation(source: T.databaseTableName, selection: .value(selection.map(\.sqlSelection)), selectsAllColumns: false)
    }

    /// True when the request joins tables or has an alias: its columns
    /// may need their table's name.
    var isJoined: Bool {
        alias != nil || children.contains { !$0.kind.isPrefetched }
    }

    /// The whole selection.
    func resolvedSelection(_ db: Database?) throws -> [SQLSelection] {
        var result = try selection.resolve(db)
        for annotation in annotations { result += try annotation.resolve(db) }
        return result
    }

    /// The relation sorted by its primary key after its own ordering, and
    /// so are its joined tables: rows always come in the same order.
    func withStableOrder() -> SQLRelation {
        var relation = self
        let table = source
        relation.ordering.terms.append(
            .deferred { db in
                // The primary key, never the rowid (a vacuum may change it);
                // a view has none: every column, by position.
                if try db.tableExists(table) {
                    return try db.primaryKey(table).columns.map { Column($0).sqlOrdering }
                }
                let count = try db.columns(in: table).count
                return (1...max(count, 1)).map { SQL(sql: "\($0)").sqlOrdering }
            })
        return relation.mappingChildren { $0.withStableOrder() }
    }

    /// The relation without ordering, its joined tables included (for
    /// counts, `EXISTS`, `unordered()`).
    func unordered() -> SQLRelation {
        var relation = self
        relation.ordering = Ordering()
        return children.isEmpty ? relation : relation.mappingChildren { $0.unordered() }
    }

    /// The relation selecting nothing of its own table: a table joined only
    /// to filter (`joining`), the pivots of an indirect association.
    /// True when a filter is the constant false of `none()`: the request
    /// gives no row whatever the database holds, and reads nothing an
    /// observation needs to track.
    func isProvablyEmpty(_ db: Database) throws -> Bool {
        for filter in filters {
            guard case .expression(let promise) = filter else { continue }
            if case .value(let value) = try promise.resolve(db).impl, value == false.databaseValue { return true }
        }
        return false
    }

    /// True for the selection of `joining`: no column, no annotation.
    var selectsNothing: Bool {
        guard case .value(let columns) = selection else { return false }
        return columns.isEmpty && annotations.isEmpty
    }

    func selectingNothing() -> SQLRelation {
        var relation = self
        relation.selection = .value([])
        relation.annotations = []
        return relation
    }

    /// The relation with `transform` applied to the relation of each
    /// joined or prefetched table.
    func mappingChildren(_ transform: (SQLRelation) -> SQLRelation) -> SQLRelation {
        var relation = self
        for index in relation.children.indices {
            relation.children[index].relation = transform(relation.children[index].relation)
        }
        return relation
    }

    /// The relation with a common table expression (replacing one of the same name).
    func with(_ cte: SQLCTE) -> SQLRelation {
        var relation = self
        if let index = relation.ctes.firstIndex(where: { $0.tableName.lowercased() == cte.tableName.lowercased() }) {
            relation.ctes[index] = cte
        } else {
            relation.ctes.append(cte)
        }
        return relation
    }

    /// `ORDER BY`: the terms of `order(...)`, reversed or not.
    struct Ordering: Sendable {
        var terms: [DatabasePromise<[SQLOrdering]>] = []
        var isReversed = false

        var isEmpty: Bool { terms.isEmpty }

        func resolve(_ db: Database?) throws -> [SQLOrdering] {
            var orderings: [SQLOrdering] = []
            for term in terms { orderings += try term.resolve(db) }
            guard isReversed else { return orderings }
            if orderings.contains(where: \.isLiteral) {
                throw DatabaseError.misuse("an ordering written in raw SQL can not be reversed: use order(Column(...).desc) instead")
            }
            return orderings.map(\.reversed)
        }
    }
}

/// `*`: one shared value, which a request of a record's default selection
/// does not allocate again.
let allColumnsPromise = DatabasePromise<[SQLSelection]>.value([SQLSelection(.allColumns(qualifier: nil))])

/// `LIMIT n [OFFSET m]`, written as numbers.
struct SQLLimit: Sendable {
    var limit: Int
    var offset: Int?

    var sql: String { offset.map { "\(limit) OFFSET \($0)" } ?? "\(limit)" }
}

/// A common table expression of a `WITH` clause.
struct SQLCTE: Sendable {
    var tableName: String
    var columns: [String]?
    var subquery: SQLSubquery
    var isRecursive: Bool
}
