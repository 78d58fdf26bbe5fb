import Foundation
import Testing
import TestSupport

/// `backup prune` against the reference: the keep sets of Debian's restic
/// (`restic forget --dry-run --json`) for the same dates and rules.
@Suite("Retention agrees with restic's forget", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/restic")))
struct ResticRetentionTests {
    /// Archive dates, as restic takes them (UTC).
    static let dates = [
        "2023-01-15 02:00:00", "2023-12-31 02:00:00", "2024-01-01 02:00:00", "2024-02-29 12:00:00", "2024-03-31 12:00:00",
        "2024-06-30 02:00:00", "2024-10-01 02:00:00", "2024-10-31 02:00:00", "2024-11-01 02:00:00", "2024-11-18 02:00:00",
        "2024-11-19 02:00:00", "2024-11-20 02:00:00", "2024-11-20 09:00:00", "2024-11-20 15:00:00", "2024-11-21 10:00:00",
        "2024-11-21 11:00:00",
    ]

    static let policies: [[String]] = [
        ["--keep-last", "3"], ["--keep-hourly", "2"], ["--keep-daily", "3"], ["--keep-weekly", "3"], ["--keep-monthly", "4"],
        ["--keep-yearly", "5"], ["--keep-within", "1d"], ["--keep-within", "26h"], ["--keep-within", "27h"], ["--keep-within", "1m"],
        ["--keep-within", "1y8m"], ["--keep-daily", "2", "--keep-monthly", "2", "--keep-last", "1"],
        ["--keep-weekly", "2", "--keep-within", "3d"],
    ]

    /// restic's keep set for `policy`, as archive names of dbtool.
    private func resticKeeps(_ policy: [String], repository: String, environment: [String: String]) throws -> Set<String> {
        let result = try run("/usr/bin/restic", ["forget", "--dry-run", "--json"] + policy, environment: environment)
        try #require(result.status == 0, "\(result.stderr)")
        let groups = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let kept = (groups.first?["keep"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? String }
        return Set(kept.map { Self.name(ofISO: $0) })
    }

    /// `db-yyyyMMddTHHmmss.000Z.tar.zst` of an ISO 8601 time.
    private static func name(ofISO time: String) -> String {
        let digits = time.filter(\.isNumber)
        return "db-" + digits.prefix(8) + "T" + digits.dropFirst(8).prefix(6) + ".000Z.tar.zst"
    }

    @Test("every rule, and unions of rules, keep what restic 0.14 keeps")
    func sameKeepSets() throws {
        let scratch = TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["RESTIC_PASSWORD"] = "test"
        environment["RESTIC_REPOSITORY"] = scratch.file("restic")
        environment["TZ"] = "UTC"
        try #require(try run("/usr/bin/restic", ["init", "-q"], environment: environment).status == 0)
        let file = scratch.file("data")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for date in Self.dates {
            let backup = try run("/usr/bin/restic", ["backup", "-q", "--host", "h", "--time", date, file], environment: environment)
            try #require(backup.status == 0, "\(backup.stderr)")
        }

        // The same dates as trusted archives of one database.
        let database = try scratch.makeDatabase()
        let repository = scratch.file("archives")
        let first = try dbtool(["backup", "--database", database, "--output-dir", repository, "--format", "json"])
        let source = try #require((try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])?["archive"] as? String)
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: source + ".dbtool.json"))) as? [String: Any])
        try FileManager.default.removeItem(atPath: source)
        try FileManager.default.removeItem(atPath: source + ".dbtool.json")
        for date in Self.dates {
            let name = Self.name(ofISO: date)
            try data.write(to: URL(fileURLWithPath: repository + "/" + name))
            record["file"] = name
            try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: repository + "/" + name + ".dbtool.json"))
        }

        for policy in Self.policies {
            let expected = try resticKeeps(policy, repository: scratch.file("restic"), environment: environment)
            let rules = policy.map { $0 == "--keep-last" ? "--keep" : $0 }
            let prune = try dbtool(["backup", "prune", repository, "--dry-run", "--format", "json"] + rules)
            #expect(prune.status == 0, "\(policy): \(prune.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(prune.stdout.utf8)) as? [String: Any])
            let kept = ((report["databases"] as? [[String: Any]])?.first?["kept"] as? [String] ?? []).map { String($0.split(separator: "/").last ?? "") }
            #expect(Set(kept) == expected, "\(policy.joined(separator: " ")): dbtool keeps \(kept.sorted()), restic \(expected.sorted())")
        }
    }
}
