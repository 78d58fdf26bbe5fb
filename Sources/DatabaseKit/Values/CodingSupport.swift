import FoundationEssentials

// Encoding support shared by records and `Codable` values: a value that asks
// for a keyed or unkeyed container is stored as JSON. The containers below
// stop such an encoding at its first value, with `JSONRequiredError`, so
// that it can start again with a JSON encoder.

/// Raised when a value needs JSON: it encodes or decodes containers.
struct JSONRequiredError: Error {}

/// A keyed container that refuses every value, with `error` (a misuse by
/// default).
struct FailingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]
    var error: (any Error)?

    init(codingPath: [any CodingKey], error: (any Error)? = nil) {
        self.codingPath = codingPath
        self.error = error
    }

    private func fail() throws -> Never {
        throw error ?? EncodingError.invalidValue(
            Key.self, .init(codingPath: codingPath, debugDescription: "nested containers are not supported in a record"))
    }

    mutating func encodeNil(forKey key: Key) throws { try fail() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try fail() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(FailingKeyedContainer<NestedKey>(codingPath: codingPath + [key], error: error))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        FailingUnkeyedContainer(codingPath: codingPath + [key], error: error)
    }
    mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath, error: error) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(codingPath: codingPath, error: error) }
}

/// An unkeyed container that refuses every value.
struct FailingUnkeyedContainer: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    var error: (any Error)?
    var count: Int { 0 }

    init(codingPath: [any CodingKey], error: (any Error)? = nil) {
        self.codingPath = codingPath
        self.error = error
    }

    private func fail() throws -> Never {
        throw error ?? EncodingError.invalidValue(
            [Any].self, .init(codingPath: codingPath, debugDescription: "unkeyed encoding is not supported in a record"))
    }

    mutating func encodeNil() throws { try fail() }
    mutating func encode<T: Encodable>(_ value: T) throws { try fail() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingKeyedContainer<NestedKey>(codingPath: codingPath, error: error))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath, error: error) }
}

/// An encoder whose containers refuse every value.
struct FailingEncoder: Encoder, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    let error: (any Error)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private func fail() throws -> Never {
        throw error ?? EncodingError.invalidValue(
            Any.self, .init(codingPath: codingPath, debugDescription: "nested encoders are not supported in a record"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FailingKeyedContainer<Key>(codingPath: codingPath, error: error))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingUnkeyedContainer(codingPath: codingPath, error: error) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }
    mutating func encodeNil() throws { try fail() }
    mutating func encode<T: Encodable>(_ value: T) throws { try fail() }
}
