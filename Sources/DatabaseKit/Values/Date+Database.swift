import FoundationEssentials

// Dates are stored as UTC text "yyyy-MM-dd HH:mm:ss.SSS", the format SQLite's
// date functions understand and that sorts chronologically. The usual years
// are formatted and parsed by hand: DateFormatter and Calendar are slow.
// Years before the Gregorian reform (1582) and after 9999, and components
// out of range ("0000-00-00"), go through Foundation's Gregorian calendar,
// as GRDB does, so that they give the same dates.
// See <https://www.sqlite.org/lang_datefunc.html>.

extension Date: DatabaseValueConvertible {
    /// Stored as UTC text "yyyy-MM-dd HH:mm:ss.SSS" (millisecond precision).
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(formatDatabaseDate(self)))
    }

    /// Reads the text formats of ``DatabaseDateComponents`` that have a date
    /// ("yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss",
    /// "yyyy-MM-dd HH:mm:ss.SSS", with "T" instead of the space, and an
    /// optional "Z" or "±HH:MM" time zone; UTC when absent), and numbers as
    /// Unix timestamps.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue.storage {
        case .int64(let int64): return Date(timeIntervalSince1970: TimeInterval(int64))
        case .double(let double): return Date(timeIntervalSince1970: double)
        case .string(let string): return parseDatabaseDate(string)
        default: return nil
        }
    }

    /// The date of a Julian day number, as SQLite's `julianday()` returns.
    public init?(julianDay: Double) {
        // Julian day 2440587.5 is 1970-01-01 00:00:00 UTC; SQLite computes in
        // milliseconds.
        guard julianDay.isFinite, abs(julianDay) < 1e12 else { return nil }
        let milliseconds = (julianDay * 86_400_000).rounded(.towardZero) - 2_440_587.5 * 86_400_000
        self.init(timeIntervalSince1970: milliseconds / 1000)
    }
}

/// Formats a date as "yyyy-MM-dd HH:mm:ss.SSS" in UTC, the milliseconds
/// rounded half up, as DateFormatter does.
func formatDatabaseDate(_ date: Date) -> String {
    let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
    // 1583-01-01 ... 9999-12-31: the proleptic arithmetic is exact.
    guard milliseconds >= -12_212_553_600_000, milliseconds < 253_402_300_800_000 else {
        return GregorianFallback.format(milliseconds: milliseconds)
    }
    let (days, msOfDay) = floorDivide(Int64(milliseconds), 86_400_000)
    let (year, month, day) = civilDate(fromDaysSince1970: days)
    return databaseDateText(year: year, month: month, day: day, millisecondOfDay: msOfDay)
}

/// "yyyy-MM-dd HH:mm:ss.SSS", the text a date is stored as.
private func databaseDateText(year: Int64, month: Int64, day: Int64, millisecondOfDay msOfDay: Int64) -> String {
    var text = ""
    text.reserveCapacity(23)
    appendPadded(year, width: 4, to: &text)
    text += "-"
    appendPadded(month, width: 2, to: &text)
    text += "-"
    appendPadded(day, width: 2, to: &text)
    text += " "
    appendPadded(msOfDay / 3_600_000, width: 2, to: &text)
    text += ":"
    appendPadded(msOfDay / 60_000 % 60, width: 2, to: &text)
    text += ":"
    appendPadded(msOfDay / 1000 % 60, width: 2, to: &text)
    text += "."
    appendPadded(msOfDay % 1000, width: 3, to: &text)
    return text
}

/// The date of text in one of the date formats of ``DatabaseDateComponents``.
func parseDatabaseDate(_ string: String) -> Date? {
    var string = string
    return string.withUTF8 { DatabaseDateComponents.parse($0).flatMap(date(from:)) }
}

/// The date of parsed components; nil for a time without a date.
func date(from parsed: ParsedDateComponents) -> Date? {
    guard parsed.format.hasDate else { return nil }
    let c = parsed
    if c.year >= 1583, (1...12).contains(c.month), (1...31).contains(c.day), c.hour < 24, c.minute < 60, c.second < 60 {
        let days = daysSince1970(year: Int64(c.year), month: Int64(c.month), day: Int64(c.day))
        let seconds = days * 86_400 + Int64(c.hour * 3600 + c.minute * 60 + c.second) - Int64(c.offsetSeconds ?? 0)
        // Summed in the reference-date space `Date` stores, so that the one
        // rounding is that of the sum: through `timeIntervalSince1970` the
        // conversion adds a second (measured: 120 ns off, where a calendar
        // built from the components is within 10 ns).
        let sinceReferenceDate = TimeInterval(seconds - 978_307_200) + TimeInterval(c.millisecond) / 1000
        return Date(timeIntervalSinceReferenceDate: sinceReferenceDate)
    }
    return GregorianFallback.calendar.date(from: parsed.dateComponents)
}

/// Foundation's Gregorian calendar in UTC, as GRDB uses it, for the dates
/// the arithmetic does not cover: before 1583 it is the Julian calendar, as
/// in DateFormatter (FoundationEssentials' calendar, which needs no ICU).
private enum GregorianFallback {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: "en_US_POSIX")
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// "yyyy-MM-dd HH:mm:ss.SSS" as DateFormatter writes it: the year of the
    /// era, at least 4 digits. The time of day is the same in every calendar.
    static func format(milliseconds: Double) -> String {
        guard milliseconds.magnitude < 9e18 else { return "" }
        let (days, msOfDay) = floorDivide(Int64(milliseconds), 86_400_000)
        let midnight = Date(timeIntervalSince1970: Double(days) * 86_400)
        let parts = calendar.dateComponents([.year, .month, .day], from: midnight)
        return databaseDateText(
            year: Int64(parts.year ?? 0), month: Int64(parts.month ?? 0), day: Int64(parts.day ?? 0), millisecondOfDay: msOfDay)
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
// <https://howardhinnant.github.io/date_algorithms.html>), shared with
// dbtool's ISO 8601 and HTTP dates.

/// The number of days from 1970-01-01 to a date of the proleptic Gregorian
/// calendar (negative before).
package func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// The proleptic Gregorian date `days` after 1970-01-01.
package func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
