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
    ]

    @Test("each rule, and their union, keeps what restic's semantics keep", arguments: cases)
    func rules(_ testCase: Case) {
        let dates = Self.stamps.map(Self.date)
        let kept = testCase.policy.kept(dates).map { Self.stamps[$0] }.sorted()
        #expect(kept == testCase.kept.sorted())
    }

    @Test("the newest archive is always kept; names of other series never expire")
    func newestAndOtherSeries() {
        let series = TimestampedName(stem: "db", fileExtension: "tar.zst", seriesExtensions: ["tar.zst", "zip"])
        let names = ["db-20240101T000000.000Z.tar.zst", "db-20240102T000000.000Z.zip", "other-20200101T000000.000Z.tar.zst", "notes.txt"]
        for policy in [RetentionPolicy(last: 1), RetentionPolicy(yearly: 1), RetentionPolicy(hourly: 1, weekly: 1)] {
            #expect(policy.expired(among: names, series: series) == ["db-20240101T000000.000Z.tar.zst"])
        }
        #expect(RetentionPolicy().expired(among: names, series: series).isEmpty)
    }

    @Test("archive names parse whatever the stem and format")
    func archiveNames() {
        #expect(ArchiveName("my-app-20261123T020000.000Z.tar.gz")?.stem == "my-app")
        #expect(ArchiveName("db-20261123T020000Z.zip")?.timestamp == "20261123020000000")
        #expect(ArchiveName("db-20261123T020000.000Z.gz") == nil)
        #expect(ArchiveName("20261123T020000.000Z.tar") == nil)
        #expect(ArchiveName("db.tar.zst") == nil)
    }
}
