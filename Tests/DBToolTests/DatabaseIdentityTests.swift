import DBToolCore
import DatabaseKit
import Foundation
import Testing
import TestSupport

/// A database's identity, end to end: created with the database, kept by
/// backups and restores, the same whatever the host name (a container gets
/// a new one each run: `unshare -u` here), and different for two databases
/// at the same path.
@Suite("A database's identity: backup series across hosts and restores")
struct DatabaseIdentityTests {
    let scratch = TemporaryDirectory()

    /// Runs dbtool in a UTS namespace of its own whose host name is `host`.
    func onHost(_ host: String, _ arguments: [String]) throws -> ToolResult {
        try dbtool(
            ["-u", "/bin/sh", "-c", "hostname \"$1\" && shift && exec \"$@\"", "sh", host, toolURL.path] + arguments,
            executable: "/usr/bin/unshare")
    }

    /// The trusted archives of a directory of backups, with their series.
    func archives(_ directory: String) throws -> [(name: String, series: String)] {
        let list = try dbtool(["backup", "list", directory, "--format", "json"])
        try #require(list.status == 0, "\(list.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        return (json["archives"] as? [[String: Any]] ?? []).compactMap { archive in
            guard archive["verified"] as? Bool == true, let location = archive["location"] as? String else { return nil }
            return (URL(fileURLWithPath: location).lastPathComponent, archive["series"] as? String ?? "")
        }
    }

    @Test("a new host name every run (a container): one series, --keep 2 prunes, latest restores")
    func hostNameChanges() throws {
        let probe = try onHost("probe", ["--version"])
        try #require(probe.status == 0, "unshare -u is not permitted here: \(probe.stderr)")
        let database = try scratch.makeDatabase()
        let backups = scratch.file("backups")
        for run in 0..<4 {
            let backup = try onHost("container-\(run)", ["backup", "--database", database, "--output-dir", backups, "--keep", "2"])
            #expect(backup.status == 0, "run \(run): \(backup.stderr)")
            Thread.sleep(forTimeInterval: 0.01)
        }
        let kept = try archives(backups)
        #expect(kept.count == 2, "\(kept)")
        #expect(Set(kept.map(\.series)).count == 1, "\(kept)")
        let restored = scratch.file("restored")
        let restore = try onHost("another", ["restore", backups + "/latest", restored])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try accountTotals(restored) == (1000, 10))
    }

    @Test("restored onto a new machine, the database keeps its series: its next backup prunes the old ones")
    func restoreOntoNewMachine() throws {
        let probe = try onHost("probe", ["--version"])
        try #require(probe.status == 0, "unshare -u is not permitted here: \(probe.stderr)")
        let database = try scratch.makeDatabase()
        let backups = scratch.file("backups")
        #expect(try onHost("old-server", ["backup", "--database", database, "--output-dir", backups]).status == 0)
        let moved = scratch.file("elsewhere/db")
        #expect(try onHost("new-server", ["restore", backups + "/latest", moved]).status == 0)
        Thread.sleep(forTimeInterval: 0.01)
        let backup = try onHost("new-server", ["backup", "--database", moved, "--output-dir", backups, "--keep", "1", "--format", "json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try archives(backups).count == 1, "the first archive was not recognised as the same database's")
    }

    @Test("two databases at the same path, one after the other: never one series")
    func samePathTwoDatabases() throws {
        let database = scratch.file("db")
        let backups = scratch.file("backups")
        #expect(try dbtool(["init", database, "-q"]).status == 0)
        #expect(try dbtool(["backup", "--database", database, "--output-dir", backups]).status == 0)
        try FileManager.default.removeItem(atPath: database)
        #expect(try dbtool(["init", database, "-q"]).status == 0)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try dbtool(["backup", "--database", database, "--output-dir", backups, "--keep", "1"]).status == 0)
        let kept = try archives(backups)
        #expect(kept.count == 2 && Set(kept.map(\.series)).count == 2, "the new database pruned the old one's archive: \(kept)")
    }

    @Test("a database without an identity gets one with its first backup, in the archive too; a failed backup leaves none")
    func olderDatabase() throws {
        let database = scratch.file("old")
        try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try dbQueue.close()
        let failed = try dbtool(["backup", "--database", database, "--output", scratch.file("missing/a.tar.zst")])
        #expect(failed.status != 0)
        #expect(!FileManager.default.fileExists(atPath: database + "/.db.sqlite.dbtool-id"), "a failed backup left an identity")
        let archive = scratch.file("a.tar.zst")
        #expect(try dbtool(["backup", "--database", database, "--output", archive]).status == 0)
        let identity = try String(contentsOfFile: database + "/.db.sqlite.dbtool-id", encoding: .utf8)
        #expect(identity.count == 33, "\(identity)")
        let restored = scratch.file("restored")
        #expect(try dbtool(["restore", archive, restored]).status == 0)
        #expect(try String(contentsOfFile: restored + "/.db.sqlite.dbtool-id", encoding: .utf8) == identity)
    }
}
