import DatabaseKit
import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// Compaction merges a level's files into one of the next level without
/// changing what a restore gives; retention deletes what a kept snapshot
/// covers; the restore plan crosses compacted ranges in few files.
@Suite("Replication: compaction and retention", .serialized)
struct CompactionTests {
    typealias Interop = LitestreamInteropTests

    /// Builds the database a plan gives, and returns its bytes.
    func build(_ store: Replica, _ target: RestorePlan.Target, in directory: TemporaryDirectory, name: String) throws
        -> (bytes: Data?, files: Int)
    {
        let staging = try DirectoryDescriptor.open(directory.path)
        defer { staging.close() }
        let result = try ReplicaRestore(store: store, target: target).build(into: staging, fileName: name)
        return (FileManager.default.contents(atPath: directory.file(name)), result.files)
    }

    @Test("merged levels 1 and 2 restore the same database in fewer files; Litestream reads them; retention keeps every restorable moment")
    func compactAndRetain() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("app.db")
        let replica = directory.file("replica")
        let app = try Interop.makeDatabase(path, rows: 200, value: "hex(randomblob(50))")
        let session = try ReplicationSession(database: path, outbox: replica)
        try session.startWithImage(after: 0)
        for round in 1...30 {
            try app.write { db in
                try db.execute(sql: "INSERT INTO t(v) SELECT hex(randomblob(80)) FROM t LIMIT 15")
                try db.execute(sql: "UPDATE t SET v = 'round \(round)' WHERE id = \(round)")
            }
            try session.sync()
            if round == 10 {
                // A snapshot as the maintenance lane writes it, from the state the session pins.
                let plan = try session.prepareImage()
                _ = try plan.write(into: replica) { false }
                plan.finish()
            }
        }
        let store = try Replica.at(replica, objectStore: ObjectStoreOptions())
        let scratch = TemporaryDirectory()
        let before = try build(store, .latest, in: TemporaryDirectory(), name: "before.db")
        var compaction = Compaction(store: store, scratch: scratch.path)
        let written = try compaction.run(force: true)
        #expect(written.map(\.level) == [1, 2, 3], "\(written)")
        #expect(try store.files(level: 1).count == 1)
        // More syncs: level 1 gets a second file that follows on.
        for _ in 1...3 {
            try app.write { db in try db.execute(sql: "INSERT INTO t(v) VALUES ('late')") }
            try session.sync()
        }
        _ = try compaction.compact(into: 1)
        let levelOne = try store.files(level: 1)
        #expect(levelOne.count == 2 && levelOne[1].name.minTXID == levelOne[0].name.maxTXID + 1, "\(levelOne)")

        let after = try build(store, .latest, in: TemporaryDirectory(), name: "after.db")
        try session.close()
        try app.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(after.bytes == FileManager.default.contents(atPath: path), "the compacted replica is not the database")
        #expect(after.files < before.files, "\(after.files) files after compaction, \(before.files) before")
        let latest = directory.file("latest.db")
        try Interop.run(["restore", "-o", latest, "file://\(replica)"])
        #expect(FileManager.default.contents(atPath: latest) == FileManager.default.contents(atPath: path), "Litestream reads it otherwise")

        // Retention: a window that ends after the snapshot of TXID 12 deletes
        // what it covers, and every later moment stays restorable.
        let snapshotTXID = try #require(try store.files(level: LTXFileName.snapshotLevel).map(\.name.maxTXID).max())
        let deleted = try compaction.enforceRetention(10, now: Date().addingTimeInterval(3600))
        #expect(!deleted.isEmpty && deleted.allSatisfy { $0.maxTXID <= snapshotTXID }, "\(deleted)")
        let retained = try build(store, .latest, in: TemporaryDirectory(), name: "retained.db")
        #expect(retained.bytes == FileManager.default.contents(atPath: path))
        let old = #expect(throws: DBToolError.self) { try build(store, .txid(snapshotTXID - 1), in: TemporaryDirectory(), name: "old.db") }
        #expect(old?.status == .noInput)
        try app.close()
    }
}
