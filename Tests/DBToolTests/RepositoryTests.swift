import DatabaseKit
import Foundation
import Testing
import TestSupport

/// One suite, two backends: what `backup`, `backup list`, `backup verify`,
/// `restore`, retention and `backup prune` do with a local directory they
/// must do with S3-compatible storage (moto, on loopback), and the other way
/// round.
@Suite("Repositories: a directory and S3, one behaviour", .serialized)
struct RepositoryTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case directory, s3
        var testDescription: String { rawValue }
    }

    /// A repository of one backend, and what a test needs to plant and see
    /// entries in it behind dbtool's back.
    final class Store {
        let backend: Backend
        let scratch: TemporaryDirectory
        let server: ObjectStorageServer?
        /// The location dbtool is given: a directory, or `s3://backups/PREFIX/`.
        let location: String
        private let prefix: String

        init(_ backend: Backend, _ scratch: TemporaryDirectory, name: String = "repo") throws {
            self.backend = backend
            self.scratch = scratch
            prefix = name + "-" + UUID().uuidString.prefix(8) + "/"
            switch backend {
            case .directory:
                server = nil
                location = scratch.file(name)
                try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: false)
            case .s3:
                server = try ObjectStorageServer()
                location = "s3://backups/" + prefix
            }
        }

        var environment: [String: String] { server?.environment ?? [:] }

        func dbtool(_ arguments: [String]) throws -> ToolResult {
            try DBToolTests.dbtool(arguments, environment: environment)
        }

        /// The location of `name` as dbtool reports it.
        func location(of name: String) -> String { backend == .directory ? location + "/" + name : location + name }

        func put(_ name: String, _ data: Data) throws {
            switch backend {
            case .directory: try data.write(to: URL(fileURLWithPath: location + "/" + name))
            case .s3:
                let file = scratch.file("upload-\(UUID().uuidString)")
                try data.write(to: URL(fileURLWithPath: file))
                _ = try server?.python("s3.upload_file('\(file)', 'backups', '\(prefix + name)'); print('ok')")
            }
        }

        func get(_ name: String) throws -> Data? {
            switch backend {
            case .directory: return FileManager.default.contents(atPath: location + "/" + name)
            case .s3:
                let file = scratch.file("download-\(UUID().uuidString)")
                let found = try server?.python(
                    "import botocore\ntry:\n  s3.download_file('backups', '\(prefix + name)', '\(file)'); print('yes')\nexcept botocore.exceptions.ClientError:\n  print('no')")
                return found == "yes" ? FileManager.default.contents(atPath: file) : nil
            }
        }

        /// The names in the repository.
        func names() throws -> [String] {
            switch backend {
            case .directory: return try FileManager.default.contentsOfDirectory(atPath: location).sorted()
            case .s3: return try server?.keys(prefix).map { String($0.dropFirst(prefix.count)) }.sorted() ?? []
            }
        }

        /// Plants a copy of the trusted archive `source` under `name`, with
        /// its record rewritten for that name: what a backup taken then
        /// would have left.
        func plantTrusted(_ name: String, copying source: String) throws {
            let data = try #require(try get(source))
            try put(name, data)
            let recordData = try #require(try get(source + ".dbtool.json"))
            var record = try #require(try JSONSerialization.jsonObject(with: recordData) as? [String: Any])
            record["file"] = name
            try put(name + ".dbtool.json", try JSONSerialization.data(withJSONObject: record))
        }
    }

    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\(result.stderr)")
    }

    private func name(_ location: String) -> String { String(location.split(separator: "/").last ?? "") }

    @Test("every format: backup, list (records, no download), verify, restore, and latest", arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) throws {
        let scratch = TemporaryDirectory()
        let store = try Store(backend, scratch)
        let database = try scratch.makeDatabase()
        var archives: [String] = []
        for format in BackupCommandTests.formats {
            let destination = backend == .s3 ? "--to" : "--output-dir"
            let backup = try store.dbtool(["backup", "--database", database, destination, store.location, "--archive-format", format, "--format", "json"])
            #expect(backup.status == 0, "\(format): \(backup.stderr)")
            let archive = try #require(try json(backup)["archive"] as? String)
            #expect(archive.hasPrefix(store.location(of: "db-")) && archive.hasSuffix("." + format))
            archives.append(archive)
            #expect(try store.dbtool(["backup", "verify", archive]).status == 0)
            let restored = scratch.file("restored-\(format)")
            let restore = try store.dbtool(["restore", archive, restored, "-q"])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try accountTotals(restored) == (1000, 10))
            usleep(2_000)
        }
        let list = try json(try store.dbtool(["backup", "list", store.location, "--format", "json"]))
        let listed = try #require(list["archives"] as? [[String: Any]])
        #expect(listed.compactMap { $0["location"] as? String } == archives)
        #expect(listed.allSatisfy { $0["verified"] as? Bool == true && ($0["pageCount"] as? Int ?? 0) > 0 })
        #expect(listed.allSatisfy { ($0["database"] as? String)?.hasSuffix(database + "/db.sqlite") == true })
        #expect(list["latest"] as? String == archives.last)
        let latest = try store.dbtool(["backup", "verify", store.location(of: "latest"), "--format", "json"])
        #expect(try json(latest)["archive"] as? String == archives.last)
        let refused = try store.dbtool(["restore", store.location(of: "latest"), scratch.file("restored-zip")])
        #expect(refused.status == 73, "\(refused.stderr)")
    }

    @Test("junk named like an archive, a truncated copy, a future date: never counted, never latest, never deleted", arguments: Backend.allCases)
    func untrusted(_ backend: Backend) throws {
        let scratch = TemporaryDirectory()
        let store = try Store(backend, scratch)
        let database = try scratch.makeDatabase()
        let destination = backend == .s3 ? "--to" : "--output-dir"
        var good: [String] = []
        for _ in 0..<2 {
            let backup = try store.dbtool(["backup", "--database", database, destination, store.location, "--format", "json"])
            #expect(backup.status == 0, "\(backup.stderr)")
            good.append(name(try #require(try json(backup)["archive"] as? String)))
            usleep(2_000)
        }
        var generator = SystemRandomNumberGenerator()
        let junk = "db-" + String(good[1].dropFirst(3).prefix(13)) + "59.999Z.tar.zst"
        try store.put(junk, Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        // A truncated copy of a good archive, with the record of the whole one.
        try store.plantTrusted("db-20261101T000000.000Z.tar.zst", copying: good[0])
        try store.put("db-20261101T000000.000Z.tar.zst", try #require(try store.get(good[0])).prefix(100))
        // A good archive dated 2099: a clock set wrong.
        try store.plantTrusted("db-20991231T000000.000Z.tar.zst", copying: good[1])

        let junkVerify = try store.dbtool(["backup", "verify", store.location(of: junk)])
        #expect(junkVerify.status == 65, "\(junkVerify.stderr)")
        #expect(junkVerify.stderr.contains("the archive \(store.location(of: junk))") && !junkVerify.stderr.contains(" of "), "\(junkVerify.stderr)")
        let list = try json(try store.dbtool(["backup", "list", store.location, "--format", "json"]))
        let unverified = (list["archives"] as? [[String: Any]] ?? []).filter { $0["verified"] as? Bool == false }.compactMap { $0["location"] as? String }
        #expect(Set(unverified.map(name)) == [junk, "db-20261101T000000.000Z.tar.zst", "db-20991231T000000.000Z.tar.zst"])
        #expect(list["latest"] as? String == store.location(of: good[1]))

        let backup = try store.dbtool(["backup", "--database", database, destination, store.location, "--keep", "2", "--format", "json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        let report = try json(backup)
        let newest = name(try #require(report["archive"] as? String))
        #expect((report["deleted"] as? [String])?.map(name) == [good[0]])
        #expect((report["warnings"] as? [String] ?? []).count == 3)
        let names = try store.names()
        for kept in [good[1], newest, junk, "db-20261101T000000.000Z.tar.zst", "db-20991231T000000.000Z.tar.zst"] {
            #expect(names.contains(kept), "\(kept) was deleted")
        }
        let verify = try store.dbtool(["backup", "verify", store.location(of: "latest"), "--format", "json"])
        #expect(try json(verify)["archive"] as? String == store.location(of: newest))
        // The operator may ask for the untrusted ones to go.
        let prune = try store.dbtool(["backup", "prune", store.location, "--prune-unverified", "--format", "json"])
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(Set(try store.names().filter { !$0.hasSuffix(".json") }) == [good[1], newest])
    }

    @Test("retention on archives of made-up dates counts this database's only; --dry-run and backup prune agree", arguments: Backend.allCases)
    func retention(_ backend: Backend) throws {
        let scratch = TemporaryDirectory()
        let store = try Store(backend, scratch)
        let database = try scratch.makeDatabase()
        let destination = backend == .s3 ? "--to" : "--output-dir"
        let first = try store.dbtool(["backup", "--database", database, destination, store.location, "--format", "json"])
        let source = name(try #require(try json(first)["archive"] as? String))
        let old = [
            "db-20250101T020000.000Z.tar.zst", "db-20250615T020000.000Z.zip", "db-20260901T020000.000Z.tar.gz",
            "db-20261001T020000.000Z.tar.zst",
        ]
        for name in old { try store.plantTrusted(name, copying: source) }
        // Another database's archives, of the same name pattern, and newer.
        let other = try scratch.makeDatabase("other/db")
        let foreign = try store.dbtool(["backup", "--database", other, destination, store.location, "--format", "json"])
        let foreignName = name(try #require(try json(foreign)["archive"] as? String))
        try store.plantTrusted("db-20261002T000000.000Z.tar.zst", copying: foreignName)

        // Kept by --keep 3: the new archive, `source`, and 2026-10-01.
        let expected = ["db-20250101T020000.000Z.tar.zst", "db-20250615T020000.000Z.zip", "db-20260901T020000.000Z.tar.gz"]
        let dryRun = try store.dbtool(["backup", "--database", database, destination, store.location, "--dry-run", "--keep", "3", "--format", "json"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect((try json(dryRun)["wouldDelete"] as? [String] ?? []).map(name) == expected)
        let prunePlan = try store.dbtool(["backup", "prune", store.location, "--keep", "4", "--dry-run", "--format", "json"])
        #expect(prunePlan.status == 0, "\(prunePlan.stderr)")
        let plans = try json(prunePlan)["databases"] as? [[String: Any]] ?? []
        #expect(plans.count == 2, "one plan per database")
        let mine = plans.first { ($0["kept"] as? [String] ?? []).contains { $0.hasSuffix(source) } }
        #expect((mine?["wouldDelete"] as? [String] ?? []).map(name) == ["db-20250101T020000.000Z.tar.zst"])
        #expect(try store.names().count == 2 * (old.count + 3), "nothing was deleted by the dry runs")

        let backup = try store.dbtool(["backup", "--database", database, destination, store.location, "--keep", "3", "--format", "json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect((try json(backup)["deleted"] as? [String] ?? []).map(name) == expected)
        let names = try store.names()
        #expect(names.contains(foreignName) && names.contains("db-20261002T000000.000Z.tar.zst"), "another database's archives stay")
        for gone in expected { #expect(!names.contains(gone) && !names.contains(gone + ".dbtool.json"), "\(gone)") }
        #expect(names.contains(source) && names.contains("db-20261001T020000.000Z.tar.zst"))
    }

    @Test("the archive of a corrupt database is kept under a .corrupt. name, never latest; nothing is pruned", arguments: Backend.allCases)
    func corruptSource(_ backend: Backend) throws {
        let scratch = TemporaryDirectory()
        let store = try Store(backend, scratch)
        let database = try scratch.makeDatabase()
        let destination = backend == .s3 ? "--to" : "--output-dir"
        let good = try store.dbtool(["backup", "--database", database, destination, store.location, "--format", "json"])
        let goodName = name(try #require(try json(good)["archive"] as? String))
        #expect(try dbtool(["checkpoint", "--database", database, "--mode", "truncate", "-q"]).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: database + "/db.sqlite"))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xFF, count: 4096))
        try handle.close()
        let backup = try store.dbtool(["backup", "--database", database, destination, store.location, "--keep", "1"])
        #expect(backup.status == 65, "\(backup.stderr)")
        let names = try store.names()
        #expect(names.contains(goodName))
        #expect(names.filter { $0.contains(".corrupt.") }.count == 1, "\(names)")
        let list = try json(try store.dbtool(["backup", "list", store.location, "--format", "json"]))
        #expect(list["latest"] as? String == store.location(of: goodName))
    }

    @Test("backups taken while two processes commit restore to a constant total, with every commit made before each began", arguments: Backend.allCases)
    func liveWriters(_ backend: Backend) throws {
        let scratch = TemporaryDirectory()
        let store = try Store(backend, scratch)
        let database = try scratch.makeDatabase()
        let destination = backend == .s3 ? "--to" : "--output-dir"
        let path = database + "/db.sqlite"
        let stop = scratch.file("stop")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE ledger(seq INTEGER PRIMARY KEY, amount INT, payload BLOB)")
        }
        let writers = try (0..<2).map { _ in try startWorkload(["transfer", path, stop]) }
        let observer = try DatabaseQueue(path: path)
        func committed() throws -> Int {
            try observer.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM ledger") ?? 0 }
        }
        while try committed() < 20 && writers.allSatisfy(\.isRunning) { usleep(10_000) }
        var backups: [(archive: String, committedBefore: Int)] = []
        for index in 0..<trials(backend == .s3 ? 4 : 12) {
            let before = try committed()
            let format = BackupCommandTests.formats[index % BackupCommandTests.formats.count]
            let result = try store.dbtool([
                "backup", "--database", database, destination, store.location, "--archive-format", format, "--timeout", "30", "--format", "json",
            ])
            #expect(result.status == 0, "backup \(index): \(result.stderr)")
            backups.append((try #require(try json(result)["archive"] as? String), before))
        }
        let last = try committed()
        try Data().write(to: URL(fileURLWithPath: stop))
        for writer in writers {
            writer.waitUntilExit()
            #expect(writer.terminationStatus == 0, "a writer failed")
        }
        try observer.close()
        #expect(last > backups[0].committedBefore + 10, "the writers kept committing during the backups")
        for (index, backup) in backups.enumerated() {
            let restored = scratch.file("restored-\(index)")
            let result = try store.dbtool(["restore", backup.archive, restored, "-q"])
            #expect(result.status == 0, "restore \(index): \(result.stderr)")
            #expect(try accountTotals(restored).total == 1000, "restore \(index)")
            let seq = try DatabaseQueue(path: restored + "/db.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM ledger") ?? 0
            }
            #expect(seq >= backup.committedBefore, "restore \(index) lost commits: \(seq) < \(backup.committedBefore)")
        }
    }
}
