// The region of a request filtered by primary key: `Player.filter(id: 1)`
// reads `player(id,name)[1]`, not the whole table, so that an observation of
// one row is not fetched again when another row of its table changes.
//
// A row is identified only when the answer is certain: a region too small
// would miss a change, a region too large costs a needless fetch. So the
// filter must compare the rowid (or its INTEGER PRIMARY KEY alias) with
// integers, nothing else in the request may read other rows of the table
// (a subquery, raw SQL, a join of the table to itself), and SQLite must
// report the rows that leave their rowid (its pre-update hook).

extension SQLRelation {
    /// The rowids the request's rows have, when its filters say so and the
    /// rest of the request reads no other row of its table; nil otherwise.
    ///
    /// `filter(id: 1)` gives `[1]`, `filter(ids: [1, 2])` `[1, 2]`,
    /// `filter(Column("id") == 1 || Column("id") == 3)` `[1, 3]`,
    /// `filter(false)` and `filter(id: nil)` `[]`. Joined tables keep all
    /// their rows in the region: only the source's rows are identified.
    func identifiedRowIDs(_ db: Database) throws -> Set<Int64>? {
        guard !filters.isEmpty, ctes.isEmpty, try db.tableExists(source) else { return nil }
        let isRowID = try RowIDColumnTest(db, table: source, alias: alias)
        let expressions = try filters.map { try $0.resolve(db, table: source) }
        var result: Set<Int64>?
        for expression in expressions {
            guard let rowIDs = expression.identifiedRowIDs(isRowID) else { continue }
            result = result.map { $0.intersection(rowIDs) } ?? rowIDs
        }
        guard result != nil, expressions.allSatisfy(\.readsOnlyItsRow), try readsOnlyItsRowsBesidesFilters(db),
            try joinsReadOtherTables(db, than: source)
        else { return nil }
        return result
    }

    /// True when the selection, grouping, havings and ordering read only the
    /// columns of the selected rows.
    private func readsOnlyItsRowsBesidesFilters(_ db: Database) throws -> Bool {
        guard try resolvedSelection(db).allSatisfy(\.readsOnlyItsRow) else { return false }
        if let grouping, !(try grouping.resolve(db).allSatisfy(\.readsOnlyItsRow)) { return false }
        for having in havings where !(try having.resolve(db).readsOnlyItsRow) { return false }
        return try ordering.resolve(db).allSatisfy(\.readsOnlyItsRow)
    }

    /// True when the joined tables, at any depth, are other tables than
    /// `table` and read only their joined rows: a join of the table to
    /// itself reads rows of the table that the filter does not identify.
    /// Prefetched tables are read by queries of their own.
    private func joinsReadOtherTables(_ db: Database, than table: String) throws -> Bool {
        for child in children where !child.kind.isPrefetched {
            let relation = child.relation
            guard relation.source.lowercased() != table.lowercased(), relation.ctes.isEmpty,
                try relation.filters.allSatisfy({ try $0.resolve(db, table: relation.source).readsOnlyItsRow }),
                try relation.readsOnlyItsRowsBesidesFilters(db), try relation.joinsReadOtherTables(db, than: table)
            else { return false }
        }
        return true
    }
}

/// Which columns of an expression are the rowid of a request's source: the
/// columns, unqualified or qualified by the source's table or alias, named
/// `rowid`, `oid`, `_rowid_` (unless a column has that name) or as the
/// INTEGER PRIMARY KEY.
struct RowIDColumnTest {
    private let table: String
    private let alias: TableAliasBase?
    private let names: [String]

    init(_ db: Database, table: String, alias: TableAliasBase?) throws {
        self.table = table
        self.alias = alias
        guard DatabaseObservationBroker.reportsRemovedRows else {
            // Without the pre-update hook, an observation of a row would not
            // see it leave its rowid: no column identifies rows.
            self.names = []
            return
        }
        let primaryKey = try db.primaryKey(table)
        var names = primaryKey.rowIDColumn.map { [$0.lowercased()] } ?? []
        if primaryKey.tableHasRowID {
            let columns = Set(try db.columns(in: table).map { $0.name.lowercased() })
            names += ["rowid", "oid", "_rowid_"].filter { !columns.contains($0) }
        }
        self.names = names
    }

    func isRowID(_ expression: SQLExpression) -> Bool {
        switch expression.impl {
        case let .column(name, qualifier):
            return isSource(qualifier) && names.contains(name.lowercased())
        default:
            return false
        }
    }

    private func isSource(_ qualifier: SQLQualifier?) -> Bool {
        switch qualifier {
        case nil: return true
        case .table(let name): return alias == nil && name.lowercased() == table.lowercased()
        case .alias(let other): return other == alias
        }
    }
}

extension SQLExpression {
    /// The rowids of the rows a filter accepts, as far as it says; nil when
    /// it may accept any row.
    ///
    ///     WHERE id = 1                         -- [1]
    ///     WHERE id IN (1, 2) OR rowid = 3      -- [1, 2, 3]
    ///     WHERE id = 1 AND score > 10          -- [1]
    ///     WHERE 0, WHERE NULL, WHERE id = NULL -- []
    ///     WHERE id > 1, WHERE id = '1'         -- nil
    fileprivate func identifiedRowIDs(_ test: RowIDColumnTest) -> Set<Int64>? {
        switch impl {
        case .value(let value):
            // WHERE NULL and WHERE 0 select nothing; other constants all rows.
            return value.isNull || value == false.databaseValue ? [] : nil
        case let .associative(op, operands) where op == .and:
            var result: Set<Int64>?
            for operand in operands {
                guard let rowIDs = operand.identifiedRowIDs(test) else { continue }
                result = result.map { $0.intersection(rowIDs) } ?? rowIDs
            }
            return result
        case let .associative(op, operands) where op == .or:
            var result: Set<Int64> = []
            for operand in operands {
                guard let rowIDs = operand.identifiedRowIDs(test) else { return nil }
                result.formUnion(rowIDs)
            }
            return result
        case let .inCollection(expression, collection, negated: false):
            guard test.isRowID(expression), case .array(let items) = collection.impl else { return nil }
            var result: Set<Int64> = []
            for item in items {
                guard case .value(let value) = item.impl, let rowIDs = Self.rowIDs(equalTo: value) else { return nil }
                result.formUnion(rowIDs)
            }
            return result
        case let .compare(op, lhs, rhs) where op == .equal || op == .is:
            if test.isRowID(lhs), case .value(let value) = rhs.impl { return Self.rowIDs(equalTo: value) }
            if test.isRowID(rhs), case .value(let value) = lhs.impl { return Self.rowIDs(equalTo: value) }
            return nil
        case .collated(let expression, _):
            return expression.identifiedRowIDs(test)
        default:
            return nil
        }
    }

    /// The rowids equal to `value`: none for NULL or a number that is not
    /// an integer; nil for text and blobs, which SQLite may convert.
    static func rowIDs(equalTo value: DatabaseValue) -> Set<Int64>? {
        switch value.storage {
        case .null: return []
        case .int64(let integer): return [integer]
        case .double(let double): return Int64(exactly: double).map { [$0] } ?? (double.isFinite ? [] : nil)
        case .string, .blob: return nil
        }
    }

    /// True when the expression reads only the columns of the row it is
    /// evaluated for: no subquery, no raw SQL (which may hold one), no
    /// joined table.
    var readsOnlyItsRow: Bool {
        switch impl {
        case .value, .column, .countAll, .fastPrimaryKey:
            return true
        case .subquery, .literal, .exists, .aliasExists:
            return false
        case .rowValue(let operands), .function(_, let operands), .associative(_, let operands):
            return operands.allSatisfy(\.readsOnlyItsRow)
        case .cast(let operand, _), .unary(_, let operand), .not(let operand), .collated(let operand, _),
            .isEmpty(let operand, _):
            return operand.readsOnlyItsRow
        case let .between(operand, lower, upper, _):
            return operand.readsOnlyItsRow && lower.readsOnlyItsRow && upper.readsOnlyItsRow
        case let .binary(_, lhs, rhs), let .compare(_, lhs, rhs):
            return lhs.readsOnlyItsRow && rhs.readsOnlyItsRow
        case let .like(operand, pattern, escape, _):
            return operand.readsOnlyItsRow && pattern.readsOnlyItsRow && (escape?.readsOnlyItsRow ?? true)
        case let .inCollection(operand, collection, _):
            guard operand.readsOnlyItsRow, case .array(let items) = collection.impl else { return false }
            return items.allSatisfy(\.readsOnlyItsRow)
        case .aggregate(let invocation):
            return invocation.arguments.allSatisfy(\.readsOnlyItsRow) && (invocation.filter?.readsOnlyItsRow ?? true)
                && (invocation.ordering?.readsOnlyItsRow ?? true)
        }
    }
}

extension SQLSelection {
    /// True for columns and expressions that read only the selected row.
    var readsOnlyItsRow: Bool {
        switch impl {
        case .expression(let expression), .aliased(let expression, _): expression.readsOnlyItsRow
        case .allColumns, .allColumnsExcluding: true
        case .literal: false
        }
    }
}

extension SQLOrdering {
    /// True for orderings that read only the sorted rows.
    var readsOnlyItsRow: Bool {
        switch impl {
        case .expression(let expression), .asc(let expression), .desc(let expression), .ascNullsLast(let expression),
            .descNullsFirst(let expression):
            expression.readsOnlyItsRow
        case .literal: false
        }
    }
}
