/// Fetches the rows of the `including(all:)` associations of `rows`, the
/// rows of `originRelation`, and attaches them to each row under its key
/// path: one query per association, whatever the number of rows.
///
/// With a single-column key, the query lists the keys:
/// `SELECT *, "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (?, ?)`.
/// With several columns, it embeds the origin request, which a long list of
/// `(a = ? AND b = ?) OR ...` would make too deep for SQLite:
/// `WITH "grdb_base" AS (SELECT "a", "b" FROM ...) ... WHERE ("a", "b") IN "grdb_base"`.
func prefetch(_ db: Database, _ associations: [_SQLAssociation], from originRelation: SQLRelation, into rows: [Row]) throws {
    guard let firstRow = rows.first else {
        // No row, so no prefetch query: an observation still tracks what
        // they would read, so that it sees the first associated rows come.
        if db.recordedSelection != nil {
            let region = try prefetchedRegion(db, associations, from: originRelation)
            db.recordedSelection?.formUnion(region)
        }
        return
    }
    for association in associations {
        let mapping = try association.pivot.condition.joinMapping(db, from: originRelation.source)
        let leftColumns = mapping.map(\.left)
        let pivotColumns = mapping.map(\.right)
        let leftIndexes = try leftColumns.map { column in
            guard let index = firstRow.index(forColumn: column) else {
                throw DatabaseError.misuse("including(all:) needs the column \(column) of \(originRelation.source) in the selection")
            }
            return index
        }

        var relation: SQLRelation
        if mapping.count == 1 {
            let index = leftIndexes[0]
            let filter = pivotFilter(mapping, leftRows: rows.map { row in { _ in row.databaseValue(atIndex: index) } })
            relation = association.prefetchRelation(pivotFilter: filter, pivotColumns: pivotColumns)
        } else {
            var base = originRelation.removingPrefetchedAssociations()
            if base.limit == nil { base = base.unordered() }
            base = base.selectingNothing().mappingChildren { $0.selectingNothingDeeply() }
            base.selection = .value(leftColumns.map { SQLSelection(.expression(.column($0))) })
            base.isDistinct = false
            let pivotRow = SQLExpression(.rowValue(pivotColumns.map { SQLExpression.column($0) }))
            let filter = SQLExpression(.inCollection(pivotRow, .table("grdb_base"), negated: false))
            relation = association.prefetchRelation(pivotFilter: filter, pivotColumns: pivotColumns)
                .with(SQLCTE(tableName: "grdb_base", columns: nil, subquery: .relation(base), isRecursive: false))
        }

        let prefetchedRows = try QueryInterfaceRequest<Row>(relation: relation).fetchAll(db)

        // Group the prefetched rows by key, in their order: by value for a
        // single column (no array to hash per row), by row value otherwise.
        let keyPath = association.steps.map(\.keyName)[...]
        let pivotIndexes = prefetchedRows.first.map { first in pivotColumns.map { first.index(forColumn: "grdb_\($0)") ?? 0 } } ?? []
        if leftIndexes.count == 1 {
            var groups: [DatabaseValue: [Row]] = [:]
            if let pivotIndex = pivotIndexes.first {
                for row in prefetchedRows { groups[row.databaseValue(atIndex: pivotIndex), default: []].append(row) }
            }
            let leftIndex = leftIndexes[0]
            for row in rows {
                let key = row.databaseValue(atIndex: leftIndex)
                attach(key.isNull ? [] : groups[key] ?? [], to: row, keyPath)
            }
        } else {
            var groups: [[DatabaseValue]: [Row]] = [:]
            for row in prefetchedRows { groups[pivotIndexes.map { row.databaseValue(atIndex: $0) }, default: []].append(row) }
            for row in rows {
                let key = leftIndexes.map { row.databaseValue(atIndex: $0) }
                attach(key.contains(where: \.isNull) ? [] : groups[key] ?? [], to: row, keyPath)
            }
        }
    }
}

/// Attaches prefetched rows to a row, under a key path.
private func attach(_ prefetched: [Row], to row: Row, _ keyPath: ArraySlice<String>) {
    var prefetches = row.prefetches ?? Row.PrefetchedRowsView()
    prefetches.setRows(prefetched, forKeyPath: keyPath)
    row.prefetches = prefetches
}

extension SQLRelation {
    /// The relation selecting nothing, its joined tables included.
    fileprivate func selectingNothingDeeply() -> SQLRelation {
        selectingNothing().mappingChildren { $0.selectingNothingDeeply() }
    }
}

extension _SQLAssociation {
    /// The query of the association's rows: its pivot filtered by
    /// `pivotFilter` (columns of the pivot, unqualified), the pivot columns
    /// selected as `grdb_COLUMN` to group the rows by. The prefetch runs
    /// it; the region of a request reads what it reads.
    fileprivate func prefetchRelation(pivotFilter: SQLExpression, pivotColumns: [String]) -> SQLRelation {
        let pivotAlias = TableAliasBase()
        var association = self
        var pivot = association.pivot.relation.aliased(pivotAlias)
        pivot.filters.append(.expression(.value(pivotFilter)))
        association.pivot.relation = pivot
        var relation = association.destinationRelation()
        relation.annotations.append(.value(pivotColumns.map { pivotAlias[$0].forKey("grdb_\($0)") }))
        return relation
    }
}

extension QueryInterfaceRequest {
    /// The tables and columns the request reads, those of its prefetches
    /// included: an observation of `Author.including(all: Author.books)`
    /// sees changes to books.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        // The prepared statement's region has the prefetches' already.
        try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
    }
}

/// What the prefetch queries of `associations` read, whatever the rows they
/// are run for: each query with its pivot filtered on a value that stands
/// for the fetched rows' keys.
func prefetchedRegion(_ db: Database, _ associations: [_SQLAssociation], from originRelation: SQLRelation) throws -> DatabaseRegion {
    var region = DatabaseRegion()
    for association in associations {
        let mapping = try association.pivot.condition.joinMapping(db, from: originRelation.source)
        let filter = SQLExpression.associative(
            .and, mapping.map { SQLExpression.compare(.equal, Column($0.right).sqlExpression, .null) })
        let prefetch = association.prefetchRelation(pivotFilter: filter, pivotColumns: mapping.map(\.right))
        region.formUnion(try QueryInterfaceRequest<Row>(relation: prefetch).databaseRegion(db))
    }
    return region
}
