/// A type that encodes itself into database columns.
///
/// ```swift
/// struct Player: EncodableRecord {
///     var id: Int64?
///     var name: String
///     func encode(to container: inout PersistenceContainer) {
///         container["id"] = id
///         container["name"] = name
///     }
/// }
/// ```
///
/// `Encodable` records get `encode(to:)` for free: their coding keys are the
/// column names; see ``EncodableRecord/encode(to:)-(PersistenceContainer)``.
public protocol EncodableRecord {
    /// Writes the record's columns into the container.
    func encode(to container: inout PersistenceContainer) throws
}

extension EncodableRecord {
    /// The columns of the record, in encoding order.
    public func databaseContainer() throws -> PersistenceContainer {
        var container = PersistenceContainer()
        try encode(to: &container)
        return container
    }

    /// The columns of the record as a dictionary.
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            let container = try databaseContainer()
            return Dictionary(zip(container.columns, container.databaseValues), uniquingKeysWith: { _, last in last })
        }
    }
}

extension EncodableRecord where Self: Encodable {
    /// Encodes the record with its `Encodable` conformance. Each coding key is
    /// a column:
    ///
    /// - values that are ``DatabaseValueConvertible`` (numbers, strings,
    ///   `Bool`, `Data`, `Date`, `UUID`, `Decimal`, enums with
    ///   ``DatabaseValueConvertible`` conformance, ...) are stored as they
    ///   convert;
    /// - other values that encode a single value (a `Codable` enum with a
    ///   raw value, a wrapper) are stored as that value;
    /// - other values (nested structs, arrays, dictionaries) are stored as
    ///   JSON text, with sorted keys, which the `Decodable` side reads back.
    public func encode(to container: inout PersistenceContainer) throws {
        let encoder = RecordEncoder()
        try encode(to: encoder)
        container = encoder.storage.container
    }
}
