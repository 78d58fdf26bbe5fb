import Foundation

// Dates are stored as UTC text "yyyy-MM-dd HH:mm:ss.SSS", the format SQLite's
// date functions understand and that sorts chronologically. Formatting and
// parsing are done by hand: DateFormatter is slow and not needed for one fixed
// format. See <https://www.sqlite.org/lang_datefunc.html>.

extension Date: DatabaseValueConvertible {
    /// Stored as UTC text "yyyy-MM-dd HH:mm:ss.SSS" (millisecond precision).
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(formatDatabaseDate(self)))
    }

    /// Reads the text formats SQLite's date functions accept
    /// ("yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss",
    /// "yyyy-MM-dd HH:mm:ss.SSS", with "T" instead of the space, and an optional
    /// "Z" or "±HH:MM" time zone; UTC when absent), and numbers as Unix timestamps.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue.storage {
        case .int64(let int64): return Date(timeIntervalSince1970: TimeInterval(int64))
        case .double(let double): return Date(timeIntervalSince1970: double)
        case .string(let string): return parseDatabaseDate(string)
        default: return nil
        }
    }
}

/// Formats a date as "yyyy-MM-dd HH:mm:ss.SSS" in UTC.
func formatDatabaseDate(_ date: Date) -> String {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
    let (year, month, day) = civilDate(fromDaysSince1970: days)
    let hour = msOfDay / 3_600_000
    let minute = msOfDay / 60_000 % 60
    let second = msOfDay / 1000 % 60
    let millisecond = msOfDay % 1000
    var text = ""
    text.reserveCapacity(23)
    appendPadded(year, width: 4, to: &text)
    text += "-"
    appendPadded(month, width: 2, to: &text)
    text += "-"
    appendPadded(day, width: 2, to: &text)
    text += " "
    appendPadded(hour, width: 2, to: &text)
    text += ":"
    appendPadded(minute, width: 2, to: &text)
    text += ":"
    appendPadded(second, width: 2, to: &text)
    text += "."
    appendPadded(millisecond, width: 3, to: &text)
    return text
}

/// Parses the date formats listed on ``Date/fromDatabaseValue(_:)``.
func parseDatabaseDate(_ string: String) -> Date? {
    var scanner = DigitScanner(Array(string.utf8))
    guard let year = scanner.number(digits: 4), scanner.skip("-"),
        let month = scanner.number(digits: 2), scanner.skip("-"),
        let day = scanner.number(digits: 2),
        (1...12).contains(month), (1...31).contains(day)
    else { return nil }

    var hour: Int64 = 0
    var minute: Int64 = 0
    var second: Int64 = 0
    var fraction = 0.0
    var offsetSeconds: Int64 = 0
    if scanner.skip(" ") || scanner.skip("T") {
        guard let h = scanner.number(digits: 2), scanner.skip(":"),
            let m = scanner.number(digits: 2), h < 24, m < 60
        else { return nil }
        hour = h
        minute = m
        if scanner.skip(":") {
            guard let s = scanner.number(digits: 2), s < 60 else { return nil }
            second = s
            if scanner.skip(".") {
                guard let f = scanner.fraction() else { return nil }
                fraction = f
            }
        }
        if scanner.skip("Z") {
            // UTC
        } else if let sign = scanner.sign() {
            guard let oh = scanner.number(digits: 2), scanner.skip(":"),
                let om = scanner.number(digits: 2)
            else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        }
    }
    guard scanner.isAtEnd else { return nil }

    let days = daysSince1970(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
    return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
}

/// A cursor over ASCII bytes for the date parser.
struct DigitScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
        position += 1
        return true
    }

    mutating func number(digits: Int) -> Int64? {
        guard position + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[position..<(position + digits)] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        position += digits
        return value
    }

    mutating func fraction() -> Double? {
        var value = 0.0
        var scale = 0.1
        let start = position
        while position < bytes.count, (48...57).contains(bytes[position]) {
            value += Double(bytes[position] - 48) * scale
            scale /= 10
            position += 1
        }
        return position > start ? value : nil
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}

func appendPadded(_ value: Int64, width: Int, to text: inout String) {
    let digits = String(value)
    if digits.count < width {
        text += String(repeating: "0", count: width - digits.count)
    }
    text += digits
}

private func floorDivide(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
    let q = a / b
    let r = a % b
    return r < 0 ? (q - 1, r + b) : (q, r)
}

// Proleptic Gregorian calendar conversions (Howard Hinnant's algorithms,
// <https://howardhinnant.github.io/date_algorithms.html>).

private func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

private func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}
