import FoundationEssentials

/// Date components stored as text in one of the formats SQLite's date
/// functions understand: a day without a time, a time without a day, or both.
///
/// ```swift
/// let components = DateComponents(year: 2026, month: 11, day: 23)
/// let value = DatabaseDateComponents(components, format: .YMD)   // "2026-11-23"
/// try db.execute(sql: "INSERT INTO event (day) VALUES (?)", arguments: [value])
/// let day = try DatabaseDateComponents.fetchOne(db, sql: "SELECT day FROM event")!
/// day.format               // .YMD
/// day.dateComponents.year  // 2026
/// ```
///
/// Reading accepts every format below, with "T" instead of the space, and an
/// optional time zone ("Z" or "±HH:MM") that sets `dateComponents.timeZone`.
/// Values are not range-checked ("0000-00-00" reads as year, month and day
/// zero), and fractional seconds keep their first three digits. Writing
/// uses the format's components only: a missing month or day is 1, other
/// missing components 0, and the time zone is not written.
public struct DatabaseDateComponents: DatabaseValueConvertible, Codable, Hashable, Sendable {
    /// The stored formats.
    public enum Format: String, CaseIterable, Sendable {
        /// "2026-11-23"
        case YMD = "yyyy-MM-dd"
        /// "2026-11-23 14:30"
        case YMD_HM = "yyyy-MM-dd HH:mm"
        /// "2026-11-23 14:30:15"
        case YMD_HMS = "yyyy-MM-dd HH:mm:ss"
        /// "2026-11-23 14:30:15.250"
        case YMD_HMSS = "yyyy-MM-dd HH:mm:ss.SSS"
        /// "14:30"
        case HM = "HH:mm"
        /// "14:30:15"
        case HMS = "HH:mm:ss"
        /// "14:30:15.250"
        case HMSS = "HH:mm:ss.SSS"

        var hasDate: Bool { rawValue.hasPrefix("yyyy") }
        var hasTime: Bool { rawValue.contains("HH") }
        var hasSeconds: Bool { rawValue.contains("ss") }
        var hasMilliseconds: Bool { rawValue.contains("SSS") }
    }

    /// The components.
    public let dateComponents: DateComponents
    /// The stored format.
    public let format: Format

    /// Components to store in a format.
    public init(_ dateComponents: DateComponents, format: Format) {
        self.dateComponents = dateComponents
        self.format = format
    }

    // MARK: Writing

    /// The components as text in ``format``.
    public var databaseValue: DatabaseValue {
        var text = ""
        let components = dateComponents
        if format.hasDate {
            appendPadded(Int64(components.year ?? 0), width: 4, to: &text)
            text += "-"
            appendPadded(Int64(components.month ?? 1), width: 2, to: &text)
            text += "-"
            appendPadded(Int64(components.day ?? 1), width: 2, to: &text)
            if format.hasTime { text += " " }
        }
        if format.hasTime {
            appendPadded(Int64(components.hour ?? 0), width: 2, to: &text)
            text += ":"
            appendPadded(Int64(components.minute ?? 0), width: 2, to: &text)
            if format.hasSeconds {
                text += ":"
                appendPadded(Int64(components.second ?? 0), width: 2, to: &text)
            }
            if format.hasMilliseconds {
                text += "."
                appendPadded(Int64((Double(components.nanosecond ?? 0) / 1_000_000).rounded()), width: 3, to: &text)
            }
        }
        return text.databaseValue
    }

    // MARK: Reading

    /// Components from text (or a value that converts to text) in one of
    /// the formats; nil for anything else.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseDateComponents? {
        guard var string = String.fromDatabaseValue(dbValue) else { return nil }
        return string.withUTF8 { parse($0) }.map { DatabaseDateComponents($0.dateComponents, format: $0.format) }
    }

    /// Parses the formats; nil for anything else.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateComponents? {
        guard bytes.count >= 5 else { return nil }
        var scanner = DateScanner(bytes: bytes)
        var parsed = ParsedDateComponents()
        if bytes[4] == UInt8(ascii: "-") {
            guard let year = scanner.number(digits: 4), scanner.skip("-"),
                let month = scanner.number(digits: 2), scanner.skip("-"),
                let day = scanner.number(digits: 2)
            else { return nil }
            (parsed.year, parsed.month, parsed.day) = (year, month, day)
            parsed.format = .YMD
            if scanner.isAtEnd { return parsed }
            guard scanner.skip(" ") || scanner.skip("T"), let timeFormat = parseTime(&scanner, into: &parsed) else { return nil }
            switch timeFormat {
            case .HM: parsed.format = .YMD_HM
            case .HMS: parsed.format = .YMD_HMS
            default: parsed.format = .YMD_HMSS
            }
            return parsed
        }
        if bytes[2] == UInt8(ascii: ":") {
            guard let format = parseTime(&scanner, into: &parsed) else { return nil }
            parsed.format = format
            return parsed
        }
        return nil
    }

    /// Parses "HH:MM", "HH:MM:SS", "HH:MM:SS.SSS" (more digits are ignored),
    /// each with an optional time zone, to the end of the text.
    private static func parseTime(_ scanner: inout DateScanner, into parsed: inout ParsedDateComponents) -> Format? {
        guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2) else { return nil }
        (parsed.hour, parsed.minute) = (hour, minute)
        if scanner.timeZoneAtEnd(into: &parsed) { return .HM }
        guard scanner.skip(":"), let second = scanner.number(digits: 2) else { return nil }
        parsed.second = second
        if scanner.timeZoneAtEnd(into: &parsed) { return .HMS }
        guard scanner.skip(".") else { return nil }
        var millisecond = 0
        var scale = 100
        guard let first = scanner.digit() else { return nil }
        millisecond = first * scale
        while scale > 1, let digit = scanner.digit() {
            scale /= 10
            millisecond += digit * scale
        }
        while scanner.digit() != nil {}
        parsed.millisecond = millisecond
        parsed.hasMilliseconds = true
        guard scanner.timeZoneAtEnd(into: &parsed) else { return nil }
        return .HMSS
    }

    // MARK: Codable, as the stored text

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let value = DatabaseDateComponents.fromDatabaseValue(string.databaseValue) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "invalid date components: \(String(reflecting: string))")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard case .string(let string) = databaseValue.storage else { return }
        try container.encode(string)
    }
}

/// The parsed fields of a date text, without building `DateComponents`
/// (the fast path of `Date`).
struct ParsedDateComponents {
    var format: DatabaseDateComponents.Format = .YMD
    var year = 0
    var month = 0
    var day = 0
    var hour = 0
    var minute = 0
    var second = 0
    var millisecond = 0
    var hasMilliseconds = false
    var offsetSeconds: Int?

    /// The components of the format, with the time zone when one was read.
    var dateComponents: DateComponents {
        var components = DateComponents()
        if format.hasDate { (components.year, components.month, components.day) = (year, month, day) }
        if format.hasTime { (components.hour, components.minute) = (hour, minute) }
        if format.hasSeconds { components.second = second }
        if format.hasMilliseconds { components.nanosecond = millisecond * 1_000_000 }
        if let offsetSeconds { components.timeZone = TimeZone(secondsFromGMT: offsetSeconds) }
        return components
    }
}

/// A cursor over the ASCII bytes of a date text.
private struct DateScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
        position += 1
        return true
    }

    mutating func digit() -> Int? {
        guard position < bytes.count, (48...57).contains(bytes[position]) else { return nil }
        defer { position += 1 }
        return Int(bytes[position] - 48)
    }

    mutating func number(digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// True at the end of the text, after an optional "Z" or "±HH:MM".
    mutating func timeZoneAtEnd(into parsed: inout ParsedDateComponents) -> Bool {
        if isAtEnd { return true }
        let start = position
        if skip("Z") {
            parsed.offsetSeconds = 0
        } else if let sign = skip("+") ? 1 : (skip("-") ? -1 : nil), let hours = number(digits: 2), skip(":"),
            let minutes = number(digits: 2)
        {
            parsed.offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            position = start
            return false
        }
        if isAtEnd { return true }
        position = start
        parsed.offsetSeconds = nil
        return false
    }
}
