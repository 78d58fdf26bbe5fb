import Foundation

extension FetchableRecord where Self: Decodable {
    /// Decodes the record from the row: coding keys are column names.
    ///
    /// Properties of a ``DatabaseValueConvertible`` type (numbers, strings,
    /// dates, UUIDs, raw-value enums, ...) read their column. Other `Decodable`
    /// properties (nested structs, arrays, dictionaries) read their column as
    /// JSON text.
    public init(row: Row) throws {
        try self.init(from: RowDecoder(row: row))
    }
}

/// A `Decoder` over a row. Primitive values are read straight from the
/// statement, without intermediate `DatabaseValue`.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            .init(codingPath: [], debugDescription: "a row decodes as a keyed container (a struct), not an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard row.count == 1 else {
            throw DecodingError.typeMismatch(
                Any.self,
                .init(codingPath: [], debugDescription: "a single value decodes from a row with one column, not \(row.count)"))
        }
        return ColumnDecoder(dbValue: row.databaseValue(atIndex: 0), codingPath: [])
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.hasColumn(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = row.index(forColumn: key.stringValue) else { return true }
        return row.hasNull(atIndex: index)
    }

    // Primitive types take the statement fast path.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try row.decode(forColumn: key.stringValue) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let index = row.index(forColumn: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: [key], debugDescription: "column not found: \(key.stringValue) - row: \(row)"))
        }
        let dbValue = row.databaseValue(atIndex: index)
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            if let value = convertible.fromDatabaseValue(dbValue) as? T { return value }
            throw RowDecodingError.valueMismatch(T.self, dbValue, row: row, key: .columnName(key.stringValue))
        }
        return try T(from: ColumnDecoder(dbValue: dbValue, codingPath: [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(
            type, .init(codingPath: [key], debugDescription: "nested containers are decoded from JSON columns"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [key], debugDescription: "nested containers are decoded from JSON columns"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
}

/// A `Decoder` over one column value: single values decode from the value
/// itself; keyed and unkeyed containers decode from the value as JSON.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let dbValue: DatabaseValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try jsonDecoder().container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try jsonDecoder().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// A decoder of the JSON text held by the column.
    private func jsonDecoder() throws -> any Decoder {
        guard let data = Data.fromDatabaseValue(dbValue) else {
            throw DecodingError.typeMismatch(
                Any.self,
                .init(codingPath: codingPath, debugDescription: "expected JSON text, found \(dbValue)"))
        }
        return try JSONDecoder().decode(DecoderExtractor.self, from: data).decoder
    }

    func decodeNil() -> Bool { dbValue.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            if let value = convertible.fromDatabaseValue(dbValue) as? T { return value }
            throw DecodingError.typeMismatch(
                T.self,
                .init(codingPath: codingPath, debugDescription: "could not decode \(T.self) from database value \(dbValue)"))
        }
        return try T(from: self)
    }
}

/// Captures the decoder JSONDecoder builds, so that a column's JSON can feed
/// a keyed or unkeyed container.
private struct DecoderExtractor: Decodable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
}
