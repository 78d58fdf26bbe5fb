// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): the batch's values and count,
// with the moving row's offset and hint, assoc-prefetch 1316.6 M against 1539.1 M checked.

/// The rows of one fetch in one buffer, row after row: the rows an
/// `including(all:)` association prefetches.
///
/// A prefetch reads thousands of rows that live only until their records
/// are decoded. Stored here, they cost their values and nothing per row: no
/// row object, no array, no metadata lookup of an array's storage. Records
/// decode from a row that moves along the batch (``Row/init(viewing:)``);
/// ``Row/prefetchedRows`` makes rows of their own when asked.
final class RowBatch {
    let columnNames: [String]
    /// No two columns share a name: lookups by name may start after the
    /// previous hit.
    let uniqueNames: Bool
    /// The number of columns.
    let width: Int
    /// The values, `width` per row. No dynamic exclusivity checks (one per
    /// value appended): a batch is filled by one fetch, on its thread, then
    /// only read, and no access spans a call.
    @exclusivity(unchecked) private(set) var values: [DatabaseValue] = []
    @exclusivity(unchecked) private(set) var count = 0

    /// An empty batch of these columns.
    init(columnNames: [String], uniqueNames: Bool) {
        self.columnNames = columnNames
        self.uniqueNames = uniqueNames
        width = columnNames.count
    }

    /// Appends the statement's current row.
    func appendCurrentRow(of sqliteStatement: OpaquePointer) {
        for index in 0..<width {
            values.append(DatabaseValue(columnOf: sqliteStatement, at: CInt(truncatingIfNeeded: index)))
        }
        count += 1
    }

    /// The value of a column of a row.
    func value(row: Int, column: Int) -> DatabaseValue {
        values[row * width + column]
    }

    /// A row of its own, with a copy of the values of row `index`.
    func row(at index: Int) -> Row {
        let start = index * width
        return Row(columnNames: columnNames, values: Array(values[start..<(start + width)]), isFetched: true)
    }
}

extension FetchSource {
    /// The rows of the source in a batch; nil when they need rows of their
    /// own: an adapter (scopes) or prefetches of their own.
    func fetchBatch() throws -> RowBatch? {
        guard adapter == nil, prefetch == nil else { return nil }
        var batch: RowBatch?
        try statement.forEachRow(arguments: arguments) { row in
            // Made from the first row, whose columns are those of the
            // statement as it runs (a first step may recompile it).
            guard let columnNameIndex = row.columnNameIndex, let sqliteStatement = row.sqliteStatement else { return false }
            let rowBatch = batch ?? RowBatch(columnNames: columnNameIndex.names, uniqueNames: !columnNameIndex.hasDuplicates)
            batch = rowBatch
            rowBatch.appendCurrentRow(of: sqliteStatement)
            return true
        }
        return batch ?? RowBatch(columnNames: statement.columnNames, uniqueNames: !statement.columnNameIndex.hasDuplicates)
    }
}
