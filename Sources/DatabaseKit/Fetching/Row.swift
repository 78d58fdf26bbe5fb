internal import DatabaseKitSQLite
import Foundation

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
/// A typed subscript stops the program when the value can not be converted
/// (a programmer error, like an out-of-range array index); use
/// ``decode(_:atIndex:)`` or ``decode(_:forKey:)`` to get a thrown error instead.
public final class Row {
    /// The statement whose current row this row reads, or nil for a copied row.
    let statement: Statement?

    /// The raw statement of ``statement``, read by the inlinable accessors so
    /// that reading a column costs one call into SQLite.
    @usableFromInline let sqliteStatement: OpaquePointer?

    /// The values and names of a copied row.
    let storedValues: [DatabaseValue]
    let storedColumnNames: [String]

    /// The number of columns.
    public let count: Int

    /// The column lookup of a statement row.
    private let columnNameIndex: ColumnNameIndex?

    /// The base row and layout of an adapted row (see ``RowAdapter``).
    let adaptation: (base: Row, layout: LayoutedRowAdapter)?

    /// A row that reads the current row of a statement.
    init(statement: Statement) {
        self.statement = statement
        self.sqliteStatement = statement.sqliteStatement
        self.columnNameIndex = statement.columnNameIndex
        self.storedValues = []
        self.storedColumnNames = []
        self.count = statement.columnCount
        self.adaptation = nil
    }

    /// A row that holds its values.
    init(columnNames: [String], values: [DatabaseValue]) {
        self.statement = nil
        self.sqliteStatement = nil
        self.columnNameIndex = nil
        self.storedValues = values
        self.storedColumnNames = columnNames
        self.count = values.count
        self.adaptation = nil
    }

    /// A view of `base` through a layout. It reads the base row, so a view
    /// of a statement row changes as the cursor moves, like its base.
    init(base: Row, layout: LayoutedRowAdapter) {
        self.statement = nil
        self.sqliteStatement = nil  // the inlinable fast paths must not read the statement directly
        self.columnNameIndex = nil
        self.storedValues = []
        self.storedColumnNames = layout.columnNames
        self.count = layout.columnNames.count
        self.adaptation = (base, layout)
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

    /// A row that keeps the current values, even after the cursor moves.
    public func copy() -> Row {
        // An adapted row keeps its adapter over a copy of its base: its
        // scopes and ``unadapted`` stay available.
        if let adaptation { return Row(base: adaptation.base.copy(), layout: adaptation.layout) }
        guard sqliteStatement != nil else { return self }
        return Row(columnNames: columnNames, values: databaseValues)
    }

    /// The column names, in order.
    public var columnNames: [String] {
        statement?.columnNames ?? storedColumnNames
    }

    /// The values, in order.
    public var databaseValues: [DatabaseValue] {
        if let sqliteStatement {
            return (0..<count).map { DatabaseValue(columnOf: sqliteStatement, at: CInt($0)) }
        }
        if let adaptation { return adaptation.layout.baseIndexes.map { adaptation.base.databaseValue(atIndex: $0) } }
        return storedValues
    }

    /// True when the row has a column with this name (case-insensitive).
    public func hasColumn(_ columnName: String) -> Bool {
        index(forColumn: columnName) != nil
    }

    /// True when the value at `index` is NULL.
    public func hasNull(atIndex index: Int) -> Bool {
        databaseValue(atIndex: index).isNull
    }

    /// True when at least one value is not NULL.
    public var containsNonNullValue: Bool {
        (0..<count).contains { !hasNull(atIndex: $0) }
    }

    /// The index of the leftmost column with this name, case-insensitive.
    public func index(forColumn name: String) -> Int? {
        if let columnNameIndex { return columnNameIndex.index(of: name) }
        return leftmostIndex(ofColumn: name, in: storedColumnNames)
    }

    /// The value at `index`.
    @inline(__always)
    func databaseValue(atIndex index: Int) -> DatabaseValue {
        checkIndex(index)
        if let sqliteStatement { return DatabaseValue(columnOf: sqliteStatement, at: CInt(index)) }
        if let adaptation { return adaptation.base.databaseValue(atIndex: adaptation.layout.baseIndexes[index]) }
        return storedValues[index]
    }

    @inline(__always)
    private func checkIndex(_ index: Int) {
        precondition(index >= 0 && index < count, "row index \(index) out of range 0..<\(count)")
    }

    // MARK: Subscripts by index

    /// The value at `index`, or nil when NULL.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        databaseValue(atIndex: index).storageValue
    }

    /// The value at `index`, converted. Stops the program when the conversion
    /// fails; see ``decode(_:atIndex:)``.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        do { return try decode(Value.self, atIndex: index) } catch { fatalError("\(error)") }
    }

    /// The value at `index`, read straight from the statement.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        if let sqliteStatement, index >= 0, index < count,
            let value = Value(sqliteStatement: sqliteStatement, index: CInt(index))
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
    /// ``decode(_:forKey:)``.
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        do { return try decode(Value.self, forKey: columnName) } catch { fatalError("\(error)") }
    }

    /// The value of the named column, read straight from the statement.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ columnName: String) -> Value {
        if let sqliteStatement, let index = statementColumnIndex(columnName),
            let value = Value(sqliteStatement: sqliteStatement, index: CInt(index))
        {
            return value
        }
        do { return try decodeSlowly(Value.self, forKey: columnName) } catch { fatalError("\(error)") }
    }

    // MARK: Throwing decoding

    /// The value at `index`, converted.
    ///
    /// - throws: ``RowDecodingError`` when the value can not be converted.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, atIndex index: Int) throws -> Value {
        let dbValue = databaseValue(atIndex: index)
        if let value = Value.fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(Value.self, dbValue, column: columnNames[index], index: index, row: self)
    }

    /// The value at `index`, read straight from the statement.
    ///
    /// - throws: ``RowDecodingError`` when the value can not be converted.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        if let sqliteStatement, index >= 0, index < count,
            let value = Value(sqliteStatement: sqliteStatement, index: CInt(index))
        {
            return value
        }
        return try decodeSlowly(Value.self, atIndex: index)
    }

    /// The value of the named column, converted.
    ///
    /// - throws: ``RowDecodingError`` when the column is missing (for a
    ///   non-optional type) or the value can not be converted.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, forKey columnName: String) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        return try decode(Value.self, atIndex: index)
    }

    /// The value of the named column, read straight from the statement.
    @inlinable
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forKey columnName: String
    ) throws -> Value {
        if let sqliteStatement, let index = statementColumnIndex(columnName),
            let value = Value(sqliteStatement: sqliteStatement, index: CInt(index))
        {
            return value
        }
        return try decodeSlowly(Value.self, forKey: columnName)
    }

    // MARK: Slow paths, out of line

    /// The general path of the fast accessors: copied rows, NULL, conversion
    /// errors, indexes out of range.
    @usableFromInline
    func decodeSlowly<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, atIndex index: Int
    ) throws -> Value {
        checkIndex(index)
        if let sqliteStatement {
            if let value = Value(sqliteStatement: sqliteStatement, index: CInt(index)) { return value }
        } else if let value = Value.fromDatabaseValue(databaseValue(atIndex: index)) {
            return value
        }
        let dbValue = databaseValue(atIndex: index)
        throw RowDecodingError.valueMismatch(Value.self, dbValue, column: columnNames[index], index: index, row: self)
    }

    /// The general path of the fast accessors by name: copied rows, missing
    /// columns, NULL, conversion errors.
    @usableFromInline
    func decodeSlowly<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, forKey columnName: String
    ) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, row: self)
        }
        return try decodeSlowly(Value.self, atIndex: index)
    }

    /// The column index of a statement row; nil for a copied row or a missing column.
    @usableFromInline
    func statementColumnIndex(_ name: String) -> Int? {
        columnNameIndex?.index(of: name)
    }
}

@available(*, unavailable, message: "Rows may read a live statement: copy() them and send their values instead")
extension Row: Sendable {}

extension DatabaseValue {
    /// The stored value as a Swift value, nil for NULL.
    var storageValue: (any DatabaseValueConvertible)? {
        switch storage {
        case .null: return nil
        case .int64(let int64): return int64
        case .double(let double): return double
        case .string(let string): return string
        case .blob(let data): return data
        }
    }
}

/// An error thrown when a row value can not be decoded.
public enum RowDecodingError: Error, CustomStringConvertible {
    /// The value can not be converted to the requested type.
    case valueMismatch(Any.Type, DatabaseValue, column: String, index: Int, rowDescription: String)
    /// The row has no column with this name.
    case columnNotFound(String, rowDescription: String)

    static func valueMismatch(_ type: Any.Type, _ value: DatabaseValue, column: String, index: Int, row: Row) -> Self {
        .valueMismatch(type, value, column: column, index: index, rowDescription: row.description)
    }

    static func columnNotFound(_ column: String, row: Row) -> Self {
        .columnNotFound(column, rowDescription: row.description)
    }

    /// A description naming the type, the value, the column and the row.
    public var description: String {
        switch self {
        case let .valueMismatch(type, value, column, index, row):
            return
                "could not decode \(type) from database value \(value) - column: \(String(reflecting: column)), column index: \(index), row: \(row)"
        case let .columnNotFound(column, row):
            return "column not found: \(String(reflecting: column)) - row: \(row)"
        }
    }
}

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
        (columnNames[position.offset], databaseValue(atIndex: position.offset))
    }
}

extension Row: Equatable, Hashable {
    /// Rows are equal when they have the same columns, in the same order, with
    /// equal values.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        if lhs === rhs { return true }
        return lhs.count == rhs.count
            && lhs.columnNames == rhs.columnNames
            && lhs.databaseValues == rhs.databaseValues
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(databaseValues)
    }
}

extension Row: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[id:1 name:"Arthur" score:NULL]`
    public var description: String {
        "[" + zip(columnNames, databaseValues).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    public var debugDescription: String { description }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// `["id": 1, "name": "Arthur"]`, columns in literal order.
    public convenience init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(columnNames: elements.map(\.0), values: elements.map { $0.1?.databaseValue ?? .null })
    }
}
