import FoundationEssentials

/// Which archives of a series to keep, with the semantics of restic's
/// `forget --keep-*` (as Debian's restic 0.14 applies them): `--keep N`
/// keeps the newest N; `--keep-daily N` keeps, for each of the newest N days
/// that have archives, the newest archive of that day (and so on for hours,
/// ISO weeks, months, years); `--keep-within 1y2m3d4h` keeps every archive
/// newer than that long before the newest one (not counting archives dated
/// in the future). An archive kept by any rule stays; the others go.
/// Periods are UTC, as the archives' names are.
public struct RetentionPolicy: Sendable, Equatable, Codable {
    /// `--keep N`: the newest N archives.
    public var last: Int?
    public var hourly: Int?
    public var daily: Int?
    public var weekly: Int?
    public var monthly: Int?
    public var yearly: Int?
    /// `--keep-within DURATION`.
    public var within: KeepWithin?

    public init(
        last: Int? = nil, hourly: Int? = nil, daily: Int? = nil, weekly: Int? = nil, monthly: Int? = nil, yearly: Int? = nil,
        within: KeepWithin? = nil
    ) {
        self.last = last
        self.hourly = hourly
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
        self.yearly = yearly
        self.within = within
    }

    /// True when no rule is set: nothing is ever deleted.
    public var isEmpty: Bool {
        [last, hourly, daily, weekly, monthly, yearly].allSatisfy { $0 == nil || $0 == 0 } && (within?.isZero ?? true)
    }

    /// The indices of `dates` to keep, as of `now` (for `--keep-within`: an
    /// archive dated after `now` is not the newest one).
    public func kept(_ dates: [Date], now: Date = Date()) -> Set<Int> {
        guard !isEmpty else { return Set(dates.indices) }
        // Newest first; a stable sort, as restic's.
        let newestFirst = dates.indices.sorted { dates[$0] != dates[$1] ? dates[$0] > dates[$1] : $0 < $1 }
        var kept = Set<Int>()
        if let within, !within.isZero, let latest = dates.filter({ $0 < now }).max() {
            let cutoff = within.cutoff(before: latest)
            kept.formUnion(dates.indices.filter { dates[$0] > cutoff })
        }
        if let last, last > 0 { kept.formUnion(newestFirst.prefix(last)) }
        let rules: [(Int?, (DateComponents) -> [Int])] = [
            (hourly, { [$0.year ?? 0, $0.month ?? 0, $0.day ?? 0, $0.hour ?? 0] }),
            (daily, { [$0.year ?? 0, $0.month ?? 0, $0.day ?? 0] }),
            (weekly, { [$0.yearForWeekOfYear ?? 0, $0.weekOfYear ?? 0] }),
            (monthly, { [$0.year ?? 0, $0.month ?? 0] }),
            (yearly, { [$0.year ?? 0] }),
        ]
        let parts = dates.map { Self.calendar.dateComponents([.year, .month, .day, .hour, .yearForWeekOfYear, .weekOfYear], from: $0) }
        for (count, period) in rules {
            guard var left = count, left > 0 else { continue }
            var previous: [Int]?
            for index in newestFirst where left > 0 {
                // The newest archive of each period, newest periods first.
                let key = period(parts[index])
                guard key != previous else { continue }
                previous = key
                kept.insert(index)
                left -= 1
            }
        }
        return kept
    }

    /// ISO 8601 weeks, UTC.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// The rules as options, for messages: `--keep-daily 7 --keep-weekly 4`.
    public var description: String {
        let rules: [(String, String?)] = [
            ("--keep", last.map(String.init)), ("--keep-hourly", hourly.map(String.init)), ("--keep-daily", daily.map(String.init)),
            ("--keep-weekly", weekly.map(String.init)), ("--keep-monthly", monthly.map(String.init)),
            ("--keep-yearly", yearly.map(String.init)), ("--keep-within", within?.description),
        ]
        return rules.compactMap { name, value in value.map { "\(name) \($0)" } }.joined(separator: " ")
    }
}

/// A duration of `--keep-within`, as restic writes it: `30d`, `12h`,
/// `1y6m`, `2y3m4d5h` (years, months, days, hours). A bare `m` is months,
/// as restic reads it; `mo` and `month` say so, `min` and `minute` are
/// minutes, and the words take a plural (`2years`).
public struct KeepWithin: Sendable, Equatable, Codable, CustomStringConvertible {
    public var years = 0
    public var months = 0
    public var days = 0
    public var hours = 0
    public var minutes = 0
    /// Whether the text gave months as a bare `m`, which a reader used to
    /// Litestream's durations may have meant as minutes.
    public var usesBareM = false

    private enum CodingKeys: String, CodingKey { case years, months, days, hours, minutes }

    /// Equal when they last as long, however they were written.
    public static func == (lhs: KeepWithin, rhs: KeepWithin) -> Bool {
        (lhs.years, lhs.months, lhs.days, lhs.hours, lhs.minutes) == (rhs.years, rhs.months, rhs.days, rhs.hours, rhs.minutes)
    }

    /// The field of a unit, by every name it is written with.
    private static func field(_ unit: String) -> WritableKeyPath<KeepWithin, Int>? {
        switch unit.lowercased() {
        case "y", "year", "years": \.years
        case "m", "mo", "month", "months": \.months
        case "d", "day", "days": \.days
        case "h", "hour", "hours": \.hours
        case "min", "minute", "minutes": \.minutes
        default: nil
        }
    }

    /// Parses `text`; nil when it is not a duration of that form.
    public init?(_ text: String) {
        var rest = Substring(text.trimmingSpaces())
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let unit = rest.dropFirst(digits.count).prefix { $0.isASCII && $0.isLetter }
            // A million of any unit is past any archive's age, and keeps the cutoff's arithmetic in range.
            guard !digits.isEmpty, let number = Int(digits), number <= 1_000_000, let field = Self.field(String(unit)) else {
                return nil
            }
            self[keyPath: field] = number
            if unit == "m" { usesBareM = true }
            rest = rest.dropFirst(digits.count + unit.count)
        }
    }

    var isZero: Bool { years == 0 && months == 0 && days == 0 && hours == 0 && minutes == 0 }

    /// The duration as restic writes it, minutes as `min`.
    public var description: String {
        let parts = [(years, "y"), (months, "m"), (days, "d"), (hours, "h"), (minutes, "min")].filter { $0.0 != 0 }
        return parts.isEmpty ? "0h" : parts.map { "\($0.0)\($0.1)" }.joined()
    }

    /// The duration in words: "1 year 6 months", for saying how a bare
    /// `m` was read.
    public var spelledOut: String {
        let parts = [(years, "year"), (months, "month"), (days, "day"), (hours, "hour"), (minutes, "minute")].filter { $0.0 != 0 }
        return parts.isEmpty ? "0 hours" : parts.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " ")
    }

    /// `latest` minus this duration, computed as Go's `AddDate` does (the
    /// date normalized: March 31 minus one month is March 3 or 2), then the
    /// hours: the time restic compares archives with.
    func cutoff(before latest: Date) -> Date {
        let calendar = RetentionPolicy.calendar
        var parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: latest)
        // Months first, carried into years, as Go normalizes them; then days.
        let zeroBasedMonth = (parts.month ?? 1) - 1 - months
        let carry = Int((Double(zeroBasedMonth) / 12).rounded(.down))
        parts.year = (parts.year ?? 1970) - years + carry
        parts.month = zeroBasedMonth - carry * 12 + 1
        let day = parts.day ?? 1
        parts.day = 1
        let firstOfMonth = calendar.date(from: parts) ?? latest
        let shifted = firstOfMonth.addingTimeInterval(Double(day - 1 - days) * 86_400)
        return shifted.addingTimeInterval(-Double(hours) * 3600 - Double(minutes) * 60)
    }
}
