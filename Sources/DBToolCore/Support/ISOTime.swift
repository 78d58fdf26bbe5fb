import DatabaseKit
import FoundationEssentials

/// ISO 8601 times as the AWS services, Litestream and operators write them:
/// `2026-11-26T21:55:21Z`, with or without fractional seconds, any offset.
///
/// Written out by hand: Foundation's date formatters live in the part of
/// Foundation that links ICU's 30 MB of locale data, which dbtool does not
/// need for a fixed, locale-free format.
public enum ISOTime {
    /// The time `text` names, or nil: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction, then `Z` or an offset (`+01:00`, `-0530`).
    public static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(text)
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
            let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            guard let (value, digits) = scanner.fraction(), digits > 0 else { return nil }
            fraction = value
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2) else { return nil }
            _ = scanner.skip(":")
            guard let minutes = scanner.number(digits: 2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd,
            let seconds = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)?.unixSeconds
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - Int64(offset)) + fraction)
    }

    /// `date` with milliseconds, in UTC: `2026-11-26T21:55:21.123Z`.
    public static func text(_ date: Date) -> String {
        // Truncated to the millisecond from the rounded microsecond: a time of
        // whole milliseconds (an LTX header's) prints as those, not one less.
        let microseconds = date.microsecondsSince1970
        let milliseconds = microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let adjusted = remainder < 0 ? (seconds - 1, remainder + 1000) : (seconds, remainder)
        return CivilTime(unixSeconds: adjusted.0).iso + "." + padded(Int(adjusted.1), 3) + "Z"
    }

    /// `date` to the second, in UTC: `2026-11-26T21:55:21Z`.
    public static func seconds(_ date: Date) -> String {
        CivilTime(unixSeconds: wholeSeconds(date)).iso + "Z"
    }

    /// `date` as a migration version, in UTC: `20261126215521`.
    public static func compact(_ date: Date) -> String {
        let time = CivilTime(unixSeconds: wholeSeconds(date))
        return padded(time.year, 4) + padded(time.month, 2) + padded(time.day, 2) + padded(time.hour, 2) + padded(time.minute, 2)
            + padded(time.second, 2)
    }
}

/// HTTP dates (`Sat, 28 Nov 2026 02:23:55 GMT`), as `Last-Modified` gives them
/// (RFC 9110's IMF-fixdate, the one format servers send).
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT" || fields[5] == "UTC",
            let day = Int(fields[1]), let month = months.firstIndex(of: String(fields[2])), let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            let seconds = CivilTime(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)?.unixSeconds
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }
}

/// A UTC date and time of the proleptic Gregorian calendar, converted to and
/// from Unix seconds with DatabaseKit's day counts (Howard Hinnant's algorithms).
struct CivilTime {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

    /// nil when a field is out of its range (a 31 April, a 25th hour, a year
    /// past ±1,000,000); a leap second (`:60`) is read as the next second, as
    /// ICU reads it.
    init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard (-1_000_000...1_000_000).contains(year), (1...12).contains(month), (1...Self.days(inMonth: month, of: year)).contains(day),
            (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    init(unixSeconds: Int64) {
        let (days, secondOfDay) = Self.floorDivision(unixSeconds, 86_400)
        let (year, month, day) = civilDate(fromDaysSince1970: days)
        (self.year, self.month, self.day) = (Int(year), Int(month), Int(day))
        hour = Int(secondOfDay / 3600)
        minute = Int(secondOfDay % 3600 / 60)
        second = Int(secondOfDay % 60)
    }

    var unixSeconds: Int64 {
        daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `2026-11-26T21:55:21`.
    var iso: String {
        padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T" + padded(hour, 2) + ":" + padded(minute, 2) + ":"
            + padded(second, 2)
    }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

/// The whole seconds of `date` since 1970, within ±10^15 (31 million years:
/// a corrupt timestamp prints as a far date, never traps).
private func wholeSeconds(_ date: Date) -> Int64 {
    Int64(clamped(date.timeIntervalSince1970, to: 1e15).rounded(.down))
}

/// `value` within ±`limit`; 0 for NaN.
private func clamped(_ value: Double, to limit: Double) -> Double {
    value.isNaN ? 0 : min(max(value, -limit), limit)
}

/// `value` in decimal, zero-padded to `width` digits.
private func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// Reads fixed-width decimal fields from ASCII text.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Character) -> Bool {
        guard position < bytes.count, let ascii = character.asciiValue, bytes[position] == ascii else { return false }
        position += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    mutating func number(digits: Int) -> Int? {
        guard position + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[position..<position + digits] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        position += digits
        return value
    }

    /// The decimal fraction after the point, and how many digits it had.
    mutating func fraction() -> (Double, Int)? {
        var value = 0.0
        var scale = 0.1
        var count = 0
        while position < bytes.count, (48...57).contains(bytes[position]) {
            value += Double(bytes[position] - 48) * scale
            scale /= 10
            count += 1
            position += 1
        }
        return (value, count)
    }
}

extension Date {
    /// The time in whole microseconds since 1970, rounded: what two times
    /// are compared by, and a file's time is set to. A `Date` holds a time
    /// of this century only to about 0.2 µs, so that a time of whole
    /// milliseconds may read a hair before or after them.
    var microsecondsSince1970: Int64 {
        Int64(clamped((timeIntervalSince1970 * 1_000_000).rounded(), to: 1e18))
    }
}
