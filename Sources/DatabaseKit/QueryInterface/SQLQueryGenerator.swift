/// Renders a ``SQLRelation`` as SQL: the `SELECT` of a fetch, the count of
/// `fetchCount`, the `DELETE` of `deleteAll` and the `UPDATE` of
/// `updateAll`, with the text GRDB writes for the same request.
struct SQLQueryGenerator {
    let relation: SQLRelation

    init(_ relation: SQLRelation) { self.relation = relation }

    // MARK: SELECT

    /// `[WITH ...] SELECT ... FROM ... [WHERE] [GROUP BY] [HAVING] [ORDER BY] [LIMIT]`.
    /// `singleResult` adds `LIMIT 1` unless the request gives one row anyway
    /// (a filter on a unique key, an aggregate without grouping).
    func selectSQL(_ context: SQLGenerationContext, singleResult: Bool = false) throws -> String {
        if let misuse = relation.misuses.first { throw DatabaseError.misuse(misuse) }
        if relation.isJoined { return try joinedSelectSQL(context, JoinedRelation(relation), singleResult: singleResult) }
        let db = context.db
        var sql = try withClause(context)
        sql += relation.isDistinct ? "SELECT DISTINCT " : "SELECT "
        let selection = try relation.resolvedSelection(db)
        guard !selection.isEmpty else { throw DatabaseError.misuse("a request must select at least one column") }
        sql += try selection.map { try $0.sql(context, table: relation.source) }.joined(separator: ", ")
        sql += " FROM "
        sql += relation.source.quotedDatabaseIdentifier
        let filter = try self.filter(db)
        if let filter { sql += try " WHERE " + filter.sql(context) }
        let grouping = try relation.grouping?.resolve(db) ?? []
        if !grouping.isEmpty { sql += try " GROUP BY " + grouping.map { try $0.sql(context) }.joined(separator: ", ") }
        if let having = try self.having(db) { sql += try " HAVING " + having.sql(context) }
        try appendOrdering(to: &sql, context)
        var limit = relation.limit
        if limit == nil && singleResult, try !givesSingleRow(db, selection: selection, filter: filter, grouping: grouping) {
            limit = SQLLimit(limit: 1)
        }
        if let limit { sql += " LIMIT " + limit.sql }
        return sql
    }

    /// The `SELECT` of a request that joins tables or has an alias: its
    /// columns qualified with their tables where the query reads several.
    func joinedSelectSQL(_ context: SQLGenerationContext, _ joined: JoinedRelation, singleResult: Bool) throws -> String {
        let db = context.db
        return try context.withAliases(joined.allAliases) {
            var sql = try withClause(context)
            sql += relation.isDistinct ? "SELECT DISTINCT " : "SELECT "
            let selection = try joined.selection(db)
            guard !selection.isEmpty else { throw DatabaseError.misuse("a request must select at least one column") }
            sql += try selection.map { try $0.sql(context, table: relation.source) }.joined(separator: ", ")
            sql += " FROM " + joined.sourceSQL(context)
            sql += try joined.joinsSQL(context)
            let filter = try joined.filter(db)
            if let filter { sql += try " WHERE " + filter.sql(context) }
            let grouping = try relation.grouping?.resolve(db).map { $0.qualified(with: .alias(joined.alias)) } ?? []
            if !grouping.isEmpty { sql += try " GROUP BY " + grouping.map { try $0.sql(context) }.joined(separator: ", ") }
            if let having = try self.having(db) { sql += try " HAVING " + having.qualified(with: .alias(joined.alias)).sql(context) }
            let orderings = try joined.orderings(db)
            if !orderings.isEmpty { sql += try " ORDER BY " + orderings.map { try $0.sql(context) }.joined(separator: ", ") }
            var limit = relation.limit
            if limit == nil && singleResult {
                // A join may give several rows per row of the source.
                let single = try joined.joins.isEmpty && givesSingleRow(db, selection: selection, filter: filter, grouping: grouping)
                if !single { limit = SQLLimit(limit: 1) }
            }
            if let limit { sql += " LIMIT " + limit.sql }
            return sql
        }
    }

    /// The filters joined by `AND`, nil without one.
    func filter(_ db: Database?) throws -> SQLExpression? {
        switch relation.filters.count {
        case 0: return nil
        case 1: return try relation.filters[0].resolve(db, table: relation.source)
        default: return try .associative(.and, relation.filters.map { try $0.resolve(db, table: relation.source) })
        }
    }

    private func having(_ db: Database?) throws -> SQLExpression? {
        if relation.havings.isEmpty { return nil }
        return try .associative(.and, relation.havings.map { try $0.resolve(db) })
    }

    private func appendOrdering(to sql: inout String, _ context: SQLGenerationContext) throws {
        if relation.ordering.isEmpty { return }
        let orderings = try relation.ordering.resolve(context.db)
        if !orderings.isEmpty { sql += try " ORDER BY " + orderings.map { try $0.sql(context) }.joined(separator: ", ") }
    }

    /// `WITH [RECURSIVE] "name"(columns) AS (...), ... `, or "".
    private func withClause(_ context: SQLGenerationContext) throws -> String {
        if relation.ctes.isEmpty { return "" }
        var sql = relation.ctes.contains(where: \.isRecursive) ? "WITH RECURSIVE " : "WITH "
        sql += try relation.ctes.map { cte in
            var text = cte.tableName.quotedDatabaseIdentifier
            if let columns = cte.columns, !columns.isEmpty {
                text += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
            }
            return try text + " AS (" + cte.subquery.sql(context) + ")"
        }.joined(separator: ", ")
        return sql + " "
    }

    /// True when the request gives at most one row: filtered on a unique
    /// key of its table, or aggregating without grouping.
    private func givesSingleRow(_ db: Database?, selection: [SQLSelection], filter: SQLExpression?, grouping: [SQLExpression]) throws -> Bool {
        if let db, let filter {
            let columns = filter.identifyingColumns(of: relation.alias)
            if !columns.isEmpty, try db.tableExists(relation.source), try db.table(relation.source, hasUniqueKey: columns) { return true }
        }
        return grouping.isEmpty && selection.contains(where: \.isAggregate)
    }

    // MARK: COUNT

    /// The request that counts the rows of the relation: `SELECT COUNT(*)
    /// FROM table WHERE ...` where the selection allows it (`COUNT(DISTINCT
    /// x)` for a distinct column), else `SELECT COUNT(*) FROM (request)`.
    func countRequest(_ db: Database) throws -> SQLRequest<Int> {
        // Prefetched rows do not change the count; joined ones may.
        let relation = self.relation.removingPrefetchedAssociations()
        if relation.isJoined {
            let context = SQLGenerationContext(db)
            let sql = try "SELECT COUNT(*) FROM (" + SQLQueryGenerator(relation.unordered()).selectSQL(context) + ")"
            return SQLRequest(sql: sql, arguments: context.arguments, cached: true)
        }
        if relation.grouping == nil && relation.limit == nil && relation.ctes.isEmpty {
            let selection = try relation.resolvedSelection(db)
            var counting = relation.unordered()
            counting.annotations = []
            counting.isDistinct = false
            if selection.count == 1 {
                switch selection[0].impl {
                case .allColumns(nil), .allColumnsExcluding(_, nil):
                    if !relation.isDistinct { return try counted(counting, .countAll, db) }
                case .expression(let expression), .aliased(let expression, _):
                    return try counted(counting, relation.isDistinct ? .aggregate("COUNT", [expression], distinct: true) : .countAll, db)
                default:
                    break
                }
            } else if !relation.isDistinct && !selection.contains(where: \.requiresTrivialCount) {
                return try counted(counting, .countAll, db)
            }
        }
        let context = SQLGenerationContext(db)
        let sql = try "SELECT COUNT(*) FROM (" + SQLQueryGenerator(relation.unordered()).selectSQL(context) + ")"
        return SQLRequest(sql: sql, arguments: context.arguments, cached: true)
    }

    private func counted(_ relation: SQLRelation, _ count: SQLExpression, _ db: Database) throws -> SQLRequest<Int> {
        var relation = relation
        relation.selection = .value([SQLSelection(.expression(count))])
        let context = SQLGenerationContext(db)
        let sql = try SQLQueryGenerator(relation).selectSQL(context)
        return SQLRequest(sql: sql, arguments: context.arguments, cached: true)
    }

    // MARK: DELETE and UPDATE

    /// `DELETE FROM table [WHERE ...] [ORDER BY ... LIMIT ...]`.
    func deleteSQL(_ context: SQLGenerationContext) throws -> String {
        try refuseGrouping("delete")
        try refuseJoins("delete")
        var sql = try withClause(context) + "DELETE FROM " + relation.source.quotedDatabaseIdentifier
        if let filter = try filter(context.db) { sql += try " WHERE " + filter.sql(context) }
        try appendLimit(to: &sql, context)
        return sql
    }

    /// `UPDATE [OR conflict] table SET ... [WHERE ...] [ORDER BY ... LIMIT ...]`;
    /// nil when no assignment sets anything.
    func updateSQL(_ context: SQLGenerationContext, conflictResolution: Database.ConflictResolution?, assignments: [ColumnAssignment]) throws -> String? {
        try refuseGrouping("update")
        try refuseJoins("update")
        var sql = try withClause(context) + "UPDATE "
        if let conflictResolution, conflictResolution != .abort { sql += "OR " + conflictResolution.rawValue + " " }
        sql += relation.source.quotedDatabaseIdentifier
        let set = try assignments.compactMap { try $0.sql(context) }.joined(separator: ", ")
        if set.isEmpty { return nil }
        sql += " SET " + set
        if let filter = try filter(context.db) { sql += try " WHERE " + filter.sql(context) }
        try appendLimit(to: &sql, context)
        return sql
    }

    private func appendLimit(to sql: inout String, _ context: SQLGenerationContext) throws {
        guard let limit = relation.limit else { return }
        try appendOrdering(to: &sql, context)
        sql += " LIMIT " + limit.sql
    }

    private func refuseJoins(_ verb: String) throws {
        if let misuse = relation.misuses.first { throw DatabaseError.misuse(misuse) }
        if !relation.removingPrefetchedAssociations().children.isEmpty || relation.alias != nil {
            throw DatabaseError.misuse("can not \(verb) the rows of a joined request: filter with a subquery instead (Column(\"id\").in(request.selectPrimaryKey()))")
        }
    }

    private func refuseGrouping(_ verb: String) throws {
        if relation.grouping != nil || !relation.havings.isEmpty {
            throw DatabaseError.misuse("can not \(verb) the rows of a grouped request: filter the rows instead")
        }
    }
}

extension SQLSelection {
    /// An alias or raw SQL may be referred to by the rest of the request
    /// (`WHERE alias`): a count keeps the request whole around it.
    var requiresTrivialCount: Bool {
        switch impl {
        case .aliased, .literal: true
        default: false
        }
    }
}
