import Foundation
import Testing

@testable import DBToolCore

@Suite("Archive entry names and manifests")
struct ArchiveUnpackingTests {
    @Test(
        "names are split into the top folder and the path inside it",
        arguments: [
            ("db/", "db", ""),
            ("db/db.sqlite", "db", "db.sqlite"),
            ("./db/snapshots/a.sqlite", "db", "snapshots/a.sqlite"),
            ("db//x", "db", "x"),
        ])
    func split(name: String, top: String, path: String) throws {
        let (foundTop, foundPath) = try ArchiveUnpacking.split(name, archive: "a.tar")
        #expect(foundTop == top)
        #expect(foundPath == path)
    }

    @Test(
        "names that could escape the destination are refused, naming the entry",
        arguments: [
            ("/etc/passwd", "an absolute path"),
            ("db/../../etc/passwd", "a `..` component"),
            ("..", "a `..` component"),
            ("./", "an empty path"),
        ])
    func refused(name: String, why: String) {
        #expect {
            try ArchiveUnpacking.split(name, archive: "a.tar")
        } throws: { error in
            let error = error as? DBToolError
            return error?.status == .dataError && error?.message.contains(why) == true && error?.message.contains(name) == true
        }
    }

    @Test("a manifest round-trips through JSON; a newer format is refused")
    func manifest() throws {
        var manifest = BackupManifest(
            dbtoolVersion: "0.3.0", sqliteVersion: "3.40.1", created: "2026-11-23T00:00:00Z", folder: "db", databaseFile: "db.sqlite",
            journalMode: "wal", pageSize: 4096, pageCount: 2, schemaVersion: 1, userVersion: 0,
            migrations: [BackupManifest.Migration(version: 1, name: "create", appliedAt: "2026-11-22 10:00:00.000")],
            files: [BackupManifest.File(path: "db.sqlite", size: 8192, sha256: String(repeating: "0", count: 64))])
        #expect(try BackupManifest.decode(manifest.encoded(), archive: "a.tar") == manifest)
        manifest.format = BackupManifest.currentFormat + 1
        #expect(throws: DBToolError.self) { try BackupManifest.decode(manifest.encoded(), archive: "a.tar") }
        #expect {
            try BackupManifest.decode(Data("{}".utf8), archive: "a.tar")
        } throws: { error in
            (error as? DBToolError)?.message == "the manifest of a.tar is not a dbtool backup manifest: format is missing"
        }
    }
}
