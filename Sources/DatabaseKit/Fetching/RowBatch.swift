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

    /// The most values a batch reserves room for before its first row
    /// (6 MiB): a statement that once gave a huge batch does not make every
    /// later one as large; beyond it, a batch grows as it fills.
    static let largestReservation = 1 << 18

    /// An empty batch of these columns, with room for `capacity` rows (up
    /// to ``largestReservation`` values).
    init(columnNames: [String], uniqueNames: Bool, capacity: Int = 0) {
        self.columnNames = columnNames
        self.uniqueNames = uniqueNames
        width = columnNames.count
        let (wanted, overflow) = capacity.multipliedReportingOverflow(by: width)
        values.reserveCapacity(overflow ? Self.largestReservation : min(wanted, Self.largestReservation))
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

    /// The value of a column of a row, as an integer key.
    @inline(__always)
    func keyCell(row: Int, column: Int) -> KeyCell {
        KeyCell(values[row * width + column])
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
        let capacity = statement.lastBatchRowCount
        var iteration = try StatementIteration(statement: statement, arguments: arguments)
        defer { iteration.finish() }
        let hasRows = try iteration.step()
        // The columns as the statement runs: a first step may recompile it.
        let columnNameIndex = statement.columnNameIndex
        let batch = RowBatch(
            columnNames: columnNameIndex.names, uniqueNames: !columnNameIndex.hasDuplicates, capacity: hasRows ? capacity : 0)
        if hasRows {
            // A plain loop: no closure, no retain per row.
            let sqliteStatement = statement.sqliteStatement
            repeat { batch.appendCurrentRow(of: sqliteStatement) } while try iteration.step()
        }
        statement.lastBatchRowCount = batch.count
        return batch
    }
}

/// A value seen as an integer key: the integer, NULL, or anything else.
enum KeyCell {
    case integer(Int64)
    case null
    case other

    @inline(__always)
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .int64(let key): self = .integer(key)
        case .null: self = .null
        default: self = .other
        }
    }
}
