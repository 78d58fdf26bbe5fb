import FoundationEssentials

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
/// `Encodable` records get `encode(to:)` for free: each coding key is a
/// column. The static members customize how they encode; their default
/// implementations are GRDB's defaults.
public protocol EncodableRecord {
    /// Writes the record's columns into the container. Primary key columns,
    /// if any, must be included.
    func encode(to container: inout PersistenceContainer) throws

    /// Contextual information given to `Encodable.encode(to:)`. Default: empty.
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The encoder of the JSON columns (nested `Encodable` values). Default:
    /// base64 data, dates in milliseconds since 1970, sorted keys, and an
    /// error for NaN and infinite floats.
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// How `Data` properties are stored. Default: ``DatabaseDataEncodingStrategy/deferredToData``.
    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy

    /// How `Date` properties are stored. Default: ``DatabaseDateEncodingStrategy/deferredToDate``.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy

    /// How `UUID` properties are stored. Default: ``DatabaseUUIDEncodingStrategy/deferredToUUID``.
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy

    /// How coding keys name columns. Default: ``DatabaseColumnEncodingStrategy/useDefaultKeys``.
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { get }
}

extension EncodableRecord {
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        // Stable output, so that records compare equal in the database.
        encoder.outputFormatting = .sortedKeys
        encoder.userInfo = codingUserInfo(databaseEncodingUserInfo)
        return encoder
    }

    public static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .deferredToData }

    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .deferredToDate }

    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .useDefaultKeys }
}

extension EncodableRecord {
    /// The columns of the record, in encoding order.
    public func databaseContainer() throws -> PersistenceContainer {
        var container = PersistenceContainer()
        try encode(to: &container)
        return container
    }

    /// ``databaseContainer()``, expecting the columns of the previous record
    /// of the same table (see ``PersistenceContainer``), with an empty
    /// array whose capacity can hold the values.
    func databaseContainer(predictedColumns: [String]?, spareValues: consuming [DatabaseValue]) throws -> PersistenceContainer {
        guard let predictedColumns else { return try databaseContainer() }
        var container = PersistenceContainer(predictedColumns: predictedColumns, values: spareValues)
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

    // MARK: Comparing records

    /// True when both records encode the same values in the same columns.
    /// False when one of them can not be encoded.
    public func databaseEquals(_ record: Self) -> Bool {
        guard let mine = try? databaseContainer(), let theirs = try? record.databaseContainer() else { return false }
        return mine.changes(from: theirs).isEmpty
    }

    /// The columns of this record whose value differs in `record`, with the
    /// values of `record`. Only the columns this record encodes are compared;
    /// a column `record` lacks compares as NULL.
    public func databaseChanges(from record: some EncodableRecord) throws -> [String: DatabaseValue] {
        try Dictionary(databaseContainer().changes(from: record.databaseContainer()), uniquingKeysWith: { first, _ in first })
    }

    /// Modifies the record, and returns the columns that changed, with their
    /// values before the change.
    ///
    /// ```swift
    /// let changes = try player.databaseChanges { $0.score = 1000 }
    /// changes["score"]  // the old score, if it changed
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: DatabaseValue] {
        let before = try databaseContainer()
        try modify(&self)
        return try Dictionary(databaseContainer().changes(from: before), uniquingKeysWith: { first, _ in first })
    }
}

extension EncodableRecord where Self: Encodable {
    /// Encodes the record with its `Encodable` conformance; see
    /// ``EncodableRecord`` for how each kind of value is stored.
    public func encode(to container: inout PersistenceContainer) throws {
        // The encoder works on a copy: the container is left as it was
        // when the record throws.
        let encoder = RecordEncoder.start(Self.self, container: &container)
        defer { encoder.end() }
        try encode(to: encoder)
        if encoder.hasMisuse, let misuse = encoder.misuse { throw misuse }
        swap(&container, &encoder.container)
    }
}

/// Record user info as JSON coders take it. GRDB's API types the values
/// `Any`; Foundation's coders now want `any Sendable`. Both existentials have
/// the same layout (`Sendable` is a marker protocol, with no witness table),
/// and the values are only read by the record's own coding code.
func codingUserInfo(_ userInfo: [CodingUserInfoKey: Any]) -> [CodingUserInfoKey: any Sendable] {
    if userInfo.isEmpty { return [:] }
    return unsafeBitCast(userInfo, to: [CodingUserInfoKey: any Sendable].self)
}
