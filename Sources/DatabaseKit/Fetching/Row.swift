// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): the moving row of a prefetch
// batch (its offset and column hint), with the batch's values, assoc-prefetch 1316.6 M against 1539.1 M checked.

internal import DatabaseKitSQLite
import FoundationEssentials

/// A database row.
///
/// ```swift
/// let row = try Row.fetchOne(db, sql: "SELECT id, name, score FROM player")!
/// let id: Int64 = row[0]              // by index
/// let name: String = row["name"]      // by column name, case-insensitive
/// let score: Int? = row["score"]      // nil when NULL or missing
/// ```
///
/// Rows yielded by a cursor read the current row of the statement, without
/// copying: they change as the cursor moves. Call ``copy()`` to keep one.
/// Rows returned by `fetchAll`, `fetchOne` and `fetchSet` are copies.
///
/// Reading a statement row applies SQLite's conversions for the standard
/// types (an INTEGER read as a String is its text); reading a copied row
/// converts the stored ``DatabaseValue`` (see ``DatabaseValueConvertible``).
///
/// A typed subscript stops the program when the value can not be converted
/// (a programmer error, like an out-of-range array index); use
/// ``decode(_:atIndex:)-6iug4`` or ``decode(_:forColumn:)-7tonh`` to get a thrown error instead.
public final class Row {
    /// The statement whose current row this row reads, or nil for a copied row.
    let statement: Statement?

    /// The raw statement of ``statement``, read by the inlinable accessors so
    /// that reading a column costs one call into SQLite.
    @usableFromInline let sqliteStatement: OpaquePointer?

    /// The values and names of a copied row.
    @usableFromInline let storedValues: [DatabaseValue]
    @usableFromInline let storedColumnNames: [String]
    /// For the row that moves along a ``RowBatch``, the column to try first
    /// in a lookup by name: the one after the previous hit, as
    /// ``ColumnNameIndex`` does for statement rows, and the first after a
    /// move to another row. `Int.max` when two
    /// columns may share a name, and for every other row: a copied row may
    /// be read by several threads at once, and its reads never write. No
    /// dynamic exclusivity check: the moving row is confined to the decoding
    /// of one association's records, and no access spans a call.
    @exclusivity(unchecked) @usableFromInline var storedHint: Int
    /// Where the values of a copied row start in ``storedValues``: 0, but
    /// for the row that moves along a ``RowBatch``.
    @exclusivity(unchecked) @usableFromInline var storedOffset = 0
    /// True for the row that moves along a ``RowBatch``: its copies hold
    /// values of their own.
    let isBatchView: Bool

    /// The number of columns.
    public let count: Int

    /// The column lookup of a statement row, and of the adapted rows a
    /// fetch reads (the fetched row and its scopes), made once per fetch.
    @usableFromInline let columnNameIndex: ColumnNameIndex?

    /// The base row and layout of an adapted row (see ``RowAdapter``).
    var adaptation: (base: Row, layout: LayoutedRowAdapter)? {
        guard let adaptedBase, let layout else { return nil }
        return (adaptedBase, layout)
    }

    /// The base row of an adapted row: read apart from ``layout``, so that
    /// following it does not copy (and retain) the whole layout.
    @usableFromInline let adaptedBase: Row?
    let layout: LayoutedRowAdapter?
    /// The layout's base indexes, on their own for the same reason.
    @usableFromInline let adaptedIndexes: [Int]
    /// The statement of the base of an adapted row, when that base is a
    /// statement row: the slow paths read the value at the base index
    /// straight from it, without walking to the base row.
    @usableFromInline let adaptedStatement: OpaquePointer?

    /// True for rows read from the database (and their copies), false for
    /// rows built from values: `Record` tracks changes from fetched rows.
    let isFetched: Bool

    /// The rows of the `including(all:)` associations of the row, set by
    /// the fetch; nil for the others, at no cost.
    var prefetches: PrefetchedRowsView? {
        // The scope rows carry the prefetches of their subtree.
        didSet {
            firstScope = nil
            otherScopes = nil
        }
    }

    /// The scope rows already made, so that a fetch that reads a joined
    /// record from each row makes its scope row once; see ``scopeRow(named:)``.
    /// The first is kept in the row, the others (rare) apart. Only the views
    /// of a statement row keep them, and those are confined to their
    /// database access.
    var firstScope: (name: String, row: Row)?
    var otherScopes: ScopeRows?

    /// A row that reads the current row of a statement.
    init(statement: Statement) {
        self.statement = statement
        self.sqliteStatement = statement.sqliteStatement
        self.columnNameIndex = statement.columnNameIndex
        self.storedValues = []
        self.storedColumnNames = []
        self.storedHint = Int.max
        self.count = statement.columnCount
        self.adaptedBase = nil
        self.layout = nil
        self.adaptedIndexes = []
        self.adaptedStatement = nil
        self.isBatchView = false
        self.isFetched = true
    }

    /// A row that holds its values.
    init(columnNames: [String], values: [DatabaseValue], isFetched: Bool = false) {
        self.statement = nil
        self.sqliteStatement = nil
        self.columnNameIndex = nil
        self.storedValues = values
        self.storedColumnNames = columnNames
        self.storedHint = Int.max
        self.count = values.count
        self.adaptedBase = nil
        self.layout = nil
        self.adaptedIndexes = []
        self.adaptedStatement = nil
        self.isBatchView = false
        self.isFetched = isFetched
    }

    /// A row that reads the rows of a batch, the first one first: move it
    /// with ``moveToBatchRow(_:)``. Like a cursor's row, it changes as it
    /// moves; ``copy()`` keeps one.
    init(viewing batch: RowBatch) {
        self.statement = nil
        self.sqliteStatement = nil
        self.columnNameIndex = nil
        self.storedValues = batch.values
        self.storedColumnNames = batch.columnNames
        self.storedHint = batch.uniqueNames ? 0 : Int.max
        self.count = batch.width
        self.adaptedBase = nil
        self.layout = nil
        self.adaptedIndexes = []
        self.adaptedStatement = nil
        self.isBatchView = true
        self.isFetched = true
    }

    /// Moves a row made by ``init(viewing:)`` to row `index` of its batch.
    @inlinable @inline(__always)
    func moveToBatchRow(_ index: Int) {
        storedOffset = index * count
        // The next record reads its columns from the first one.
        if storedHint != Int.max { storedHint = 0 }
    }

    /// A view of `base` through a layout. It reads the base row, so a view
    /// of a statement row changes as the cursor moves, like its base.
    ///
    /// `indexed`: the row finds its columns through a ``ColumnNameIndex``,
    /// which pays off for a row read again and again (a fetch's row and its
    /// scopes), not for a row read once.
    init(base: Row, layout: LayoutedRowAdapter, indexed: Bool = false) {
        self.statement = nil
        // The inlinable fast paths read column n of the statement for value
        // n: right for the first columns of a statement row in order (the
        // record of a join's row), wrong for any other view.
        let readsPrefix = layout.baseIndexes.elementsEqual(layout.baseIndexes.indices)
        self.sqliteStatement = readsPrefix ? base.sqliteStatement : nil
        self.columnNameIndex = indexed ? ColumnNameIndex(names: layout.columnNames) : nil
        self.storedValues = []
        self.storedColumnNames = layout.columnNames
        self.storedHint = Int.max
        self.count = layout.columnNames.count
        self.adaptedBase = base
        self.layout = layout
        self.adaptedIndexes = layout.baseIndexes
        self.adaptedStatement = base.sqliteStatement
        self.isBatchView = false
        self.isFetched = base.isFetched
    }

    /// A view of `base` through an adapter.
    ///
    /// - throws: ``DatabaseError`` when the adapter does not fit the row's columns.
    public convenience init(_ base: Row, adapter: some RowAdapter) throws {
        self.init(base: base, layout: try adapter.layoutedAdapter(from: base.columnNames))
    }

    /// An empty row.
    public convenience init() {
        self.init(columnNames: [], values: [])
    }

    /// A row from a dictionary (column order follows the dictionary's).
    public convenience init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        self.init(
            columnNames: Array(dictionary.keys),
            values: dictionary.values.map { $0?.databaseValue ?? .null })
    }

    /// A row from a dictionary of any values, or nil when a key is not a
    /// String or a value is not ``DatabaseValueConvertible`` (`NSNull` is NULL).
    public convenience init?(_ dictionary: [AnyHashable: Any]) {
        var columnNames: [String] = []
        var values: [DatabaseValue] = []
        for (key, value) in dictionary {
            guard let name = key as? String, let dbValue = DatabaseValue(value: value) else { return nil }
            columnNames.append(name)
            values.append(dbValue)
        }
        self.init(columnNames: columnNames, values: values)
    }

    /// A row that keeps the current values, even after the cursor moves.
    public func copy() -> Row {
        // An adapted row keeps its adapter over a copy of its base: its
        // scopes and ``unadapted`` stay available.
        if let adaptation {
            let row = Row(base: adaptation.base.copy(), layout: adaptation.layout)
            row.prefetches = prefetches
            return row
        }
        if isBatchView {
            return Row(columnNames: storedColumnNames, values: Array(storedValues[storedOffset..<(storedOffset + count)]), isFetched: true)
        }
        guard sqliteStatement != nil else { return self }
        return Row(columnNames: columnNames, values: databaseValues, isFetched: true)
    }

    /// The column names, in order.
    public var columnNames: [String] {
        // The names read with `count`, when the row was made: a statement
        // that SQLite recompiles after a schema change reads its columns
        // again, and a row made before keeps those it was made with.
        columnNameIndex?.names ?? storedColumnNames
    }

    /// The values, in order.
    public var databaseValues: [DatabaseValue] {
        if let sqliteStatement {
            // Every copied row comes through here: a plain loop, into an
            // array whose storage type is specialized (the generic
            // `init(unsafeUninitializedCapacity:)` looks it up at run time).
            var values: [DatabaseValue] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                values.append(DatabaseValue(columnOf: sqliteStatement, at: CInt(truncatingIfNeeded: index)))
            }
            return values
        }
        if let adaptation { return adaptation.layout.baseIndexes.map { adaptation.base.databaseValue(atIndex: $0) } }
        if isBatchView { return Array(storedValues[storedOffset..<(storedOffset + count)]) }
        return storedValues
    }

    /// True when the row has a column with this name (case-insensitive).
    public func hasColumn(_ columnName: String) -> Bool {
        index(forColumn: columnName) != nil
    }

    /// True when the value at `index` is NULL.
    public func hasNull(atIndex index: Int) -> Bool {
        if let adaptedStatement {
            checkIndex(index)
            return sqlite3_column_type(adaptedStatement, CInt(truncatingIfNeeded: adaptedIndexes[index])) == SQLITE_NULL
        }
        let (base, baseIndex) = baseRow(atIndex: index)
        if let statement = base.sqliteStatement { return sqlite3_column_type(statement, CInt(baseIndex)) == SQLITE_NULL }
        return base.storedValues[base.storedOffset + baseIndex].isNull
    }

    /// True when at least one value is not NULL.
    public var containsNonNullValue: Bool {
        // Read for each joined record of a fetch: no closure, no walk to the base row.
        if let adaptedStatement {
            for baseIndex in adaptedIndexes where sqlite3_column_type(adaptedStatement, CInt(truncatingIfNeeded: baseIndex)) != SQLITE_NULL
            {
                return true
            }
            return false
        }
        for index in 0..<count where !hasNull(atIndex: index) { return true }
        return false
    }

    /// The index of the leftmost column with this name, case-insensitive.
    public func index(forColumn name: String) -> Int? {
        if let columnNameIndex { return columnNameIndex.index(of: name) }
        // The row of a batch: records read their columns in order, row after row.
        let hint = storedHint
        let names = storedColumnNames
        if hint < names.count, names[hint] == name {
            storedHint = hint + 1 == names.count ? 0 : hint + 1
            return hint
        }
        // The next record starts again from the first column, when the
        // previous one did not read the last (index 0 is the leftmost anyway).
        let index: Int
        if let first = names.first, first == name {
            index = 0
        } else {
            guard let leftmost = leftmostIndex(ofColumn: name, in: names) else { return nil }
            index = leftmost
        }
        if hint != Int.max { storedHint = index + 1 == names.count ? 0 : index + 1 }
        return index
    }

    /// The value at `index`.
    @inline(__always) @usableFromInline
    func databaseValue(atIndex index: Int) -> DatabaseValue {
        checkIndex(index)
        if let sqliteStatement { return DatabaseValue(columnOf: sqliteStatement, at: CInt(index)) }
        if let adaptedBase { return adaptedBase.databaseValue(atIndex: adaptedIndexes[index]) }
        return storedValues[storedOffset + index]
    }

    /// The name of the column at `index`.
    func columnName(atIndex index: Int) -> String {
        columnNameIndex?.names[index] ?? storedColumnNames[index]
    }

    @inline(__always)
    @usableFromInline
    func checkIndex(_ index: Int) {
        precondition(index >= 0 && index < count, "row index \(index) out of range 0..<\(count)")
    }

    // MARK: Subscripts by index

    /// The value at `index`, or nil when NULL.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        databaseValue(atIndex: index).storage.value
    }

    /// The value at `index`, converted. Stops the program when the conversion
    /// fails; see ``decode(_:atIndex:)-6iug4``.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        do { return try decode(Value.self, atIndex: index) } catch { fatalError("\(error)") }
    }

    /// The value at `index`, read straight from the statement.
    @inlinable @inline(__always)
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        if let sqliteStatement, UInt(bitPattern: index) < UInt(bitPattern: count),
            let value = Value.fromStatement(sqliteStatement, atUncheckedIndex: CInt(index))
        {
            return value
        }
        do { return try decodeSlowly(Value.self, atIndex: index) } catch { fatalError("\(error)") }
    }

    // MARK: Subscripts by column name

    /// The value of the named column, or nil when NULL or missing.
    public subscript(_ columnName: String) -> (any DatabaseValueConvertible)? {
        guard let index = index(forColumn: columnName) else { return nil }
        return self[index]
    }

    /// The value of the named column, converted. A missing column gives nil
    /// for an optional type. Stops the program when the conversion fails; see
    /// ``decode(_:forColumn:)-7tonh``.
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        do { return try decode(Value.self, forColumn: columnName) } catch { fatalError("\(error)") }
    }

    /// The value of the named column, read straight from the statement.
    @inlinable @inline(__always)
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ columnName: String) -> Value {
        if let value = indexedValue(Value.self, forColumn: columnName) { return value }
        if let value = hintedBatchValue(Value.self, forColumn: columnName) { return value }
        do { return try decodeSlowly(Value.self, forColumn: columnName) } catch { fatalError("\(error)") }
    }

    // MARK: Subscripts by column

    /// The value of the column, or nil when NULL or missing.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        self[column.name]
    }

    /// The value of the column, converted. Stops the program when the
    /// conversion fails; see ``decode(_:forColumn:)-8valc``.
    public subscript<Value: DatabaseValueConvertible>(_ column: some ColumnExpression) -> Value {
        self[column.name]
    }

    /// The value of the column, read straight from the statement.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some ColumnExpression) -> Value {
        self[column.name]
    }

    // MARK: Throwing decoding

    /// The value at `index`, converted.
    ///
    /// - throws: ``RowDecodingError`` when the value can not be converted.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, atIndex index: Int) throws -> Value {
        let dbValue = databaseValue(atIndex: index)
        if let value = Value.fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(Value.self, dbValue, row: self, key: .columnIndex(index))
    }

    /// The value at `index`, read straight from the statement.
    ///
    /// - throws: ``RowDecodingError`` when the value can not be converted.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        if let sqliteStatement, UInt(bitPattern: index) < UInt(bitPattern: count),
            let value = Value.fromStatement(sqliteStatement, atUncheckedIndex: CInt(index))
        {
            return value
        }
        return try decodeSlowly(Value.self, atIndex: index)
    }

    /// The value of the named column, converted.
    ///
    /// - throws: ``RowDecodingError`` when the column is missing (for a
    ///   non-optional type) or the value can not be converted.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, forColumn columnName: String) throws
        -> Value
    {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        let dbValue = databaseValue(atIndex: index)
        if let value = Value.fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(Value.self, dbValue, row: self, key: .columnName(columnName))
    }

    /// The value of the named column, read straight from the statement.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        if let value = indexedValue(Value.self, forColumn: columnName) { return value }
        if let value = hintedBatchValue(Value.self, forColumn: columnName) { return value }
        return try decodeSlowly(Value.self, forColumn: columnName)
    }

    /// The value of the column, converted.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, forColumn column: some ColumnExpression)
        throws -> Value
    {
        try decode(type, forColumn: column.name)
    }

    /// The value of the column, read straight from the statement.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn column: some ColumnExpression
    ) throws -> Value {
        try decode(type, forColumn: column.name)
    }

    // MARK: Slow paths, out of line

    /// The general path of the fast accessors: copied and adapted rows, NULL,
    /// conversion errors, indexes out of range. Inlinable, so that it is
    /// specialized for the type it reads: a generic call would look up the
    /// metadata of `Value?` for each value.
    @inlinable
    func decodeSlowly<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, atIndex index: Int
    ) throws -> Value {
        // A row adapted from a statement row (a joined record): one step to the statement.
        if let adaptedStatement, UInt(bitPattern: index) < UInt(bitPattern: count),
            let value = Value.fromStatement(adaptedStatement, atUncheckedIndex: CInt(adaptedIndexes[index]))
        {
            return value
        }
        // A copied row: its own value.
        if sqliteStatement == nil, adaptedBase == nil, UInt(bitPattern: index) < UInt(bitPattern: count),
            let value = Value.fromDatabaseValue(storedValues[storedOffset &+ index])
        {
            return value
        }
        let (base, baseIndex) = baseRow(atIndex: index)
        if let statement = base.sqliteStatement {
            // An adapted statement row reads its base, with SQLite's conversions.
            if let value = Value.fromStatement(statement, atUncheckedIndex: CInt(baseIndex)) { return value }
        } else if let value = Value.fromDatabaseValue(base.storedValue(atIndex: baseIndex)) {
            return value
        }
        throw RowDecodingError.valueMismatch(Value.self, databaseValue(atIndex: index), row: self, key: .columnIndex(index))
    }

    /// The row that holds the value at `index`, and its index there: the
    /// row itself, or the base of an adapted row.
    @usableFromInline
    func baseRow(atIndex index: Int) -> (Row, Int) {
        checkIndex(index)
        var row = self
        var index = index
        while let base = row.adaptedBase {
            index = row.adaptedIndexes[index]
            row = base
        }
        return (row, index)
    }

    /// The value of a copied row.
    @usableFromInline
    func storedValue(atIndex index: Int) -> DatabaseValue { storedValues[storedOffset + index] }

    /// The general path of the fast accessors by name: copied rows, missing
    /// columns, NULL, conversion errors.
    @inlinable
    func decodeSlowly<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, forColumn columnName: String
    ) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        // A copied row (a prefetched one): its own value, here rather than
        // through decodeSlowly(atIndex:), which stays a call (assoc-prefetch
        // 1333.0 M without this test, 1307.6 M with it).
        if sqliteStatement == nil, adaptedBase == nil, let value = Value.fromDatabaseValue(storedValues[storedOffset &+ index]) {
            return value
        }
        do {
            return try decodeSlowly(Value.self, atIndex: index)
        } catch var error as RowDecodingError {
            error.key = .columnName(columnName)
            throw error
        }
    }

    /// The value of the named column, read straight from the statement, for
    /// a statement row and for the views of one a fetch reads (its row seen
    /// through an adapter, the scopes of a joined record); nil for the other
    /// rows, a missing column, NULL, and a failed conversion, which the slow
    /// paths tell apart.
    @inlinable @inline(__always)
    func indexedValue<Value: StatementColumnConvertible>(_ type: Value.Type, forColumn name: String) -> Value? {
        guard let index = columnNameIndex?.index(of: name) else { return nil }
        // Column indexes come from the statement's columns: they fit a CInt.
        if let sqliteStatement { return Value.fromStatement(sqliteStatement, atUncheckedIndex: CInt(truncatingIfNeeded: index)) }
        if let adaptedStatement {
            return Value.fromStatement(adaptedStatement, atUncheckedIndex: CInt(truncatingIfNeeded: adaptedIndexes[index]))
        }
        return nil
    }

    /// The value of the named column of the row that moves along a batch,
    /// when it is the column after the previous hit (a record reads its
    /// columns in order); nil for the other rows, any other column, NULL
    /// and a failed conversion, which ``index(forColumn:)`` and the slow
    /// paths handle.
    @inlinable @inline(__always)
    func hintedBatchValue<Value: DatabaseValueConvertible>(_ type: Value.Type, forColumn name: String) -> Value? {
        let hint = storedHint
        let names = storedColumnNames
        guard hint < names.count, names[hint] == name else { return nil }
        storedHint = hint &+ 1 == names.count ? 0 : hint &+ 1
        return Value.fromDatabaseValue(storedValues[storedOffset &+ hint])
    }

    // MARK: Coalescing

    /// The first non-NULL value of the columns, converted, or nil.
    ///
    /// ```swift
    /// let name: String? = row.coalesce(["nickname", "name"])
    /// ```
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<String>) -> T? {
        for column in columns {
            if let value = self[column] as T? { return value }
        }
        return nil
    }

    /// The first non-NULL value of the columns, converted, or nil.
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<any ColumnExpression>) -> T? {
        coalesce(columns.map(\.name))
    }
}

@available(*, unavailable, message: "Rows may read a live statement: copy() them and send their values instead")
extension Row: Sendable {}

// MARK: - Collection, equality, description

extension Row: RandomAccessCollection {
    /// A column position. A type of its own, so that `row[0]` always means the
    /// value subscript.
    public struct Index: Comparable, Strideable, Sendable {
        let offset: Int

        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.offset < rhs.offset }
        public func distance(to other: Index) -> Int { other.offset - offset }
        public func advanced(by n: Int) -> Index { Index(offset: offset + n) }
    }

    public var startIndex: Index { Index(offset: 0) }
    public var endIndex: Index { Index(offset: count) }

    /// The column name and value at a position.
    public subscript(position: Index) -> (String, DatabaseValue) {
        (columnName(atIndex: position.offset), databaseValue(atIndex: position.offset))
    }
}

extension Row: Equatable, Hashable {
    /// Rows are equal when they have the same columns, in the same order, with
    /// equal values, and equal scopes.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        if lhs === rhs { return true }
        guard lhs.count == rhs.count, lhs.columnNames == rhs.columnNames, lhs.databaseValues == rhs.databaseValues
        else { return false }
        let lhsScopes = lhs.scopes
        let rhsScopes = rhs.scopes
        guard lhsScopes.names == rhsScopes.names else { return false }
        for name in lhsScopes.names where lhsScopes[name] != rhsScopes[name] {
            return false
        }
        // Prefetched rows count too, as in GRDB: a row with `"books": []`
        // differs from the same row without a prefetch.
        if lhs.prefetches != nil || rhs.prefetches != nil {
            return lhs.prefetchedRows == rhs.prefetchedRows
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(columnNames)
        hasher.combine(databaseValues)
    }
}

extension Row: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[id:1 name:"Arthur" score:NULL]`
    public var description: String {
        "[" + zip(columnNames, databaseValues).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    /// The description, and for an adapted row its unadapted row and its
    /// scopes, one per line.
    public var debugDescription: String {
        debugDescription(level: 0)
    }

    private func debugDescription(level: Int) -> String {
        if level == 0 && adaptation == nil && prefetchedRows.isEmpty { return description }
        let indent = String(repeating: "  ", count: level + 1)
        var text = level == 0 ? "▿ " + description : description
        if level == 0 {
            let unadapted = self.unadapted
            if self != unadapted { text += "\n" + indent + "unadapted: " + unadapted.description }
        }
        for (name, scope) in scopes.sorted(by: { $0.name < $1.name }) {
            text += "\n" + indent + "- " + name + ": " + scope.debugDescription(level: level + 1)
        }
        let prefetched = prefetchedRows
        for key in prefetched.keys.sorted() {
            guard let count = prefetched[key]?.count else { continue }
            // GRDB's words: "0 row", "1 row", "2 rows".
            text += "\n" + indent + "+ " + key + ": " + (count > 1 ? "\(count) rows" : "\(count) row")
        }
        return text
    }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// `["id": 1, "name": "Arthur"]`, columns in literal order.
    public convenience init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(columnNames: elements.map(\.0), values: elements.map { $0.1?.databaseValue ?? .null })
    }
}

// MARK: - Decoding errors

/// An error thrown when a row value can not be decoded: the column is
/// missing, or its value does not convert to the requested type.
public struct RowDecodingError: Error, CustomStringConvertible {
    /// What was looked for in the row.
    @usableFromInline enum Key: Hashable, Sendable {
        case columnName(String)
        case columnIndex(Int)
        case scope(String)
        case prefetchKey(String)
    }

    enum Kind {
        case keyNotFound
        case valueMismatch(Any.Type)
    }

    let kind: Kind
    /// The first sentence of the description.
    let debugDescription: String
    /// A copy of the row.
    let rowDescription: String
    let columnNames: [String]
    @usableFromInline var key: Key?
    let sql: String?
    let arguments: StatementArguments?

    private init(kind: Kind, debugDescription: String, row: Row, key: Key?) {
        self.kind = kind
        self.debugDescription = debugDescription
        self.rowDescription = row.description
        self.columnNames = row.columnNames
        self.key = key
        var statementRow = row
        while let base = statementRow.adaptation?.base { statementRow = base }
        self.sql = statementRow.statement?.sql
        self.arguments = statementRow.statement?.arguments
    }

    @usableFromInline static func valueMismatch(_ type: Any.Type, _ dbValue: DatabaseValue, row: Row, key: Key?) -> RowDecodingError {
        RowDecodingError(
            kind: .valueMismatch(type), debugDescription: "could not decode \(type) from database value \(dbValue)",
            row: row, key: key)
    }

    static func valueMismatch(_ type: Any.Type, debugDescription: String, row: Row, key: Key?) -> RowDecodingError {
        RowDecodingError(kind: .valueMismatch(type), debugDescription: debugDescription, row: row, key: key)
    }

    @usableFromInline static func columnNotFound(_ column: String, row: Row) -> RowDecodingError {
        RowDecodingError(
            kind: .keyNotFound, debugDescription: "column not found: \(String(reflecting: column))", row: row,
            key: .columnName(column))
    }

    static func keyNotFound(_ key: Key, debugDescription: String, row: Row) -> RowDecodingError {
        RowDecodingError(kind: .keyNotFound, debugDescription: debugDescription, row: row, key: key)
    }

    /// "could not decode Int from database value NULL - column: "score",
    /// column index: 2, row: [...], sql: `SELECT ...`, arguments: []".
    public var description: String {
        var chunks: [String] = []
        switch key {
        case .columnIndex(let index) where index < columnNames.count:
            chunks.append("column: \(String(reflecting: columnNames[index]))")
            chunks.append("column index: \(index)")
        case .columnName(let name):
            if let index = leftmostIndex(ofColumn: name, in: columnNames) {
                chunks.append("column: \(String(reflecting: name))")
                chunks.append("column index: \(index)")
            }
        default:
            break
        }
        chunks.append("row: \(rowDescription)")
        if let sql { chunks.append("sql: `\(sql)`") }
        if let arguments { chunks.append("arguments: \(arguments)") }
        return debugDescription + " - " + chunks.joined(separator: ", ")
    }
}
