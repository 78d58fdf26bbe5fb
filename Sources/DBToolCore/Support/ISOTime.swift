import Foundation

/// ISO 8601 times as the AWS services, Litestream and operators write them:
/// `2026-11-26T21:55:21Z`, with or without fractional seconds, any offset.
public enum ISOTime {
    /// The time `text` names, or nil.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// `date` with milliseconds, in UTC: `2026-11-26T21:55:21.123Z`.
    public static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
