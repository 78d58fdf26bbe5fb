import FoundationEssentials

// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): the decoder's state:
// without it and the cursors' and the connection's, fetch-decodable runs 15% more instructions,
// record-fetch-codable 10%.

extension FetchableRecord where Self: Decodable {
    /// Creates a record from `row` with its `Decodable` conformance; see
    /// ``FetchableRecordDecoder`` for how each property is decoded.
    public init(row: Row) throws {
        self = try FetchableRecordDecoder().decode(Self.self, from: row)
    }
}

/// Decodes `Decodable` records from rows. Prefer `init(row:)`, or the fetch
/// methods, which use it:
///
/// - a property whose coding key names a column (after the record's
///   ``FetchableRecord/databaseColumnDecodingStrategy``) decodes from it:
///   `Data` and `Date` with the record's strategies, other
///   ``DatabaseValueConvertible`` types as they convert, and other types
///   from the value itself, or from JSON text with
///   ``FetchableRecord/databaseJSONDecoder(for:)`` when they need a keyed
///   or unkeyed container;
/// - a property whose key names a scope decodes from the scoped row (nil
///   for an optional when the scoped row is all NULL);
/// - one property whose key is neither decodes from the whole row, so that
///   a record can be made of other records.
///
/// The records read from one statement share a decoder: the record type's
/// ``FetchableRecord/databaseColumnDecodingStrategy`` is read when the
/// statement first decodes one, not for each record.
public final class FetchableRecordDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// Decodes a record from a row.
    public func decode<T: FetchableRecord & Decodable>(_ type: T.Type, from row: Row) throws -> T {
        let decoder = RowDecoder.start(T.self, from: row)
        defer { decoder.isDecoding = false }
        return try T(from: decoder)
    }
}

/// A `Decoder` over a row. Not generic over the record: the record type is a
/// value, so that decoding pays no generic metadata lookup. A class: one
/// allocation holds it all, fits an `any Decoder` without a box, and keeps
/// the one mutable fact of a decoding (the key that took the whole row).
///
/// The rows of a statement all have its columns, so one decoder serves the
/// records read from a statement, row after row, execution after execution:
/// the statement keeps it (see ``Statement/reusableRecordDecoder``), and it
/// keeps the keyed container that the record's `init(from:)` asks for. A new
/// decoder and a new container per record would cost two allocations and
/// three generic metadata lookups each.
final class RowDecoder: Decoder {
    let recordType: any FetchableRecord.Type
    /// The identity of ``recordType``, compared when the decoder is reused.
    let recordTypeID: ObjectIdentifier
    /// The row being decoded; an empty detached row between the executions
    /// of the statement that keeps the decoder, which must not be kept
    /// alive by its own decoder.
    ///
    /// Read by every decoded property: no dynamic exclusivity check. The
    /// decoder belongs to its statement, which only the thread of the
    /// current access uses, and no access to the row spans a call.
    @exclusivity(unchecked) private(set) var row: Row
    /// The statement and column lookup of ``row``, the same for every row
    /// the decoder reads (the rows of one statement): constants, which the
    /// properties read without retaining the row.
    let sqliteStatement: OpaquePointer?
    let columnNameIndex: ColumnNameIndex?
    let codingPath: [any CodingKey]
    let columnStrategy: DatabaseColumnDecodingStrategy
    /// The name of the key that decoded from the whole row: only one may.
    /// A string rather than the key, whose optional existential is copied
    /// to be tested; no dynamic exclusivity check (only the decoding thread
    /// touches it, and no access spans a call).
    @exclusivity(unchecked) var rootKeyName: String?
    /// The column of each key, when the strategy renames columns.
    let columnForKey: [String: String]?
    var userInfo: [CodingUserInfoKey: Any] { recordType.databaseDecodingUserInfo }

    /// True once the decoder serves a second record: it then keeps its keyed
    /// container (a fetch of one record would only pay for keeping it). The
    /// statement breaks the reference cycle this makes when its iteration
    /// ends.
    private var keepsKeyedContainer = false
    /// True while a record decodes from this decoder: a record that
    /// decodes another one from the same row needs a decoder of its own.
    var isDecoding = false
    /// The keyed container of the last record, for the next one.
    private var keyedContainerCache: KeptKeyedContainer?

    /// The column of each key a record asked for, in the order it asked:
    /// the next record of the statement asks for the same keys in the same
    /// order (its `init(from:)` is the same code), so a key costs a string
    /// comparison, not a lookup by name. A key that differs from the one
    /// remembered at its place is looked up, and replaces it. No dynamic
    /// exclusivity checks: see ``row``. An index of -1 is a missing column.
    @exclusivity(unchecked) private var keyColumns: [(name: String, index: Int)] = []
    /// The place of the next key in ``keyColumns``, from 0 for each record.
    @exclusivity(unchecked) private var nextKeyPlace = 0

    init(recordType: any FetchableRecord.Type, row: Row, codingPath: [any CodingKey], columnStrategy: DatabaseColumnDecodingStrategy) {
        self.recordType = recordType
        self.recordTypeID = ObjectIdentifier(recordType)
        self.row = row
        self.sqliteStatement = row.sqliteStatement
        self.columnNameIndex = row.columnNameIndex
        self.codingPath = codingPath
        self.columnStrategy = columnStrategy
        if case .useDefaultKeys = columnStrategy {
            columnForKey = nil
        } else {
            var columnForKey: [String: String] = [:]
            for column in row.columnNames {
                let key = columnStrategy.key(forColumn: column)
                if columnForKey[key] == nil { columnForKey[key] = column }
            }
            self.columnForKey = columnForKey
        }
    }

    /// The decoder of a record, marked as decoding: the one the row's
    /// statement keeps for this row and record type when it is free, or a
    /// new one, which the statement keeps while it is iterated unless its
    /// kept decoder is busy (a record decoding another from the same row).
    static func start<T: FetchableRecord & Decodable>(_ type: T.Type, from row: Row) -> RowDecoder {
        let decoder: RowDecoder
        if let statement = row.statement, statement.isBorrowed {
            if let kept = statement.reusableRecordDecoder, !kept.isDecoding, kept.recordTypeID == ObjectIdentifier(T.self) {
                // A row of the same statement: the same columns.
                decoder = kept
                if decoder.row !== row { decoder.row = row }
                decoder.rootKeyName = nil
                decoder.keepsKeyedContainer = true
            } else {
                let keep = statement.reusableRecordDecoder.map { !$0.isDecoding } ?? true
                decoder = RowDecoder(recordType: T.self, row: row, codingPath: [], columnStrategy: T.databaseColumnDecodingStrategy)
                if keep { statement.keepRecordDecoder(decoder) }
            }
        } else {
            decoder = RowDecoder(recordType: T.self, row: row, codingPath: [], columnStrategy: T.databaseColumnDecodingStrategy)
        }
        decoder.isDecoding = true
        decoder.nextKeyPlace = 0
        return decoder
    }

    /// The column index of each key of a one-byte (or empty) trivial type,
    /// by the key's byte: the synthesized `CodingKeys` enums, whose cases
    /// are their bytes. A key is then read without its name. -2: not looked
    /// up yet; -1: no such column.
    @exclusivity(unchecked) private var keyByteColumns: [Int32] = []
    /// The key type of ``keyByteColumns``.
    @exclusivity(unchecked) private var keyByteType: ObjectIdentifier?

    /// The index of the column of `key` (after no renaming strategy); nil
    /// when the row has no such column.
    @inline(__always)
    func columnIndex<K: CodingKey>(for key: K) -> Int? {
        guard _isPOD(K.self) && MemoryLayout<K>.size <= 1 else { return columnIndex(forNextKey: key.stringValue) }
        let byte = MemoryLayout<K>.size == 0 ? 0 : Int(unsafeBitCast(key, to: UInt8.self))
        if keyByteType == ObjectIdentifier(K.self) {
            let known = keyByteColumns[byte]
            if known >= 0 { return Int(known) }
            if known == -1 { return nil }
        } else {
            keyByteType = ObjectIdentifier(K.self)
            keyByteColumns = Array(repeating: -2, count: 256)
        }
        let index = columnNameIndex?.index(of: key.stringValue)
        keyByteColumns[byte] = index.map { Int32($0) } ?? -1
        return index
    }

    /// The index of the column named `column`, for the next key the record
    /// asks for (see ``keyColumns``); nil when the row has no such column.
    @inline(__always)
    func columnIndex(forNextKey column: String) -> Int? {
        let place = nextKeyPlace
        nextKeyPlace = place &+ 1
        if place < keyColumns.count {
            let known = keyColumns[place]
            if known.name == column { return known.index < 0 ? nil : known.index }
        }
        let index = columnNameIndex?.index(of: column)
        let entry = (name: column, index: index ?? -1)  // -1: no such column
        if place < keyColumns.count {
            keyColumns[place] = entry
        } else {
            keyColumns.append(entry)
        }
        return index
    }

    /// Drops the kept container, which refers to this decoder.
    func forgetKeyedContainer() {
        keyedContainerCache = nil
    }

    /// Forgets the row between two executions of the statement that keeps
    /// the decoder: the row refers to that statement.
    func detachRow() {
        row = RowDecoder.detachedRow
    }

    /// The row of a detached decoder: empty, immutable (every stored
    /// property of a row built from values is a constant), so shared.
    nonisolated(unsafe) private static let detachedRow = Row()

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let cache = keyedContainerCache, cache.keyType == ObjectIdentifier(Key.self) {
            return cache.container(as: KeyedDecodingContainer<Key>.self)
        }
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(decoder: self))
        if keepsKeyedContainer { keyedContainerCache = .keeping(container, keyedBy: Key.self) }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if let key = codingPath.last {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath.dropLast(), debugDescription: "No available prefetched rows"))
        }
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "unkeyed decoding from database row is not supported"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard let key = codingPath.last else {
            // A value decoded from the whole row: the first column.
            guard !row.isEmpty else {
                throw RowDecodingError.columnNotFound("0", row: row)
            }
            return ColumnDecoder(recordType: recordType, row: row, index: 0, codingPath: codingPath)
        }
        guard let index = row.index(forColumn: key.stringValue) else {
            throw RowDecodingError.columnNotFound(key.stringValue, row: row)
        }
        return ColumnDecoder(recordType: recordType, row: row, index: index, codingPath: codingPath)
    }
}

/// The columns and scopes of a row, by coding key. A struct of one
/// reference: a generic class would cost a metadata lookup and an allocation
/// per row, a larger struct a copy per decoded property.
private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RowDecoder

    init(decoder: RowDecoder) {
        self.decoder = decoder
    }

    var row: Row { decoder.row }

    private var columnForKey: [String: String]? { decoder.columnForKey }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var names = columnForKey.map { Set($0.keys) } ?? Set(row.columnNames)
        names.formUnion(row.scopesTree.names)
        names.formUnion(row.prefetchedRows.keys)
        return names.compactMap(Key.init(stringValue:))
    }

    /// The column of a key, when the row has it.
    private func columnIndex(forKey key: Key) -> (column: String, index: Int)? {
        let column = columnForKey.map { $0[key.stringValue] } ?? key.stringValue
        guard let column, let index = row.index(forColumn: column) else { return nil }
        return (column, index)
    }

    /// The column of a key, for the primitive types: a missing column is an error.
    private func column(forKey key: Key) throws -> String {
        guard let columnForKey else { return key.stringValue }
        guard let column = columnForKey[key.stringValue] else {
            throw RowDecodingError.keyNotFound(
                .columnName(key.stringValue), debugDescription: "key not found: \(key) (\(String(reflecting: key.stringValue)))",
                row: row)
        }
        return column
    }

    func contains(_ key: Key) -> Bool {
        columnIndex(forKey: key) != nil || row.scopesTree[key.stringValue] != nil
            || row.prefetchedRows.group(forKey: key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if let (_, index) = columnIndex(forKey: key) { return row.hasNull(atIndex: index) }
        if let scoped = row.scopesTree[key.stringValue] { return !scoped.containsNonNullValue }
        // Prefetched rows, even none, are an empty array, never nil.
        if row.prefetches != nil, row.prefetchedRows.group(forKey: key.stringValue) != nil { return false }
        return true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(key) }

    /// A primitive from its column. Inlined, so that each overload reads its
    /// type without generic dispatch; the row is read from the decoder once.
    @inline(__always)
    private func primitive<V: DatabaseValueConvertible & StatementColumnConvertible>(_ key: Key) throws -> V {
        let decoder = self.decoder
        if decoder.columnForKey == nil {
            // The fast path of `Row.decode(_:forColumn:)`, written out so that
            // the whole read is one function per type.
            if let sqliteStatement = decoder.sqliteStatement, let index = decoder.columnIndex(for: key),
                let value = V.fromStatement(sqliteStatement, atUncheckedIndex: CInt(index))
            {
                return value
            }
            return try decoder.row.decodeSlowly(V.self, forColumn: key.stringValue)
        }
        return try decoder.row.decode(V.self, forColumn: column(forKey: key))
    }

    // The optional primitives: one column lookup, no dynamic cast.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try primitiveIfPresent(key) }

    /// A primitive from its column (NULL is nil); from elsewhere (a scope,
    /// no column) as any other type. Inlined, so that each overload reads
    /// its type without generic dispatch.
    @inline(__always)
    private func primitiveIfPresent<V: Decodable & DatabaseValueConvertible & StatementColumnConvertible>(_ key: Key) throws -> V? {
        let decoder = self.decoder
        if decoder.columnForKey == nil, let sqliteStatement = decoder.sqliteStatement,
            let index = decoder.columnIndex(for: key)
        {
            // The fast path of `primitive(_:)`. A column reader returns nil
            // for NULL, and for a value it can not convert, which it leaves
            // as it is: its type then tells them apart.
            if let value = V.fromStatement(sqliteStatement, atUncheckedIndex: CInt(index)) { return value }
            if columnIsNull(sqliteStatement, at: CInt(index)) { return nil }
            return try decodeFast(V.self, row: decoder.row, index: index, column: key.stringValue)
        }
        guard let (column, index) = columnIndex(forKey: key) else { return try decodeAnyIfPresent(V.self, forKey: key) }
        if row.hasNull(atIndex: index) { return nil }
        return try decodeFast(V.self, row: row, index: index, column: column)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decodeAnyIfPresent(T.self, forKey: key)
    }

    private func decodeAnyIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if let (column, index) = columnIndex(forKey: key) {
            if row.hasNull(atIndex: index) {
                // NULL is nil, unless the type decodes it (DatabaseValue does).
                if let convertibleType = T.self as? any DatabaseValueConvertible.Type,
                    let value = convertibleType.fromDatabaseValue(.null) as? T
                {
                    return value
                }
                return nil
            }
            return try decodeColumn(T.self, column: column, index: index, key: key)
        }
        if let scoped = row.scopesTree[key.stringValue] {
            // A left-joined scope with no match is all NULL.
            guard scoped.containsNonNullValue else { return nil }
            return try decodeRow(T.self, from: scoped, key: key)
        }
        if let group = row.prefetchedRows.group(forKey: key.stringValue) {
            return try decodePrefetched(T.self, group: group, key: key)
        }
        return nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let (column, index) = columnIndex(forKey: key) {
            return try decodeColumn(T.self, column: column, index: index, key: key)
        }
        if let scoped = row.scopesTree[key.stringValue] {
            return try decodeRow(T.self, from: scoped, key: key)
        }
        if let group = row.prefetchedRows.group(forKey: key.stringValue) {
            return try decodePrefetched(T.self, group: group, key: key)
        }
        // Neither a column nor a scope: the value is made of the whole row
        // (a record made of records). Only one key can claim it.
        if let rootKeyName = decoder.rootKeyName {
            let keys = [rootKeyName, key.stringValue].sorted()
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No such key: \(keys.joined(separator: " or "))"))
        }
        decoder.rootKeyName = key.stringValue
        return try decodeRow(T.self, from: row, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        if let (column, _) = columnIndex(forKey: key) {
            throw DecodingError.typeMismatch(
                KeyedDecodingContainer<NestedKey>.self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "not implemented: building a nested JSON container for the column '\(column)'"))
        }
        if let scoped = row.scopesTree[key.stringValue] {
            let nested = RowDecoder(
                recordType: decoder.recordType, row: scoped, codingPath: codingPath + [key], columnStrategy: decoder.columnStrategy)
            return KeyedDecodingContainer(RowKeyedContainer<NestedKey>(decoder: nested))
        }
        throw DecodingError.typeMismatch(
            KeyedDecodingContainer<NestedKey>.self,
            .init(codingPath: codingPath, debugDescription: "No keyed container found for key '\(key)'"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            (any UnkeyedDecodingContainer).self,
            .init(codingPath: codingPath, debugDescription: "unkeyed decoding is not supported"))
    }

    // A superclass decodes from the same row.
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }

    // MARK: Helpers

    /// A value from a row: a record with `init(row:)`, anything else with
    /// its `Decodable` conformance.
    private func decodeRow<T: Decodable>(_ type: T.Type, from row: Row, key: Key) throws -> T {
        if let recordType = T.self as? any FetchableRecord.Type {
            return try cast(recordType.init(row: row), key: key)
        }
        return try T(
            from: RowDecoder(recordType: decoder.recordType, row: row, codingPath: codingPath + [key], columnStrategy: .useDefaultKeys))
    }

    /// A collection of the rows of an `including(all:)` association.
    private func decodePrefetched<T: Decodable>(_ type: T.Type, group: PrefetchedGroup, key: Key) throws -> T {
        try T(from: PrefetchedRowsDecoder(group: group, recordType: decoder.recordType, codingPath: codingPath + [key]))
    }

    /// A value from a column.
    private func decodeColumn<T: Decodable>(_ type: T.Type, column: String, index: Int, key: Key) throws -> T {
        try decodeColumnValue(
            T.self, row: row, column: column, index: index, codingPath: codingPath + [key], key: key, recordType: decoder.recordType)
    }

    private func cast<T>(_ value: Any, key: Key) throws -> T {
        guard let value = value as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath + [key], debugDescription: "unexpected type"))
        }
        return value
    }
}

/// A value of type `T` from the column at `index`: `Data` and `Date` with
/// the record's strategies, convertible types as they convert, other types
/// from a single value, or from JSON.
private func decodeColumnValue<T: Decodable>(
    _ type: T.Type, row: Row, column: String, index: Int, codingPath: [any CodingKey], key: any CodingKey,
    recordType: any FetchableRecord.Type
) throws -> T {
    if T.self == Data.self {
        let dbValue = row.databaseValue(atIndex: index)
        guard let data = recordType.databaseDataDecodingStrategy(for: column).decode(dbValue) as? T else {
            throw RowDecodingError.valueMismatch(Data.self, dbValue, row: row, key: .columnName(column))
        }
        return data
    }
    if T.self == Date.self {
        let dbValue = row.databaseValue(atIndex: index)
        guard let date = recordType.databaseDateDecodingStrategy(for: column).decode(dbValue) as? T else {
            throw RowDecodingError.valueMismatch(Date.self, dbValue, row: row, key: .columnName(column))
        }
        return date
    }
    if let fastType = T.self as? any (DatabaseValueConvertible & StatementColumnConvertible).Type {
        return try castValue(decodeFast(fastType, row: row, index: index, column: column), codingPath)
    }
    if let convertibleType = T.self as? any DatabaseValueConvertible.Type {
        return try castValue(decodeConvertible(convertibleType, row: row, index: index, column: column), codingPath)
    }
    do {
        return try T(from: ColumnDecoder(recordType: recordType, row: row, index: index, codingPath: codingPath))
    } catch is JSONRequiredError {
        return try row.withUnsafeData(atIndex: index) { data in
            guard let data else {
                throw DecodingError.valueNotFound(Data.self, .init(codingPath: codingPath, debugDescription: "Missing Data"))
            }
            return try recordType.databaseJSONDecoder(for: key.stringValue).decode(T.self, from: data)
        }
    }
}

@inline(__always)
private func decodeFast<V: DatabaseValueConvertible & StatementColumnConvertible>(
    _ type: V.Type, row: Row, index: Int, column: String
) throws -> V {
    do {
        return try row.decode(V.self, atIndex: index)
    } catch var error as RowDecodingError {
        error.key = .columnName(column)
        throw error
    }
}

private func decodeConvertible<V: DatabaseValueConvertible>(_ type: V.Type, row: Row, index: Int, column: String) throws -> V {
    let dbValue = row.databaseValue(atIndex: index)
    if let value = V.fromDatabaseValue(dbValue) { return value }
    throw RowDecodingError.valueMismatch(V.self, dbValue, row: row, key: .columnName(column))
}

private func castValue<T>(_ value: Any, _ codingPath: [any CodingKey]) throws -> T {
    guard let value = value as? T else {
        throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "unexpected type"))
    }
    return value
}

/// A `Decoder` over one column: single values decode from the column;
/// a keyed or unkeyed container means the value is JSON.
private struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let recordType: any FetchableRecord.Type
    let row: Row
    let index: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { recordType.databaseDecodingUserInfo }

    private var column: String { row.columnNames[index] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw JSONRequiredError() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequiredError() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { row.hasNull(atIndex: index) }

    private func decodePrimitive<V: DatabaseValueConvertible & StatementColumnConvertible>(_ type: V.Type) throws -> V {
        try decodeFast(V.self, row: row, index: index, column: column)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decodePrimitive(type) }
    func decode(_ type: String.Type) throws -> String { try decodePrimitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodePrimitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodePrimitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodePrimitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodePrimitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodePrimitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodePrimitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodePrimitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodePrimitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodePrimitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodePrimitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodePrimitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodePrimitive(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = codingPath.last ?? RowColumnKey(stringValue: column)
        return try decodeColumnValue(
            T.self, row: row, column: column, index: index, codingPath: codingPath, key: key, recordType: recordType)
    }
}

/// The coding key of a column, for values decoded from a row's first column.
private struct RowColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Decodes a collection (`[Book]`, `Set<Book>`) from the rows of an
/// `including(all:)` association, one element per row.
private struct PrefetchedRowsDecoder: Decoder {
    let group: PrefetchedGroup
    let recordType: any FetchableRecord.Type
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(
            KeyedDecodingContainer<Key>.self,
            .init(codingPath: codingPath, debugDescription: "prefetched rows decode as a collection, such as an array"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        PrefetchedRowsContainer(group: group, recordType: recordType, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            (any SingleValueDecodingContainer).self,
            .init(codingPath: codingPath, debugDescription: "prefetched rows decode as a collection, such as an array"))
    }
}

private struct PrefetchedRowsContainer: UnkeyedDecodingContainer {
    /// Rows of their own, or one row that moves along a batch, as a
    /// cursor's row does.
    private enum Rows {
        case rows([Row])
        case batch(view: Row, indexes: ArraySlice<Int>)
    }

    let group: PrefetchedGroup
    private let rows: Rows
    let recordType: any FetchableRecord.Type
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(group: PrefetchedGroup, recordType: any FetchableRecord.Type, codingPath: [any CodingKey]) {
        self.group = group
        switch group {
        case .rows(let rows): self.rows = .rows(rows)
        case .batch(let batch, let indexes): self.rows = .batch(view: Row(viewing: batch), indexes: indexes)
        }
        self.recordType = recordType
        self.codingPath = codingPath
    }

    var count: Int? { group.count }
    var isAtEnd: Bool { currentIndex >= group.count }

    /// The row of the current element.
    private func row(at index: Int) -> Row {
        switch rows {
        case .rows(let rows):
            return rows[index]
        case .batch(let view, let indexes):
            view.moveToBatchRow(indexes[indexes.startIndex + index])
            return view
        }
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
        }
        let row = row(at: currentIndex)
        currentIndex += 1
        if let elementType = T.self as? any FetchableRecord.Type {
            guard let element = try elementType.init(row: row) as? T else {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "unexpected type"))
            }
            return element
        }
        if let valueType = T.self as? any DatabaseValueConvertible.Type {
            // A value per row (`[Int64]` of `.select(Column("score"))`): its first column.
            let databaseValue = row.count > 0 ? row.databaseValue(atIndex: 0) : .null
            guard let value = valueType.fromDatabaseValue(databaseValue) as? T else {
                throw DecodingError.typeMismatch(
                    T.self, .init(codingPath: codingPath, debugDescription: "could not decode \(T.self) from \(databaseValue)"))
            }
            return value
        }
        return try T(from: RowDecoder(recordType: recordType, row: row, codingPath: codingPath, columnStrategy: .useDefaultKeys))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(
            KeyedDecodingContainer<NestedKey>.self, .init(codingPath: codingPath, debugDescription: "decode records from prefetched rows"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            (any UnkeyedDecodingContainer).self, .init(codingPath: codingPath, debugDescription: "decode records from prefetched rows"))
    }

    mutating func superDecoder() throws -> any Decoder {
        PrefetchedRowsDecoder(group: group, recordType: recordType, codingPath: codingPath)
    }
}
