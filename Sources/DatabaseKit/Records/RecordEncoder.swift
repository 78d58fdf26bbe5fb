import FoundationEssentials
import Synchronization

// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the column lookup's,
// the statement's, the argument slots', the lock's and the transaction statements' (removed together),
// record-insert-codable runs 7% more instructions.

/// The `Encoder` of `Encodable` records: each coding key is a column, named
/// by the record's ``EncodableRecord/databaseColumnEncodingStrategy``.
///
/// - `Data`, `Date` and `UUID` values follow the record's strategies;
/// - other ``DatabaseValueConvertible`` values are stored as they convert;
/// - other values that encode a single value (a `Codable` enum, a wrapper)
///   are stored as that value;
/// - the rest (nested structs, arrays, dictionaries) are stored as JSON
///   text, from ``EncodableRecord/databaseJSONEncoder(for:)``.
///
/// What a record can not encode (an array at the top level) is reported by
/// the error thrown from `encode(to:)`, never by a trap.
///
/// Not generic: the record type is a value, so that encoding a record pays no
/// generic metadata lookup (this module is not specialized for its clients).
///
/// One encoder is shared by the whole process and kept between records,
/// with the keyed container it last handed out: an encoding that finds it
/// free (most of them: records are encoded one at a time per connection)
/// allocates neither an encoder nor a container. An encoding that finds it
/// busy (another thread's, or a record nested in another) makes its own. As
/// `Encoder` requires, a record uses its containers only until its
/// `encode(to:)` returns.
final class RecordEncoder: Encoder, @unchecked Sendable {
    // Written once per encoded property, by the one thread that encodes:
    // no dynamic exclusivity check. The shared encoder is only used by the
    // thread that set ``sharedIsBusy``.
    @exclusivity(unchecked) var container: PersistenceContainer
    /// The first encoding misuse, thrown once the record's `encode(to:)` returns.
    private(set) var misuse: EncodingError?
    /// True once ``misuse`` is set: tested after each record, cheaper than
    /// the optional error (no copy of it, no exclusivity check).
    @exclusivity(unchecked) private(set) var hasMisuse = false
    /// The record type, whose static members tell how to encode.
    private(set) var recordType: any EncodableRecord.Type
    /// The record's column strategy, read once per record.
    private var columnStrategy: DatabaseColumnEncodingStrategy
    /// The keyed container of the last record, kept by the shared encoder
    /// only (a new encoder serves one record).
    private var keptContainer: KeptKeyedContainer?
    private let isShared: Bool

    /// The encoder kept between records. It keeps its last keyed container,
    /// which refers to it: the two live as long as the process.
    private static let shared = RecordEncoder(recordType: SharedEncoderPlaceholder.self, container: PersistenceContainer(), isShared: true)
    /// Set while an encoding uses the shared encoder.
    private static let sharedIsBusy = Atomic<Bool>(false)

    private init(recordType: any EncodableRecord.Type, container: PersistenceContainer, isShared: Bool) {
        self.recordType = recordType
        self.container = container
        self.columnStrategy = recordType.databaseColumnEncodingStrategy
        self.isShared = isShared
    }

    /// An encoder of a `recordType` record into a copy of `container` (see
    /// ``PersistenceContainer/copyForEncoding()``): the shared one when it
    /// is free, otherwise a new one. The caller calls ``end()`` once the
    /// record is encoded, whether it threw or not.
    static func start(_ recordType: any EncodableRecord.Type, container: inout PersistenceContainer) -> RecordEncoder {
        guard sharedIsBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return RecordEncoder(recordType: recordType, container: container.copyForEncoding(), isShared: false)
        }
        let shared = RecordEncoder.shared
        shared.recordType = recordType
        shared.columnStrategy = recordType.databaseColumnEncodingStrategy
        shared.container = container.copyForEncoding()
        return shared
    }

    /// Ends an encoding: the shared encoder forgets the record's values and
    /// misuse, and is free again.
    func end() {
        guard isShared else { return }
        container = PersistenceContainer(unreserved: ())
        if hasMisuse {
            misuse = nil
            hasMisuse = false
        }
        Self.sharedIsBusy.store(false, ordering: .releasing)
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { recordType.databaseEncodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let keptContainer, keptContainer.keyType == ObjectIdentifier(Key.self) {
            return keptContainer.container(as: KeyedEncodingContainer<Key>.self)
        }
        // The container holds no state of its own: it can serve the next
        // record with the same keys.
        let container = KeyedEncodingContainer(RecordKeyedContainer<Key>(encoder: self))
        if isShared { keptContainer = .keeping(container, keyedBy: Key.self) }
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        reportMisuse("unkeyed encoding is not supported: a record encodes as a keyed container (a struct with coding keys)")
        return FailingUnkeyedContainer(codingPath: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        RecordSingleValueContainer(encoder: self)
    }

    func reportMisuse(_ message: String) {
        if misuse == nil {
            hasMisuse = true
            misuse = EncodingError.invalidValue(recordType, .init(codingPath: [], debugDescription: message))
        }
    }

    /// Stores a column value, with the column named by the strategy.
    @inline(__always)
    func store(_ value: DatabaseValue, forKey key: some CodingKey) {
        container.setValue(value, forColumn: column(forKey: key))
    }

    /// The column of a coding key.
    @inline(__always)
    private func column(forKey key: some CodingKey) -> String {
        if case .useDefaultKeys = columnStrategy { return key.stringValue }
        return columnStrategy.column(forKey: key)
    }

    /// Stores any `Encodable` value in the column of `key`.
    func encode<T: Encodable>(_ value: T, forKey key: some CodingKey) throws {
        let column = column(forKey: key)
        if let data = value as? Data {
            container.setValue(try recordType.databaseDataEncodingStrategy(for: column).encode(data), forColumn: column)
        } else if let date = value as? Date {
            container.setValue(recordType.databaseDateEncodingStrategy(for: column).encode(date), forColumn: column)
        } else if let uuid = value as? UUID {
            container.setValue(recordType.databaseUUIDEncodingStrategy(for: column).encode(uuid), forColumn: column)
        } else if let convertible = value as? any DatabaseValueConvertible {
            container.setValue(convertible.databaseValue, forColumn: column)
        } else {
            let columnEncoder = ColumnEncoder(recordEncoder: self, key: key)
            do {
                try value.encode(to: columnEncoder)
            } catch is JSONRequiredError {
                // Below.
            }
            if columnEncoder.requiresJSON {
                let json = try recordType.databaseJSONEncoder(for: key.stringValue).encode(value)
                container.setValue(String(decoding: json, as: UTF8.self).databaseValue, forColumn: column)
            }
        }
    }
}

/// The record type of the shared encoder before its first record.
private enum SharedEncoderPlaceholder: EncodableRecord {
    func encode(to container: inout PersistenceContainer) {}
}

/// The columns of a record.
private struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }

    // Inlined into each overload, so that each converts its own type:
    // a generic function taking an Optional would look up the metadata of
    // `Optional<T>` at each call (measured: 500 instructions per column),
    // and the compiler merges overloads that call one generic function into
    // one that passes the type's metadata.
    @inline(__always)
    private func store(_ value: some DatabaseValueConvertible, _ key: Key) {
        encoder.store(value.databaseValue, forKey: key)
    }

    @inline(__always)
    private func storeIfPresent(_ value: (some DatabaseValueConvertible)?, _ key: Key) {
        encoder.store(value?.databaseValue ?? .null, forKey: key)
    }

    mutating func encodeNil(forKey key: Key) throws { encoder.store(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { store(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { store(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.encode(value, forKey: key) }

    // Optionals: nil is NULL rather than a missing column, so that an update
    // sets the column to NULL. Every primitive overload is needed: the
    // default implementations of the missing ones would leave the column out.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { storeIfPresent(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encoder.encode(value, forKey: key) } else { encoder.store(.null, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.reportMisuse("nested containers are not supported: encode a nested Encodable value, it is stored as JSON")
        return KeyedEncodingContainer(FailingKeyedContainer<NestedKey>(codingPath: [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.reportMisuse("nested containers are not supported: encode a nested Encodable value, it is stored as JSON")
        return FailingUnkeyedContainer(codingPath: [key])
    }

    // A superclass encodes its columns into the same container.
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// A record that encodes as a single value: a wrapper around another record
/// (its columns are stored), or a misuse.
private struct RecordSingleValueContainer: SingleValueEncodingContainer {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }

    private func unsupported() throws -> Never {
        throw EncodingError.invalidValue(
            encoder.recordType, .init(codingPath: [], debugDescription: "Can't encode a single value in a database row."))
    }

    mutating func encodeNil() throws { try unsupported() }
    mutating func encode(_ value: Bool) throws { try unsupported() }
    mutating func encode(_ value: String) throws { try unsupported() }
    mutating func encode(_ value: Double) throws { try unsupported() }
    mutating func encode(_ value: Float) throws { try unsupported() }
    mutating func encode(_ value: Int) throws { try unsupported() }
    mutating func encode(_ value: Int8) throws { try unsupported() }
    mutating func encode(_ value: Int16) throws { try unsupported() }
    mutating func encode(_ value: Int32) throws { try unsupported() }
    mutating func encode(_ value: Int64) throws { try unsupported() }
    mutating func encode(_ value: UInt) throws { try unsupported() }
    mutating func encode(_ value: UInt8) throws { try unsupported() }
    mutating func encode(_ value: UInt16) throws { try unsupported() }
    mutating func encode(_ value: UInt32) throws { try unsupported() }
    mutating func encode(_ value: UInt64) throws { try unsupported() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let record = value as? any EncodableRecord {
            try record.encode(to: &encoder.container)
        } else {
            try value.encode(to: encoder)
        }
    }
}

/// The `Encoder` of one column value: a single value is stored as is; a
/// keyed or unkeyed container means the value is stored as JSON.
private final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    let recordEncoder: RecordEncoder
    let key: any CodingKey
    var requiresJSON = false

    init(recordEncoder: RecordEncoder, key: some CodingKey) {
        self.recordEncoder = recordEncoder
        self.key = key
    }

    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { recordEncoder.recordType.databaseEncodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(FailingKeyedContainer<Key>(codingPath: [key], error: JSONRequiredError()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return FailingUnkeyedContainer(codingPath: [key], error: JSONRequiredError())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    private func store(_ value: some DatabaseValueConvertible) { recordEncoder.store(value.databaseValue, forKey: key) }

    func encodeNil() throws { recordEncoder.store(.null, forKey: key) }
    func encode(_ value: Bool) throws { store(value) }
    func encode(_ value: String) throws { store(value) }
    func encode(_ value: Double) throws { store(value) }
    func encode(_ value: Float) throws { store(value) }
    func encode(_ value: Int) throws { store(value) }
    func encode(_ value: Int8) throws { store(value) }
    func encode(_ value: Int16) throws { store(value) }
    func encode(_ value: Int32) throws { store(value) }
    func encode(_ value: Int64) throws { store(value) }
    func encode(_ value: UInt) throws { store(value) }
    func encode(_ value: UInt8) throws { store(value) }
    func encode(_ value: UInt16) throws { store(value) }
    func encode(_ value: UInt32) throws { store(value) }
    func encode(_ value: UInt64) throws { store(value) }
    func encode<T: Encodable>(_ value: T) throws { try recordEncoder.encode(value, forKey: key) }
}
