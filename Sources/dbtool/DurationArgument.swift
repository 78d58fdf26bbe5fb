import ArgumentParser
import DBToolCore

/// A duration as `replicate` takes it: a number and a unit, `30s`, `5min`,
/// `24h`, `7d`, `1mo`. A bare `m` is minutes, as in Litestream's
/// durations (while `--keep-within` reads it as months, as restic does):
/// the run says which it read.
struct DurationArgument: Sendable {
    /// The duration in seconds.
    let seconds: Double
    /// What was written.
    let text: String
    /// Whether the unit was a bare `m`.
    let usesBareM: Bool

    /// Each unit by every name it is written with; a month is 30 days.
    private static let units: [String: Double] = [
        "s": 1, "sec": 1, "second": 1, "seconds": 1,
        "m": 60, "min": 60, "minute": 60, "minutes": 60,
        "h": 3600, "hour": 3600, "hours": 3600,
        "d": 86_400, "day": 86_400, "days": 86_400,
        "mo": 2_592_000, "month": 2_592_000, "months": 2_592_000,
    ]

    /// The longest duration taken, in seconds: 100 years (a number of
    /// seconds every later computation holds).
    static let longest: Double = 3_155_760_000

    /// Parses `text`, an option's value.
    ///
    /// - throws: `ValidationError` saying what a duration looks like.
    @Sendable init(parsing text: String) throws {
        let unit = String(text.reversed().prefix { $0.isASCII && $0.isLetter }.reversed())
        guard let scale = Self.units[unit.lowercased()], let value = Double(text.dropLast(unit.count)), value > 0, value.isFinite
        else {
            throw ValidationError("\(text) is not a duration: write a number and s, min, h, d or mo (30min, 24h, 7d)")
        }
        guard value * scale <= Self.longest else {
            throw ValidationError("\(text) is longer than 100 years: write a shorter duration")
        }
        seconds = value * scale
        self.text = text
        usesBareM = unit == "m"
    }

    /// How a bare `m` was read, for the run's log.
    func readAs(option: String) -> String? {
        guard usesBareM else { return nil }
        let minutes = seconds / 60
        let count = minutes == minutes.rounded() ? String(Int(minutes)) : String(minutes)
        return "\(option) \(text) is read as \(count) minute\(minutes == 1 ? "" : "s") (m is minutes, as Litestream's; write mo for months)"
    }
}

/// `30s`, `30min`, `24h`, `7d` as seconds.
@Sendable func parseDuration(_ text: String) throws -> Double {
    try DurationArgument(parsing: text).seconds
}

extension DurationArgument {
    /// A default: `seconds`, written in seconds.
    init(seconds: Double) {
        self.seconds = seconds
        text = "\(Int(seconds))s"
        usesBareM = false
    }
}
