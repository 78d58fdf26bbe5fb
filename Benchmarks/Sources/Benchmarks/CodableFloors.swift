import BenchSQLite
import Foundation

// The floors of the Codable workloads: what Swift's Codable machinery costs
// by itself, measured rather than estimated. Each floor is the raw C
// workload with its values going through the record's synthesized
// `init(from:)` or `encode(to:)`, served by the cheapest coder those allow:
// the n-th property reads column n or binds parameter n (no column lookup by
// name, no conversion check, no record callbacks), and the keyed container is
// built once and reused, as DatabaseKit's decoder reuses its own.
//
// No library can go below its floor while it calls the record's `init(from:)`
// or `encode(to:)`, which GRDB's documentation promises for Codable records
// (a record's own implementation of them is honoured). `Benchmarks
// instructions` prints the floors next to DatabaseKit's counts.

/// Every floor, by the id of the workload whose raw C version it extends.
let floors = codableFloors.merging(argumentFloors) { codable, _ in codable }

/// The Codable floors, by the id of the workload whose raw C version they
/// extend.
let codableFloors: [String: @Sendable (Fixtures) throws -> Outcome] = [
    "fetch-decodable": CodableFloors.fetchDecodables,
    "record-insert-codable": CodableFloors.insertRecords,
    "record-fetch-codable": CodableFloors.fetchRecords,
]

enum CodableFloors {
    /// `RawWorkloads.fetchStructs`, each struct decoded by its `init(from:)`.
    static func fetchDecodables(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.fetchPath)
        let (items, seconds) = try measuredRegion { () throws -> [DecodableItem] in
            let statement = try db.prepare("SELECT * FROM item")
            let decoder = PositionalDecoder(statement: statement.handle)
            // Unspecialized here: the closure saves the metadata lookup.
            decoder.handsBackByClosure = true
            var items: [DecodableItem] = []
            while try statement.step() {
                items.append(try decoder.decode(DecodableItem.self))
            }
            return items
        }
        return Outcome(seconds: seconds, checksum: DecodableItem.checksum(items))
    }

    /// `RawWorkloads.insertRecords`, each record bound by its `encode(to:)`.
    static func insertRecords(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("floor-records")
        defer { Fixtures.removeDatabase(path) }
        let db = try RawConnection(path: path)
        try db.execute(RawWorkloads.createPlayer)
        var players = codablePlayersToInsert()
        let (_, seconds) = try measuredRegion {
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO player (id, name, score, bonus) VALUES (?, ?, ?, ?)")
            let encoder = PositionalEncoder(statement: insert.handle)
            for index in players.indices {
                try encoder.bind(players[index])
                try insert.run()
                players[index].id = sqlite3_last_insert_rowid(db.handle)
            }
            try db.execute("COMMIT")
        }
        return Outcome(seconds: seconds, checksum: players.reduce(0) { $0 + $1.id! + Int64($1.score) })
    }

    /// `RawWorkloads.fetchRecords`, each record decoded by its `init(from:)`.
    static func fetchRecords(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            let query = try db.prepare("SELECT * FROM player WHERE id = ?")
            let decoder = PositionalDecoder(statement: query.handle)
            var sum: Int64 = 0
            for id in Fixtures.pointIds {
                try query.bind(Int64(id), at: 1)
                guard try query.step() else { throw BenchmarkError(description: "no row") }
                let player = try decoder.decode(CodablePlayer.self)
                sum &+= Int64(player.score)
                try query.reset()
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

/// A coder error: the floors support only the property types of the
/// benchmark records.
struct FloorCodingError: Error {}

/// A keyed container kept for the key type a coder learns only as a type
/// parameter (the record's private `CodingKeys`), and handed back one of two
/// ways, whichever is cheaper where the coder's code runs:
/// - read from where it is stored, which costs nothing once the compiler
///   specialized the coder for the record, and a metadata lookup of the
///   container type (about 330 instructions) where it did not;
/// - copied out by a closure made where that metadata was at hand, as
///   DatabaseKit's coders do: a call instead of the lookup.
class KeptContainer {
    let keyType: ObjectIdentifier
    /// The container, bound to its type.
    fileprivate let storage: UnsafeMutableRawPointer

    fileprivate init(keyType: ObjectIdentifier, storage: UnsafeMutableRawPointer) {
        self.keyType = keyType
        self.storage = storage
    }

    static func keeping<Container>(_ container: Container, keyType: ObjectIdentifier) -> KeptContainer {
        TypedKeptContainer(container, keyType: keyType)
    }

    /// The kept container, which must be of type `Container`.
    @inline(__always)
    final func container<Container>(as type: Container.Type, byClosure: Bool) -> Container {
        if byClosure { return unsafeDowncast(self, to: TypedKeptContainer<Container>.self).copy() }
        return storage.assumingMemoryBound(to: Container.self).pointee
    }
}

private final class TypedKeptContainer<Container>: KeptContainer {
    let copy: () -> Container

    init(_ container: Container, keyType: ObjectIdentifier) {
        let storage = UnsafeMutablePointer<Container>.allocate(capacity: 1)
        storage.initialize(to: container)
        copy = { storage.pointee }
        super.init(keyType: keyType, storage: UnsafeMutableRawPointer(storage))
    }

    deinit {
        storage.assumingMemoryBound(to: Container.self).deinitialize(count: 1)
        storage.deallocate()
    }
}

/// Decodes the current row of a statement: the n-th decoded property reads
/// column n.
final class PositionalDecoder: Decoder {
    let statement: OpaquePointer
    var column: CInt = 0
    private var kept: KeptContainer?
    /// How the kept container is handed back (see ``KeptContainer``): each
    /// floor uses the cheaper way for its workload, as measured.
    var handsBackByClosure = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(statement: OpaquePointer) { self.statement = statement }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        column = 0
        if let kept, kept.keyType == ObjectIdentifier(Key.self) {
            return kept.container(as: KeyedDecodingContainer<Key>.self, byClosure: handsBackByClosure)
        }
        let container = KeyedDecodingContainer(PositionalKeyedDecoding<Key>(decoder: self))
        // The container refers to the decoder without retaining it: the
        // decoder keeps the container.
        kept = .keeping(container, keyType: ObjectIdentifier(Key.self))
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw FloorCodingError() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw FloorCodingError() }

    /// The next column.
    @inline(__always)
    func nextColumn() -> CInt {
        defer { column += 1 }
        return column
    }
}

struct PositionalKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: PositionalDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { sqlite3_column_type(decoder.statement, decoder.column) == SQLITE_NULL }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        Int(sqlite3_column_int64(decoder.statement, decoder.nextColumn()))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        sqlite3_column_int64(decoder.statement, decoder.nextColumn())
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        let column = decoder.nextColumn()
        if sqlite3_column_type(decoder.statement, column) == SQLITE_NULL { return nil }
        return sqlite3_column_int64(decoder.statement, column)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        sqlite3_column_double(decoder.statement, decoder.nextColumn())
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        String(cString: sqlite3_column_text(decoder.statement, decoder.nextColumn()))
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw FloorCodingError() }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw FloorCodingError() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw FloorCodingError() }
    func superDecoder() throws -> any Decoder { throw FloorCodingError() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw FloorCodingError() }
}

/// Binds a record to a statement: the n-th encoded property binds parameter n.
final class PositionalEncoder: Encoder {
    let statement: OpaquePointer
    var parameter: CInt = 1
    private var kept: KeptContainer?
    /// How the kept container is handed back (see ``KeptContainer``): each
    /// floor uses the cheaper way for its workload, as measured.
    var handsBackByClosure = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(statement: OpaquePointer) { self.statement = statement }

    func bind(_ value: some Encodable) throws { try value.encode(to: self) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        parameter = 1
        if let kept, kept.keyType == ObjectIdentifier(Key.self) {
            return kept.container(as: KeyedEncodingContainer<Key>.self, byClosure: handsBackByClosure)
        }
        let container = KeyedEncodingContainer(PositionalKeyedEncoding<Key>(encoder: self))
        kept = .keeping(container, keyType: ObjectIdentifier(Key.self))
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("the floors encode keyed records only") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("the floors encode keyed records only") }

    /// Checks a bind's result code, and moves to the next parameter.
    @inline(__always)
    func check(_ code: CInt) throws {
        guard code == SQLITE_OK else { throw FloorCodingError() }
        parameter += 1
    }
}

struct PositionalKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    unowned(unsafe) let encoder: PositionalEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.check(sqlite3_bind_null(encoder.statement, encoder.parameter))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        try encoder.check(sqlite3_bind_int64(encoder.statement, encoder.parameter, Int64(value)))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try encoder.check(sqlite3_bind_int64(encoder.statement, encoder.parameter, value))
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        guard let value else { return try encodeNil(forKey: key) }
        try encode(value, forKey: key)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.check(sqlite3_bind_double(encoder.statement, encoder.parameter, value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        var value = value
        let code = value.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return bench_bind_text(encoder.statement, encoder.parameter, "", 0) }
                return bench_bind_text(encoder.statement, encoder.parameter, base, CInt(chars.count))
            }
        }
        try encoder.check(code)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw FloorCodingError() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    { fatalError("the floors encode flat records only") }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        fatalError("the floors encode flat records only")
    }
    mutating func superEncoder() -> any Encoder { fatalError("the floors encode flat records only") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("the floors encode flat records only") }
}
