import Foundation

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
/// Writing appends the time zone when the components have one.
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

    /// The components. Only those of ``format`` are stored (missing ones as
    /// zero); nanoseconds are stored to the millisecond.
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
            appendPadded(Int64(components.month ?? 0), width: 2, to: &text)
            text += "-"
            appendPadded(Int64(components.day ?? 0), width: 2, to: &text)
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
                appendPadded(Int64((components.nanosecond ?? 0) / 1_000_000), width: 3, to: &text)
            }
            if let timeZone = components.timeZone {
                let offset = timeZone.secondsFromGMT()
                if offset == 0 {
                    text += "Z"
                } else {
                    text += offset < 0 ? "-" : "+"
                    appendPadded(Int64(abs(offset) / 3600), width: 2, to: &text)
                    text += ":"
                    appendPadded(Int64(abs(offset) / 60 % 60), width: 2, to: &text)
                }
            }
        }
        return text.databaseValue
    }

    // MARK: Reading

    /// Components from text in one of the formats; nil for anything else.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseDateComponents? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return DatabaseDateComponents(parsing: string)
    }

    /// Components from text in one of the formats; nil for anything else.
    init?(parsing string: String) {
        var scanner = DigitScanner(Array(string.utf8))
        var components = DateComponents()
        var hasDate = false
        // A date starts with four digits and a dash; a time with two and a colon.
        var probe = scanner
        if probe.number(digits: 4) != nil, probe.skip("-") {
            guard let year = scanner.number(digits: 4), scanner.skip("-"),
                let month = scanner.number(digits: 2), scanner.skip("-"),
                let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
            else { return nil }
            (components.year, components.month, components.day) = (Int(year), Int(month), Int(day))
            hasDate = true
            guard !scanner.isAtEnd else {
                self.init(components, format: .YMD)
                return
            }
            guard scanner.skip(" ") || scanner.skip("T") else { return nil }
        }
        guard let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), hour < 24, minute < 60
        else { return nil }
        (components.hour, components.minute) = (Int(hour), Int(minute))
        var format: Format = hasDate ? .YMD_HM : .HM
        if scanner.skip(":") {
            guard let second = scanner.number(digits: 2), second < 60 else { return nil }
            components.second = Int(second)
            format = hasDate ? .YMD_HMS : .HMS
            if scanner.skip(".") {
                guard let fraction = scanner.fraction() else { return nil }
                components.nanosecond = Int((fraction * 1000).rounded()) * 1_000_000
                format = hasDate ? .YMD_HMSS : .HMSS
            }
        }
        if scanner.skip("Z") {
            components.timeZone = TimeZone(secondsFromGMT: 0)
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2), scanner.skip(":"), let minutes = scanner.number(digits: 2),
                let timeZone = TimeZone(secondsFromGMT: Int(sign * (hours * 3600 + minutes * 60)))
            else { return nil }
            components.timeZone = timeZone
        }
        guard scanner.isAtEnd else { return nil }
        self.init(components, format: format)
    }

    // MARK: Codable, as the stored text

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let value = DatabaseDateComponents(parsing: string) else {
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
