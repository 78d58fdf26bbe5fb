import Foundation

/// The `Encoder` of `Encodable` records: a keyed container whose keys are
/// columns. Values that are ``DatabaseValueConvertible`` are stored directly;
/// anything else goes through ``encodeColumnValue(_:)``.
final class RecordEncoder: Encoder {
    final class Storage {
        var container = PersistenceContainer()
    }

    let storage: Storage

    /// An encoder; a superclass encoder shares its subclass's storage.
    init(storage: Storage = Storage()) {
        self.storage = storage
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedContainer<Key>(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        // A record is a set of columns; an array has none. The failure is
        // reported by the first encode, which can throw.
        preconditionFailure("a record encodes as a keyed container (a struct with coding keys), not an array")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        preconditionFailure("a record encodes as a keyed container (a struct with coding keys), not a single value")
    }
}

private struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: RecordEncoder.Storage
    var codingPath: [any CodingKey] { [] }

    private func set(_ value: DatabaseValue, _ key: Key) {
        storage.container.setValue(value, forColumn: key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(value.databaseValue, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encodeColumnValue(value), key)
    }

    // Optionals: `nil` is NULL rather than a missing column, so that an
    // update sets the column to NULL.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    // Every primitive overload is needed: the default implementations of the
    // missing ones would skip nil and leave the column out.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { set(value.databaseValue, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { set(value.databaseValue, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        preconditionFailure("nested containers are not supported: make the nested value Encodable, it is stored as JSON")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("nested containers are not supported: make the nested value Encodable, it is stored as JSON")
    }

    mutating func superEncoder() -> any Encoder { RecordEncoder(storage: storage) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RecordEncoder(storage: storage) }
}

/// The database value of an `Encodable` value that is not a column primitive.
///
/// A ``DatabaseValueConvertible`` value converts as usual. Anything else is
/// encoded to JSON: a JSON scalar (a `Codable` enum's raw value, a
/// single-value wrapper) is stored as that scalar, and an object or an array
/// as JSON text with sorted keys.
func encodeColumnValue<T: Encodable>(_ value: T) throws -> DatabaseValue {
    if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dataEncodingStrategy = .base64
    encoder.dateEncodingStrategy = .millisecondsSince1970
    let json = try encoder.encode(value)
    switch json.first {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
        return String(decoding: json, as: UTF8.self).databaseValue
    case UInt8(ascii: "\""):
        return try JSONDecoder().decode(String.self, from: json).databaseValue
    default:
        let text = String(decoding: json, as: UTF8.self)
        switch text {
        case "null": return .null
        case "true": return true.databaseValue
        case "false": return false.databaseValue
        default: return Int64(text)?.databaseValue ?? Double(text)?.databaseValue ?? text.databaseValue
        }
    }
}
