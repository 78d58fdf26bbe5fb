import Foundation

/// Which archives of a series to keep, with the semantics of restic's and
/// borg's `forget --keep-*`: `--keep N` keeps the newest N; `--keep-daily N`
/// keeps, for each of the newest N days that have archives, the newest
/// archive of that day (and so on for hours, ISO weeks, months, years).
/// An archive kept by any rule stays; the others go. Periods are UTC, as
/// the archives' names are.
public struct RetentionPolicy: Sendable, Equatable, Codable {
    /// `--keep N`: the newest N archives.
    public var last: Int?
    public var hourly: Int?
    public var daily: Int?
    public var weekly: Int?
    public var monthly: Int?
    public var yearly: Int?

    public init(last: Int? = nil, hourly: Int? = nil, daily: Int? = nil, weekly: Int? = nil, monthly: Int? = nil, yearly: Int? = nil) {
        self.last = last
        self.hourly = hourly
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
        self.yearly = yearly
    }

    /// True when no rule is set: nothing is ever deleted.
    public var isEmpty: Bool { [last, hourly, daily, weekly, monthly, yearly].allSatisfy { $0 == nil } }

    /// The indices of `dates` to keep. Never empty when `dates` is not (each
    /// rule keeps the newest archive), so the newest archive always stays.
    public func kept(_ dates: [Date]) -> Set<Int> {
        guard !isEmpty else { return Set(dates.indices) }
        let newestFirst = dates.indices.sorted { dates[$0] > dates[$1] }
        var kept = Set<Int>()
        if let last { kept.formUnion(newestFirst.prefix(max(last, 0))) }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let rules: [(Int?, (Date) -> [Int])] = [
            (hourly, { date in Self.components(calendar, [.year, .month, .day, .hour], date) }),
            (daily, { date in Self.components(calendar, [.year, .month, .day], date) }),
            (weekly, { date in Self.components(calendar, [.yearForWeekOfYear, .weekOfYear], date) }),
            (monthly, { date in Self.components(calendar, [.year, .month], date) }),
            (yearly, { date in Self.components(calendar, [.year], date) }),
        ]
        for (count, period) in rules {
            guard let count, count > 0 else { continue }
            var periods: Set<[Int]> = []
            for index in newestFirst {
                let key = period(dates[index])
                guard !periods.contains(key) else { continue }
                // The newest archive of a period not seen yet.
                guard periods.count < count else { break }
                periods.insert(key)
                kept.insert(index)
            }
        }
        return kept
    }

    /// The names of `series` among `names` that no rule keeps, oldest
    /// first; names of other series are never expired.
    func expired(among names: [String], series: TimestampedName) -> [String] {
        guard !isEmpty else { return [] }
        let ours = names.compactMap { name in
            series.timestamp(of: name).flatMap(TimestampedName.date(ofTimestamp:)).map { (name, $0) }
        }
        let kept = self.kept(ours.map(\.1))
        return ours.indices.filter { !kept.contains($0) }.sorted { ours[$0].1 < ours[$1].1 }.map { ours[$0].0 }
    }

    private static func components(_ calendar: Calendar, _ units: [Calendar.Component], _ date: Date) -> [Int] {
        let parts = calendar.dateComponents(Set(units), from: date)
        return units.map { parts.value(for: $0) ?? 0 }
    }

    /// The rules as options, for messages: `--keep-daily 7 --keep-weekly 4`.
    public var description: String {
        let rules: [(String, Int?)] = [
            ("--keep", last), ("--keep-hourly", hourly), ("--keep-daily", daily), ("--keep-weekly", weekly), ("--keep-monthly", monthly),
            ("--keep-yearly", yearly),
        ]
        return rules.compactMap { name, value in value.map { "\(name) \($0)" } }.joined(separator: " ")
    }
}

extension TimestampedName {
    /// The date of a sortable timestamp (`yyyyMMddHHmmssSSS`, UTC).
    static func date(ofTimestamp timestamp: String) -> Date? {
        let digits = Array(timestamp.utf8).map { Int($0) - 48 }
        guard digits.count == 17, digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let components = DateComponents(
            year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: number(8..<10), minute: number(10..<12),
            second: number(12..<14))
        return calendar.date(from: components).map { $0.addingTimeInterval(Double(number(14..<17)) / 1000) }
    }
}
