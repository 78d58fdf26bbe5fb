import Foundation
import Testing

@testable import DBToolCore

@Suite("Retention rules (restic's forget --keep-* semantics)")
struct RetentionPolicyTests {
    /// Archives of made-up dates, newest last: `yyyyMMddHHmm`.
    static let stamps = [
        "202301150200", "202312310200", "202401010200", "202406300200", "202410010200", "202410310200", "202411010200",
        "202411180200", "202411190200", "202411200200", "202411200900", "202411201500", "202411211000", "202411211100",
    ]

    static func date(_ stamp: String) -> Date {
        TimestampedName.date(ofTimestamp: stamp + "00000")!
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var policy: RetentionPolicy
        var kept: [String]
        var testDescription: String { policy.description.isEmpty ? "no rule" : policy.description }
    }

    static let cases: [Case] = [
        Case(policy: RetentionPolicy(), kept: stamps),
        Case(policy: RetentionPolicy(last: 3), kept: ["202411201500", "202411211000", "202411211100"]),
        Case(policy: RetentionPolicy(hourly: 2), kept: ["202411211000", "202411211100"]),
        // The newest of each of the last 3 days that have archives.
        Case(policy: RetentionPolicy(daily: 3), kept: ["202411190200", "202411201500", "202411211100"]),
        // ISO weeks: 2024-11-18..24 is one week; 2024-11-01 (W44) and 2024-10-31 (W44) share one.
        Case(policy: RetentionPolicy(weekly: 3), kept: ["202410010200", "202411010200", "202411211100"]),
        Case(policy: RetentionPolicy(monthly: 3), kept: ["202410310200", "202411211100", "202406300200"]),
        Case(policy: RetentionPolicy(yearly: 5), kept: ["202312310200", "202411211100"]),  // the newest of 2023 only
        // A union: kept by any rule stays.
        Case(
            policy: RetentionPolicy(last: 1, daily: 2, monthly: 2),
            kept: ["202410310200", "202411201500", "202411211100"]),
        // Within a duration of the newest archive (2024-11-21 11:00), strictly after.
        Case(policy: RetentionPolicy(within: KeepWithin("1d")), kept: ["202411201500", "202411211000", "202411211100"]),
        Case(policy: RetentionPolicy(within: KeepWithin("25h")), kept: ["202411201500", "202411211000", "202411211100"]),
        // 26h before 11:00 is 09:00 the day before: not after it, so not kept.
        Case(policy: RetentionPolicy(within: KeepWithin("26h")), kept: ["202411201500", "202411211000", "202411211100"]),
        Case(policy: RetentionPolicy(within: KeepWithin("27h")), kept: ["202411200900", "202411201500", "202411211000", "202411211100"]),
        // 2024-11-21 minus one month: 2024-10-21, then the newer ones.
        Case(
            policy: RetentionPolicy(within: KeepWithin("1m")),
            kept: ["202410310200", "202411010200", "202411180200", "202411190200", "202411200200", "202411200900", "202411201500",
                "202411211000", "202411211100"]),
        Case(policy: RetentionPolicy(last: 1, within: KeepWithin("2h")), kept: ["202411211000", "202411211100"]),
    ]

    @Test("each rule, and their union, keeps what restic's semantics keep", arguments: cases)
    func rules(_ testCase: Case) {
        let dates = Self.stamps.map(Self.date)
        let kept = testCase.policy.kept(dates).map { Self.stamps[$0] }.sorted()
        #expect(kept == testCase.kept.sorted())
    }

    @Test("--keep-within reads restic's durations; the cutoff subtracts months as Go's AddDate does")
    func durations() throws {
        #expect(KeepWithin("1y2m3d4h") == { var d = KeepWithin("1h")!; d.years = 1; d.months = 2; d.days = 3; d.hours = 4; return d }())
        #expect(KeepWithin("30d")?.description == "30d")
        for invalid in ["", "30", "d", "3w", "1.5d", "-1d", "1d2"] { #expect(KeepWithin(invalid) == nil, "\(invalid)") }
        // March 31 minus one month: February 31, which Go normalizes to March 2 (2024 is a leap year).
        let latest = Self.date("202403311200")
        #expect(KeepWithin("1m")!.cutoff(before: latest) == Self.date("202403021200"))
        #expect(KeepWithin("1y")!.cutoff(before: Self.date("202402291200")) == Self.date("202303011200"))
        #expect(KeepWithin("13m")!.cutoff(before: Self.date("202401151200")) == Self.date("202212151200"))
        #expect(KeepWithin("2d5h")!.cutoff(before: Self.date("202401021200")) == Self.date("202312310700"))
    }

    @Test("--keep-within: mo and month are months as a bare m is, min and minute are minutes; only a bare m is flagged")
    func unitWords() throws {
        let bare = try #require(KeepWithin("1y6m"))
        #expect(bare.usesBareM && bare.spelledOut == "1 year 6 months")
        for spelled in ["1y6mo", "1year6months", "1Y6MO", "1years6month"] {
            let duration = try #require(KeepWithin(spelled), "\(spelled)")
            #expect(duration == bare && !duration.usesBareM, "\(spelled)")
        }
        let minutes = try #require(KeepWithin("2h90min"))
        #expect(minutes.hours == 2 && minutes.minutes == 90 && minutes.months == 0 && minutes.description == "2h90min")
        #expect(minutes.cutoff(before: Self.date("202401021200")) == Self.date("202401020830"))
        #expect(KeepWithin("1minute") == KeepWithin("1min"))
        for invalid in ["3w", "1mi", "5mins5", "1 d", "min", "9223372036854775807m", "1000001y"] {
            #expect(KeepWithin(invalid) == nil, "\(invalid)")
        }
        // The largest taken: a cutoff far in the past, computed without overflow.
        let longest = try #require(KeepWithin("1000000y1000000mo1000000d1000000h1000000min"))
        #expect(longest.cutoff(before: Self.date("202401021200")) < Self.date("200001010000"))
    }

    @Test("archives dated in the future do not move --keep-within's reference")
    func futureDates() {
        let now = Self.date("202411211200")
        let dates = [Self.date("202411190000"), Self.date("202411210000"), Self.date("209901010000")]
        let kept = RetentionPolicy(within: KeepWithin("1d")).kept(dates, now: now)
        #expect(kept == [1, 2])
    }

    @Test("archive formats: the extension decides; an unknown one is refused unless the format is given")
    func archiveFormats() throws {
        #expect(ArchiveFormat(fileName: "x.TAR.GZ") == .tarGzip)
        #expect(ArchiveFormat(fileName: "x.tgz") == .tarGzip)
        #expect(ArchiveFormat(fileName: "x.tar") == .tar)
        #expect(ArchiveFormat(fileName: "x.tar.xz") == .tarXz)
        #expect(ArchiveFormat(fileName: "x.gz") == nil)
        #expect(try ArchiveFormat.resolve(explicit: nil, output: nil) == .tarZstd)
        #expect(try ArchiveFormat.resolve(explicit: .zip, output: nil) == .zip)
        #expect(try ArchiveFormat.resolve(explicit: .zip, output: "/b/x.bak") == .zip)
        #expect(try ArchiveFormat.resolve(explicit: nil, output: "/b/x.zip") == .zip)
        for (explicit, output) in [(ArchiveFormat.tarZstd, "/b/x.zip"), (nil, "/b/x.rar"), (nil, "/b/backup")] as [(ArchiveFormat?, String)] {
            do {
                _ = try ArchiveFormat.resolve(explicit: explicit, output: output)
                Issue.record("\(output) was accepted")
            } catch let error as DBToolError {
                #expect(error.status == .usage)
                if explicit == nil { #expect(error.message.contains(".tar.zst"), "the known extensions are named") }
            }
        }
    }

    @Test("archive names parse whatever the stem and format")
    func archiveNames() {
        #expect(ArchiveName("my-app-20261123T020000.000Z.tar.gz", extensions: ArchiveFormat.fileExtensions)?.stem == "my-app")
        #expect(ArchiveName("db-20261123T020000Z.zip", extensions: ArchiveFormat.fileExtensions)?.timestamp == "20261123020000000")
        #expect(ArchiveName("db-20261123T020000.000Z.gz", extensions: ArchiveFormat.fileExtensions) == nil)
        #expect(ArchiveName("20261123T020000.000Z.tar", extensions: ArchiveFormat.fileExtensions) == nil)
        #expect(ArchiveName("db.tar.zst", extensions: ArchiveFormat.fileExtensions) == nil)
    }
}
