/// A relation with joined tables, each given the alias its columns are
/// qualified with: what ``SQLQueryGenerator`` renders when a request joins
/// or is aliased. Made once per rendering, so that the SQL and the row
/// adapter agree on the tables.
struct JoinedRelation {
    let relation: SQLRelation
    let alias: TableAliasBase
    /// The to-one children, joined in this query.
    let joins: [Join]

    struct Join {
        let key: String
        let isRequired: Bool
        let condition: AssociationCondition
        let relation: JoinedRelation
    }

    init(_ relation: SQLRelation) {
        self.relation = relation
        alias = relation.alias ?? TableAliasBase(tableName: relation.source)
        joins = relation.children.compactMap { child in
            switch child.kind {
            case .oneOptional, .oneRequired:
                return Join(
                    key: child.key, isRequired: child.kind == .oneRequired, condition: child.condition,
                    relation: JoinedRelation(child.relation))
            case .all, .bridge:
                return nil
            }
        }
    }

    /// The aliases of all the tables of the query, source first.
    var allAliases: [TableAliasBase] {
        joins.reduce(into: [alias]) { $0 += $1.relation.allAliases }
    }

    private var qualifier: SQLQualifier { .alias(alias) }

    /// The source's selection, then each joined table's, depth first.
    func selection(_ db: Database?) throws -> [SQLSelection] {
        var selection = try relation.resolvedSelection(db).map { $0.qualified(with: qualifier) }
        for join in joins { selection += try join.relation.selection(db) }
        return selection
    }

    /// The source's filters, qualified.
    func filter(_ db: Database?) throws -> SQLExpression? {
        let filters = try relation.filters.map { try $0.resolve(db, table: relation.source).qualified(with: qualifier) }
        switch filters.count {
        case 0: return nil
        case 1: return filters[0]
        default: return .associative(.and, filters)
        }
    }

    /// The source's ordering, then each joined table's. Reversing the
    /// request reverses them all, as GRDB does.
    func orderings(_ db: Database?, reversed: Bool = false) throws -> [SQLOrdering] {
        var ordering = relation.ordering
        if reversed { ordering.isReversed.toggle() }
        var orderings = try ordering.resolve(db).map { $0.qualified(with: qualifier) }
        for join in joins { orderings += try join.relation.orderings(db, reversed: ordering.isReversed) }
        return orderings
    }

    /// `FROM "book"`, or `"book" "book1"` when the query renamed it.
    func sourceSQL(_ context: SQLGenerationContext) -> String {
        let name = context.resolvedName(for: alias)
        if name == relation.source { return relation.source.quotedDatabaseIdentifier }
        return relation.source.quotedDatabaseIdentifier + " " + name.quotedDatabaseIdentifier
    }

    /// ` JOIN "author" ON ... LEFT JOIN ...`: every join below this table.
    func joinsSQL(_ context: SQLGenerationContext, allowsRequired: Bool = true) throws -> String {
        var sql = ""
        let db = try context.database(for: "a joined request")
        for join in joins {
            if join.isRequired && !allowsRequired {
                throw DatabaseError.misuse(
                    "a required association (\(join.key)) can not be joined behind an optional one: make it optional")
            }
            sql += join.isRequired ? " JOIN " : " LEFT JOIN "
            sql += join.relation.sourceSQL(context)
            var conditions: [SQLExpression] = []
            if let on = try join.condition.joinExpression(db, left: alias, leftTable: relation.source, right: join.relation.alias) {
                conditions.append(on)
            }
            if let filter = try join.relation.filter(db) { conditions.append(filter) }
            if !conditions.isEmpty { sql += try " ON " + SQLExpression.associative(.and, conditions).sql(context) }
            sql += try join.relation.joinsSQL(context, allowsRequired: allowsRequired && join.isRequired)
        }
        return sql
    }

    /// The adapter that splits a row into the source's columns and a scope
    /// per joined table; nil when nothing is joined.
    func rowAdapter(_ db: Database) throws -> (any RowAdapter)? {
        try rowAdapter(db, from: 0, isRoot: true)?.adapter
    }

    private func rowAdapter(_ db: Database, from start: Int, isRoot: Bool) throws -> (adapter: any RowAdapter, end: Int)? {
        if isRoot && joins.isEmpty { return nil }
        let width = try columnCount(try relation.resolvedSelection(db), db)
        var end = start + width
        var scopes: [String: any RowAdapter] = [:]
        for join in joins {
            if let (adapter, joinEnd) = try join.relation.rowAdapter(db, from: end, isRoot: false) {
                scopes[join.key] = adapter
                end = joinEnd
            }
        }
        if (isRoot || width == 0) && scopes.isEmpty { return nil }
        let range = RangeRowAdapter(start..<(start + width))
        return (scopes.isEmpty ? range : range.addingScopes(scopes), end)
    }

    /// The number of columns a selection gives.
    private func columnCount(_ selection: [SQLSelection], _ db: Database) throws -> Int {
        var count = 0
        for item in selection {
            switch item.impl {
            case .expression, .aliased:
                count += 1
            case .allColumns(let qualifier):
                count += try db.columns(in: qualifier?.tableName ?? relation.source).count
            case let .allColumnsExcluding(excluded, qualifier):
                let names = Set(excluded.map { $0.lowercased() })
                count += try db.columns(in: qualifier?.tableName ?? relation.source).filter { !names.contains($0.name.lowercased()) }.count
            case .literal(let literal):
                // Raw SQL may select several columns: ask SQLite.
                let context = SQLGenerationContext(db)
                let sql = try "SELECT " + literal.sql(context) + " FROM " + relation.source.quotedDatabaseIdentifier
                count += try db.makeStatement(sql: sql).columnCount
            }
        }
        return count
    }
}
