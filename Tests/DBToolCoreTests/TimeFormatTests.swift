import Foundation
import Testing

@testable import DBToolCore

/// dbtool's own ISO 8601 and HTTP dates, checked against Foundation's
/// formatters (which the tests may link; dbtool does not).
@Suite("Time formats")
struct TimeFormatTests {
    /// Deterministic Unix times from 1601 to 2399, the range of a 4-digit year
    /// on both sides of every leap rule.
    private static let samples: [Int64] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<5000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return -11_644_473_600 + Int64(state >> 33) % 25_200_000_000
        } + [0, -1, 951_782_400, 951_868_799, 4_107_542_400, 1_790_000_000]
    }()

    @Test("text and seconds write what ISO8601DateFormatter writes; parse reads it back")
    func matchesFoundation() {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for seconds in Self.samples {
            let date = Date(timeIntervalSince1970: Double(seconds) + 0.25)
            #expect(ISOTime.seconds(date) == plain.string(from: date))
            #expect(ISOTime.text(date) == fractional.string(from: date))
            #expect(ISOTime.parse(ISOTime.text(date)) == date)
            #expect(ISOTime.parse(ISOTime.seconds(date)) == Date(timeIntervalSince1970: Double(seconds)))
        }
    }

    @Test("a time of whole milliseconds prints as those milliseconds and compares as them, whatever the Date's rounding")
    func wholeMilliseconds() {
        let base: Int64 = 1_795_951_972_000  // 2026-11-29
        for offset in Int64(0)..<3000 {
            let milliseconds = base + offset
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(ISOTime.text(date).hasSuffix(String(format: ".%03dZ", Int(milliseconds % 1000))), "\(milliseconds)")
            #expect(date.microsecondsSince1970 == milliseconds * 1000)
            #expect(ISOTime.parse(ISOTime.text(date))?.microsecondsSince1970 == milliseconds * 1000)
        }
        // A genuine fraction of a millisecond is still cut, not rounded.
        #expect(ISOTime.text(Date(timeIntervalSince1970: 1_795_951_972.6596)).hasSuffix(".659Z"))
    }

    @Test("offsets, lower-case letters and long fractions are read; malformed times are nil")
    func parsing() {
        let reference = Date(timeIntervalSince1970: 1_795_730_121)  // 2026-11-26T21:55:21Z
        for text in ["2026-11-26T21:55:21Z", "2026-11-26t21:55:21z", "2026-11-26T23:55:21+02:00", "2026-11-26T16:25:21-0530"] {
            #expect(ISOTime.parse(text) == reference, "\(text)")
        }
        #expect(ISOTime.parse("2026-11-26T21:55:21.123456Z")?.timeIntervalSince1970 == 1_795_730_121.123456)
        for text in [
            "", "2026-11-26", "2026-11-26T21:55:21", "2026-11-26 21:55:21Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
            "2026-11-26T24:00:00Z", "2026-11-26T21:55:21.Z", "2026-11-26T21:55:21Z ", "2026-11-26T21:55:21+2:00", "+2026-11-26T21:55:21Z",
        ] {
            #expect(ISOTime.parse(text) == nil, "\(text)")
        }
        #expect(ISOTime.parse("2024-02-29T00:00:00Z") != nil)
    }

    @Test("HTTP dates and migration versions agree with DateFormatter")
    func httpAndCompact() {
        let http = DateFormatter()
        http.locale = Locale(identifier: "en_US_POSIX")
        http.timeZone = TimeZone(identifier: "GMT")
        http.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let compact = DateFormatter()
        compact.locale = Locale(identifier: "en_US_POSIX")
        compact.timeZone = TimeZone(identifier: "UTC")
        compact.dateFormat = "yyyyMMddHHmmss"
        for seconds in Self.samples {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(HTTPDate.parse(http.string(from: date)) == date, "\(http.string(from: date))")
            #expect(ISOTime.compact(date) == compact.string(from: date))
        }
        #expect(HTTPDate.parse("Sat, 28 Nov 2026 02:23:55 GMT") == Date(timeIntervalSince1970: 1_795_832_635))
        for text in [
            "", "Sat, 28 Nov 2026 02:23:55", "Sat, 31 Nov 2026 02:23:55 GMT", "Sat 28 Nov 2026 02:23:55 GMT",
            "Sat, 28 Foo 2026 02:23:55 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test("corrupt times print as far dates and huge years are refused, never a trap")
    func extremes() {
        for seconds in [Double.nan, .infinity, -.infinity, 9.3e18, -9.3e18, 1e300] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(!ISOTime.text(date).isEmpty && !ISOTime.seconds(date).isEmpty && !ISOTime.compact(date).isEmpty)
        }
        #expect(HTTPDate.parse("Sat, 28 Nov 99999999999999 02:23:55 GMT") == nil)
    }
}
