import DBToolCore
import DatabaseKit
import Foundation
import TestSupport
import Testing

/// Commands over several databases (`--database` repeated or a glob, `init
/// DIR...`): one report, a folder per database for what they write, the
/// highest status met, resumable.
@Suite("dbtool over a fleet of databases")
struct FleetTests {
    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    /// `count` tenant directories `tenants/tNN/db`, initialized by one `init`.
    private func makeTenants(_ scratch: TemporaryDirectory, count: Int) throws -> [String] {
        let tenants = (0..<count).map { scratch.file("tenants/t\(String(format: "%02d", $0))/db") }
        try FileManager.default.createDirectory(atPath: scratch.file("tenants"), withIntermediateDirectories: false)
        let result = try dbtool(["init"] + tenants + ["--jobs", "3", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result)
        #expect(report["total"] as? Int == count && report["failed"] as? Int == 0)
        return tenants
    }

    @Test("--config names the fleet: backup keeps each database's retention of the dbtool section, check writes each one's metrics file")
    func configuredFleet() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 2)
        let file = scratch.file("litestream.yml")
        try """
        dbtool:
          keep-last: 1
        dbs:
          - path: \(tenants[0])
          - path: \(tenants[1])
            dbtool:
              keep-last: 3
              metrics-file: \(scratch.file("t01.prom"))
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let backups = scratch.file("backups")
        for _ in 0..<4 {
            let backup = try dbtool(["backup", "--config", file, "--output-dir", backups, "--quiet"])
            #expect(backup.status == 0, "\(backup.stderr)")
            Thread.sleep(forTimeInterval: 1.1)  // archive names carry the second
        }
        // A folder per database (named after its path: t00's sorts first).
        let kept = try FileManager.default.contentsOfDirectory(atPath: backups).sorted().map { folder in
            try FileManager.default.contentsOfDirectory(atPath: backups + "/" + folder).filter { $0.hasSuffix(".tar.zst") }.count
        }
        #expect(kept == [1, 3], "\(kept)")
        let check = try dbtool(["check", "--config", file, "--format", "json"])
        let checked = try json(check)
        #expect(check.status == 0 && checked["total"] as? Int == 2, "\(check.stdout)\(check.stderr)")
        #expect((try? String(contentsOfFile: scratch.file("t01.prom"), encoding: .utf8))?.contains("command=\"check\"") == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("t00.prom")))
        let both = try dbtool(["check", "--config", file, "--database", tenants[0]])
        #expect(both.status == 64 && both.stderr.contains("--config"), "\(both.stderr)")
        let single = try dbtool(["exec", "--config", file, "SELECT 1"])
        #expect(single.status == 64 && single.stderr.contains("names several"), "\(single.stderr)")
    }

    @Test("migrate over a glob: a broken database fails alone (65), the others migrate; a second run applies only what is missing")
    func migrateResumable() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 6)
        let (_, migrations) = try makeMigrationProject(scratch)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: tenants[2] + "/db.sqlite"))
        let glob = scratch.file("tenants") + "/*/db"
        let first = try dbtool(["migrate", "--database", glob, "--migrations", migrations, "--jobs", "2", "--format", "json"])
        #expect(first.status == 65, "\(first.stderr)")
        let report = try json(first)
        let entries = try #require(report["databases"] as? [[String: Any]])
        #expect(entries.count == 6 && report["failed"] as? Int == 1 && report["status"] as? Int == 65)
        #expect(entries[2]["status"] as? Int == 65 && (entries[2]["error"] as? [String: Any])?["message"] as? String != nil)
        for (index, entry) in entries.enumerated() where index != 2 {
            #expect(((entry["report"] as? [String: Any])?["steps"] as? [Any])?.count == 5, "\(entry)")
        }

        // The broken one replaced by a fresh database: only it migrates.
        try FileManager.default.removeItem(atPath: tenants[2] + "/db.sqlite")
        #expect(try dbtool(["init", tenants[2], "--quiet"]).status == 0)
        let second = try dbtool(["migrate", "--database", glob, "--migrations", migrations, "--format", "json"])
        #expect(second.status == 0, "\(second.stderr)")
        let steps = try #require(try json(second)["databases"] as? [[String: Any]]).map {
            (($0["report"] as? [String: Any])?["steps"] as? [Any])?.count
        }
        #expect(steps == [0, 0, 5, 0, 0, 0])
        for tenant in tenants {
            #expect(
                try DatabaseQueue(path: tenant + "/db.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") } == 3)
        }
    }

    @Test("a damaged and a locked tenant under --quiet: each error on stderr, a closing line naming both, 65 outranks 75")
    func failuresSpeakUp() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 3)
        let (_, migrations) = try makeMigrationProject(scratch)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: tenants[0] + "/db.sqlite"))
        // Another process holds tenant 1's write lock past --timeout.
        let signals = NSTemporaryDirectory() + "lock-holder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: signals) }
        let holder = try startWorkload(["hold-write-lock", tenants[1] + "/db.sqlite", signals])
        defer {
            _ = FileManager.default.createFile(atPath: signals + "/release", contents: nil)
            holder.waitUntilExit()
        }
        #expect(waitUntil { FileManager.default.fileExists(atPath: signals + "/held") })

        let glob = scratch.file("tenants") + "/*/db"
        let result = try dbtool(["migrate", "--database", glob, "--migrations", migrations, "--timeout", "1", "--quiet"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let (damaged, busy) = (tenants[0] + "/db.sqlite", tenants[1] + "/db.sqlite")
        #expect(lines.contains { $0.hasPrefix("dbtool: error: \(damaged):") }, "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("dbtool: error: \(busy):") }, "\(result.stderr)")
        #expect(lines.last == "dbtool: migrate: 2 of 3 database(s) failed (exit 65): \(damaged), \(busy)", "\(result.stderr)")
        // The locked one alone: 75, retry later.
        let locked = try dbtool([
            "migrate", "--database", tenants[1], "--database", tenants[2], "--migrations", migrations, "--timeout", "1", "--quiet",
        ])
        #expect(locked.status == 75, "\(locked.stderr)")
    }

    @Test("--fail-fast stops at the first failure; the databases not started are reported skipped")
    func failFast() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 4)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: tenants[0] + "/db.sqlite"))
        let result = try dbtool(["check"] + tenants.flatMap { ["--database", $0] } + ["--jobs", "1", "--fail-fast", "--format", "json"])
        #expect(result.status == 65)
        let report = try json(result)
        #expect(report["skipped"] as? Int == 3 && report["failed"] as? Int == 1, "\(report)")
        let text = try dbtool(["check"] + tenants.flatMap { ["--database", $0] } + ["--jobs", "1", "--fail-fast"])
        #expect(
            text.stdout.contains("skipped (--fail-fast)")
                && text.stdout.contains("4 database(s): 0 succeeded, 1 failed, 3 skipped (exit 65)."))
    }

    @Test("backup and snapshot over a fleet: a folder per database, retention per database; metrics of each in one file")
    func backupFleet() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 3)
        let backups = scratch.file("backups")
        let metrics = scratch.file("dbtool.prom")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        for _ in 0..<2 {
            let result = try dbtool([
                "backup", "--database", scratch.file("tenants") + "/*/db", "--output-dir", backups, "--keep", "1", "--metrics-file",
                metrics,
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: backups).sorted()
        let expected = try tenants.map { try DatabaseLocation(path: $0).fleetName }.sorted()
        #expect(folders == expected, "\(folders)")
        for folder in folders {
            let archives = try FileManager.default.contentsOfDirectory(atPath: backups + "/" + folder).filter { $0.hasSuffix(".tar.zst") }
            #expect(archives.count == 1, "\(folder): \(archives)")
        }
        let samples = try String(contentsOfFile: metrics, encoding: .utf8).split(separator: "\n").filter {
            $0.hasPrefix("dbtool_last_run_exit_status{command=\"backup\"")
        }
        #expect(samples.count == 3, "\(samples)")

        let snapshots = scratch.file("snapshots")
        try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: false)
        let snapshot = try dbtool(["snapshot"] + tenants.flatMap { ["--database", $0] } + ["--output-dir", snapshots])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: snapshots).count == 3)
    }

    @Test("a glob that matches nothing is 66; a command of one database given several is 64")
    func usage() throws {
        let scratch = TemporaryDirectory()
        let tenants = try makeTenants(scratch, count: 2)
        let none = try dbtool(["check", "--database", scratch.file("nowhere") + "/*/db"])
        #expect(none.status == 66 && none.stderr.contains("no database matches"), "\(none.stderr)")
        let exec = try dbtool(["exec", "--database", tenants[0], "--database", tenants[1], "SELECT 1"])
        #expect(exec.status == 64 && exec.stderr.contains("one database"), "\(exec.stderr)")
    }

    @Test("folders of a fleet never collide: /x/a-b/db and /x/a/b/db each keep their own; a database deep in the tree fits")
    func distinctFolders() throws {
        let scratch = TemporaryDirectory()
        let deep = scratch.file((0..<6).map { _ in String(repeating: "d", count: 40) }.joined(separator: "/")) + "/db"
        let databases = [scratch.file("x/a-b/db"), scratch.file("x/a/b/db"), deep]
        #expect(try dbtool(["init"] + databases + ["-q"]).status == 0)
        let backups = scratch.file("backups")
        let result = try dbtool(["backup"] + databases.flatMap { ["--database", $0] } + ["--output-dir", backups, "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: backups)
        #expect(Set(folders).count == 3, "\(folders)")
        #expect(folders.allSatisfy { $0.utf8.count <= 213 }, "\(folders)")
        for database in databases {
            let folder = backups + "/" + (try DatabaseLocation(path: database).fleetName)
            let restored = scratch.file("restored-\(UUID().uuidString)")
            let restore = try dbtool(["restore", folder + "/latest", restored])
            #expect(restore.status == 0, "\(database): \(restore.stderr)")
        }
    }
}
