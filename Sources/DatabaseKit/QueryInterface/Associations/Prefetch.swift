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
        // The usual key, one integer column: sorted once, for the filter and the grouping.
        var integerKeys: [Int64]?
        if mapping.count == 1 {
            let index = leftIndexes[0]
            let filter: SQLExpression
            if let keys = sortedIntegerKeys(of: rows, atIndex: index) {
                integerKeys = keys
                filter = pivotFilter(mapping[0], sortedValues: keys.map { DatabaseValue(storage: .int64($0)) })
            } else {
                filter = pivotFilter(mapping, leftRows: rows.map { row in { _ in row.databaseValue(atIndex: index) } })
            }
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

        // Plain rows go to a batch, which costs their values only; rows with
        // scopes or prefetches of their own are rows.
        let source = try FetchSource(db, request: QueryInterfaceRequest<Row>(relation: relation))
        let prefetched: PrefetchedSource
        if let batch = try source.fetchBatch() {
            prefetched = .batch(batch)
        } else {
            prefetched = .rows(try source.fetchAll { $0.copy() })
        }

        // Group the prefetched rows by key, in their order: by value for a
        // single column (no array to hash per row), by row value otherwise.
        let keyPath = association.steps.map(\.keyName)[...]
        let pivotIndexes = pivotColumns.map { prefetched.index(forColumn: "grdb_\($0)") ?? 0 }
        if leftIndexes.count == 1 {
            let leftIndex = leftIndexes[0]
            let pivotIndex = pivotIndexes[0]
            if let keys = integerKeys, let groups = IntegerPrefetchGroups(prefetched, pivotIndex: pivotIndex, keys: keys) {
                for row in rows {
                    if case .int64(let value) = row.databaseValue(atIndex: leftIndex).storage {
                        attach(prefetched.group(groups.indexes(of: value)), to: row, keyPath)
                    } else {
                        attach(prefetched.group([]), to: row, keyPath)  // NULL
                    }
                }
                continue
            }
            var groups: [DatabaseValue: [Int]] = [:]
            for index in 0..<prefetched.count { groups[prefetched.value(row: index, column: pivotIndex), default: []].append(index) }
            for row in rows {
                let key = row.databaseValue(atIndex: leftIndex)
                attach(prefetched.group(key.isNull ? [] : groups[key]?[...] ?? []), to: row, keyPath)
            }
        } else {
            var groups: [[DatabaseValue]: [Int]] = [:]
            for index in 0..<prefetched.count {
                groups[pivotIndexes.map { prefetched.value(row: index, column: $0) }, default: []].append(index)
            }
            for row in rows {
                let key = leftIndexes.map { row.databaseValue(atIndex: $0) }
                attach(prefetched.group(key.contains(where: \.isNull) ? [] : groups[key]?[...] ?? []), to: row, keyPath)
            }
        }
    }
}

/// The rows of a prefetch query: a batch, or rows of their own.
enum PrefetchedSource {
    case batch(RowBatch)
    case rows([Row])

    var count: Int {
        switch self {
        case .batch(let batch): return batch.count
        case .rows(let rows): return rows.count
        }
    }

    func index(forColumn name: String) -> Int? {
        switch self {
        case .batch(let batch): return leftmostIndex(ofColumn: name, in: batch.columnNames)
        case .rows(let rows): return rows.first?.index(forColumn: name)
        }
    }

    func value(row: Int, column: Int) -> DatabaseValue {
        switch self {
        case .batch(let batch): return batch.value(row: row, column: column)
        case .rows(let rows): return rows[row].databaseValue(atIndex: column)
        }
    }

    /// The value of a column of a row, as a key of ``IntegerPrefetchGroups``.
    @inline(__always)
    func keyCell(row: Int, column: Int) -> KeyCell {
        switch self {
        case .batch(let batch): return batch.keyCell(row: row, column: column)
        case .rows(let rows): return KeyCell(rows[row].databaseValue(atIndex: column))
        }
    }

    /// The rows at these indexes.
    func group(_ indexes: ArraySlice<Int>) -> PrefetchedGroup {
        switch self {
        case .batch(let batch): return .batch(batch, indexes)
        case .rows(let rows): return .rows(indexes.map { rows[$0] })
        }
    }
}

/// Attaches prefetched rows to a row, under a key path.
private func attach(_ prefetched: PrefetchedGroup, to row: Row, _ keyPath: ArraySlice<String>) {
    var prefetches = row.prefetches ?? Row.PrefetchedRowsView()
    prefetches.setGroup(prefetched, forKeyPath: keyPath)
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
