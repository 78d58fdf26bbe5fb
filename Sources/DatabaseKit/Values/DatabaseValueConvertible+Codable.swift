import FoundationEssentials

// A `Codable` type gets its database conversions for free: declare
// `DatabaseValueConvertible`, and it is stored as the single value it
// encodes (a wrapper, an enum), or as JSON text (a struct, an array) with
// `databaseJSONEncoder()`, and read back the same way.
//
// ```swift
// struct Address: Codable, DatabaseValueConvertible {
//     var street: String
//     var city: String
// }
// try db.execute(sql: "INSERT INTO place (address) VALUES (?)", arguments: [address])
// let address = try Address.fetchOne(db, sql: "SELECT address FROM place")
// ```

extension DatabaseValueConvertible where Self: Encodable {
    /// The value the type encodes, or its JSON text; NULL when it can not
    /// be encoded (a NaN in JSON, for example).
    public var databaseValue: DatabaseValue {
        (try? encodeDatabaseValue(self, jsonEncoder: Self.databaseJSONEncoder())) ?? .null
    }
}

extension DatabaseValueConvertible where Self: Encodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
}

extension DatabaseValueConvertible where Self: Decodable {
    /// The value decoded from the database value itself, or from its JSON
    /// text when the type decodes a keyed or unkeyed container; nil when it
    /// does not decode.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        do {
            return try Self(from: DatabaseValueDecoder(dbValue: dbValue))
        } catch is JSONRequiredError {
            guard let data = Data.fromDatabaseValue(dbValue) else { return nil }
            return try? databaseJSONDecoder().decode(Self.self, from: data)
        } catch {
            return nil
        }
    }
}

extension DatabaseValueConvertible where Self: Decodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The value of the raw value.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

/// The database value of an `Encodable` value: what it encodes as a single
/// value, or its JSON.
func encodeDatabaseValue(_ value: some Encodable, jsonEncoder: JSONEncoder) throws -> DatabaseValue {
    let encoder = DatabaseValueEncoder()
    do {
        try value.encode(to: encoder)
    } catch is JSONRequiredError {
        // Below.
    }
    if encoder.requiresJSON {
        return String(decoding: try jsonEncoder.encode(value), as: UTF8.self).databaseValue
    }
    return encoder.result ?? .null
}

/// An `Encoder` of one value: a single value is the result; a container
/// means JSON.
private final class DatabaseValueEncoder: Encoder, SingleValueEncodingContainer {
    var result: DatabaseValue?
    var requiresJSON = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(FailingKeyedContainer<Key>(codingPath: [], error: JSONRequiredError()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return FailingUnkeyedContainer(codingPath: [], error: JSONRequiredError())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { result = .null }
    func encode(_ value: Bool) throws { result = value.databaseValue }
    func encode(_ value: String) throws { result = value.databaseValue }
    func encode(_ value: Double) throws { result = value.databaseValue }
    func encode(_ value: Float) throws { result = value.databaseValue }
    func encode(_ value: Int) throws { result = value.databaseValue }
    func encode(_ value: Int8) throws { result = value.databaseValue }
    func encode(_ value: Int16) throws { result = value.databaseValue }
    func encode(_ value: Int32) throws { result = value.databaseValue }
    func encode(_ value: Int64) throws { result = value.databaseValue }
    func encode(_ value: UInt) throws { result = value.databaseValue }
    func encode(_ value: UInt8) throws { result = value.databaseValue }
    func encode(_ value: UInt16) throws { result = value.databaseValue }
    func encode(_ value: UInt32) throws { result = value.databaseValue }
    func encode(_ value: UInt64) throws { result = value.databaseValue }

    func encode<T: Encodable>(_ value: T) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            // A Date stays a date string, not its Codable number.
            result = convertible.databaseValue
        } else {
            try value.encode(to: self)
        }
    }
}

/// A `Decoder` of one database value: single values decode from it; a
/// container means JSON.
private struct DatabaseValueDecoder: Decoder, SingleValueDecodingContainer {
    let dbValue: DatabaseValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw JSONRequiredError() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequiredError() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { dbValue.isNull }

    private func convert<V: DatabaseValueConvertible>(_ type: V.Type) throws -> V {
        if let value = V.fromDatabaseValue(dbValue) { return value }
        throw DecodingError.dataCorruptedError(in: self, debugDescription: "value mismatch")
    }

    func decode(_ type: Bool.Type) throws -> Bool { try convert(type) }
    func decode(_ type: String.Type) throws -> String { try convert(type) }
    func decode(_ type: Double.Type) throws -> Double { try convert(type) }
    func decode(_ type: Float.Type) throws -> Float { try convert(type) }
    func decode(_ type: Int.Type) throws -> Int { try convert(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try convert(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try convert(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try convert(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try convert(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try convert(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try convert(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try convert(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try convert(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try convert(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertibleType = T.self as? any DatabaseValueConvertible.Type {
            guard let value = convertibleType.fromDatabaseValue(dbValue) as? T else {
                throw DecodingError.dataCorruptedError(in: self, debugDescription: "value mismatch")
            }
            return value
        }
        return try T(from: self)
    }
}
