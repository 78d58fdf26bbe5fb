import FoundationEssentials

#if FoundationBridging
    import Foundation
#endif

// How `Codable` records map their properties to columns: the strategies a
// record type declares with the static members of ``EncodableRecord`` and
// ``FetchableRecord`` (`databaseDateEncodingStrategy(for:)`, ...).

// MARK: Decoding

/// How a `Decodable` ``FetchableRecord`` decodes its `Data` properties.
public enum DatabaseDataDecodingStrategy: Sendable {
    /// From blobs, and from text as its UTF-8 bytes.
    case deferredToData
    /// With a function; nil is a conversion error.
    case custom(@Sendable (DatabaseValue) -> Data?)

    func decode(_ dbValue: DatabaseValue) -> Data? {
        switch self {
        case .deferredToData: return Data.fromDatabaseValue(dbValue)
        case .custom(let decode): return decode(dbValue)
        }
    }
}

/// How a `Decodable` ``FetchableRecord`` decodes its `Date` properties.
public enum DatabaseDateDecodingStrategy: @unchecked Sendable {
    // @unchecked: `DateFormatter` is not Sendable; the `formatted` case
    // assumes, as Foundation documents, that a configured formatter can be
    // used from several threads.

    /// As `Date` converts: numbers are seconds since 1970, text is
    /// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.SSS]]` or the same with `T`, UTC.
    case deferredToDate
    /// Numbers, seconds since 2001-01-01 00:00:00 UTC.
    case timeIntervalSinceReferenceDate
    /// Numbers, seconds since 1970-01-01 00:00:00 UTC.
    case timeIntervalSince1970
    /// Numbers, milliseconds since 1970-01-01 00:00:00 UTC.
    case millisecondsSince1970
    /// ISO 8601 text.
    case iso8601
    #if FoundationBridging
        /// Text, parsed by the formatter (with the FoundationBridging trait).
        case formatted(DateFormatter)
    #endif
    /// With a function; nil is a conversion error.
    case custom(@Sendable (DatabaseValue) -> Date?)

    func decode(_ dbValue: DatabaseValue) -> Date? {
        switch self {
        case .deferredToDate:
            return Date.fromDatabaseValue(dbValue)
        case .timeIntervalSinceReferenceDate:
            return Double.fromDatabaseValue(dbValue).map(Date.init(timeIntervalSinceReferenceDate:))
        case .timeIntervalSince1970:
            return Double.fromDatabaseValue(dbValue).map(Date.init(timeIntervalSince1970:))
        case .millisecondsSince1970:
            return Double.fromDatabaseValue(dbValue).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .iso8601:
            return String.fromDatabaseValue(dbValue).flatMap { ISO8601Formatting.date(from: $0) }
        #if FoundationBridging
            case .formatted(let formatter):
                return String.fromDatabaseValue(dbValue).flatMap { formatter.date(from: $0) }
        #endif
        case .custom(let decode):
            return decode(dbValue)
        }
    }
}

/// How a `Decodable` ``FetchableRecord`` finds the column of a coding key.
public enum DatabaseColumnDecodingStrategy: Sendable {
    /// The column named like the key.
    case useDefaultKeys
    /// Column `player_id` for key `playerId`, as `JSONDecoder` converts keys.
    case convertFromSnakeCase
    /// The key of each column, with a function.
    case custom(@Sendable (String) -> any CodingKey)

    /// The coding key of a column.
    func key(forColumn column: String) -> String {
        switch self {
        case .useDefaultKeys: return column
        case .convertFromSnakeCase: return SnakeCase.camelCased(column)
        case .custom(let key): return key(column).stringValue
        }
    }
}

// MARK: Encoding

/// How an `Encodable` ``EncodableRecord`` encodes its `Data` properties.
public enum DatabaseDataEncodingStrategy: Sendable {
    /// A blob.
    case deferredToData
    /// Text: the data must be valid UTF-8, or encoding throws.
    case text
    /// With a function; nil is NULL.
    case custom(@Sendable (Data) -> (any DatabaseValueConvertible)?)

    func encode(_ data: Data) throws -> DatabaseValue {
        switch self {
        case .deferredToData:
            return data.databaseValue
        case .text:
            guard let string = String(data: data, encoding: .utf8) else {
                throw EncodingError.invalidValue(
                    data, .init(codingPath: [], debugDescription: "Non-UTF8 data can't be encoded as text in the database"))
            }
            return string.databaseValue
        case .custom(let encode):
            return encode(data)?.databaseValue ?? .null
        }
    }
}

/// How an `Encodable` ``EncodableRecord`` encodes its `Date` properties.
public enum DatabaseDateEncodingStrategy: @unchecked Sendable {
    // @unchecked: see DatabaseDateDecodingStrategy.

    /// As `Date` converts: "YYYY-MM-DD HH:MM:SS.SSS" text, UTC.
    case deferredToDate
    /// A Double: seconds since 2001-01-01 00:00:00 UTC.
    case timeIntervalSinceReferenceDate
    /// A Double: seconds since 1970-01-01 00:00:00 UTC.
    case timeIntervalSince1970
    /// An integer: whole seconds since 1970-01-01 00:00:00 UTC.
    case secondsSince1970
    /// An integer: whole milliseconds since 1970-01-01 00:00:00 UTC.
    case millisecondsSince1970
    /// ISO 8601 / RFC 3339 text, such as "2026-11-23T10:00:00Z".
    case iso8601
    #if FoundationBridging
        /// Text, from the formatter (with the FoundationBridging trait).
        case formatted(DateFormatter)
    #endif
    /// With a function; nil is NULL.
    case custom(@Sendable (Date) -> (any DatabaseValueConvertible)?)

    func encode(_ date: Date) -> DatabaseValue {
        switch self {
        case .deferredToDate: return date.databaseValue
        case .timeIntervalSinceReferenceDate: return date.timeIntervalSinceReferenceDate.databaseValue
        case .timeIntervalSince1970: return date.timeIntervalSince1970.databaseValue
        case .secondsSince1970: return Int64(date.timeIntervalSince1970.rounded(.down)).databaseValue
        case .millisecondsSince1970: return Int64((date.timeIntervalSince1970 * 1000).rounded(.down)).databaseValue
        case .iso8601: return ISO8601Formatting.string(from: date).databaseValue
        #if FoundationBridging
            case .formatted(let formatter): return formatter.string(from: date).databaseValue
        #endif
        case .custom(let encode): return encode(date)?.databaseValue ?? .null
        }
    }
}

/// How an `Encodable` ``EncodableRecord`` encodes its `UUID` properties.
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// A 16-byte blob.
    case deferredToUUID
    /// Text, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".
    case uppercaseString
    /// Text, "e621e1f8-c36c-495a-93fc-0c247a3e6e5f".
    case lowercaseString

    func encode(_ uuid: UUID) -> DatabaseValue {
        switch self {
        case .deferredToUUID: return uuid.databaseValue
        case .uppercaseString: return uuid.uuidString.databaseValue
        case .lowercaseString: return uuid.uuidString.lowercased().databaseValue
        }
    }
}

/// How an `Encodable` ``EncodableRecord`` names the column of a coding key.
public enum DatabaseColumnEncodingStrategy: Sendable {
    /// The key itself.
    case useDefaultKeys
    /// Column `player_id` for key `playerID`, as `JSONEncoder` converts keys.
    case convertToSnakeCase
    /// With a function.
    case custom(@Sendable (any CodingKey) -> String)

    func column(forKey key: some CodingKey) -> String {
        switch self {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return SnakeCase.snakeCased(key.stringValue)
        case .custom(let column): return column(key)
        }
    }
}

// MARK: Helpers

/// The ISO 8601 text of the `iso8601` strategies, as `ISO8601DateFormatter`
/// with `.withInternetDateTime` writes and reads it: "2026-11-23T10:00:00Z"
/// (whole seconds, UTC), read back with `Z` or a `±HH:MM` offset.
enum ISO8601Formatting {
    static func string(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.magnitude < 1e15 else { return "" }
        let text = formatDatabaseDate(Date(timeIntervalSince1970: seconds))  // "yyyy-MM-dd HH:mm:ss.SSS"
        return text.dropLast(4).replacing(" ", with: "T", maxReplacements: 1) + "Z"
    }

    static func date(from string: String) -> Date? {
        let utf8 = Array(string.utf8)
        // yyyy-MM-ddTHH:mm:ss then Z or ±HH:MM, nothing else.
        guard utf8.count == 20 || utf8.count == 25, utf8[10] == UInt8(ascii: "T") else { return nil }
        let zone = utf8[19...]
        guard zone == [UInt8(ascii: "Z")] || (zone.count == 6 && (zone.first == UInt8(ascii: "+") || zone.first == UInt8(ascii: "-")))
        else { return nil }
        var text = String(decoding: utf8[..<10], as: UTF8.self) + " " + String(decoding: utf8[11..<19], as: UTF8.self)
        if zone.count == 6 { text += String(decoding: zone, as: UTF8.self) }
        return parseDatabaseDate(text)
    }
}

/// The key conversions of `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`
/// and `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`, so that
/// records name their columns as JSON names their keys.
enum SnakeCase {
    /// "myURLProperty" → "my_url_property", exactly as Foundation converts
    /// keys, quirks included ("URL" → "u_rl"): a word ends before a capital
    /// that is searched from the second character; a run of capitals
    /// followed by a lowercase letter is a word, except its last capital.
    static func snakeCased(_ key: String) -> String {
        let scalars = Array(key.unicodeScalars)
        guard !scalars.isEmpty else { return key }
        // Foundation's `.uppercaseLetters` is Lu and Lt, `.lowercaseLetters` Ll.
        func firstIndex(in categories: Set<Unicode.GeneralCategory>, from start: Int) -> Int? {
            (start..<scalars.count).first { categories.contains(scalars[$0].properties.generalCategory) }
        }
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        while let upper = firstIndex(in: [.uppercaseLetter, .titlecaseLetter], from: searchStart) {
            words.append(wordStart..<upper)
            guard let lower = firstIndex(in: [.lowercaseLetter], from: upper) else {
                wordStart = upper
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower
        }
        words.append(wordStart..<scalars.count)
        return words.map { range in
            var word = String.UnicodeScalarView()
            word.append(contentsOf: scalars[range])
            return String(word).lowercased()
        }.joined(separator: "_")
    }

    /// "my_url_property" → "myUrlProperty"; leading and trailing
    /// underscores are kept; a key without underscores is unchanged.
    static func camelCased(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first && key[last] == "_" { last = key.index(before: last) }
        let core = key[first...last]
        let parts = core.split(separator: "_", omittingEmptySubsequences: true)
        guard parts.count > 1 || core.contains("_") else { return key }
        let camel = parts.enumerated().map { index, part in
            index == 0 ? part.lowercased() : part.capitalized
        }.joined()
        return String(key[..<first]) + camel + String(key[key.index(after: last)...])
    }
}
