import DatabaseKit
import Foundation

/// `dbtool backup verify ARCHIVE`: the archive reads whole, matches its
/// manifest, and its database passes `integrity_check` and
/// `foreign_key_check` once extracted to a temp directory (removed after).
public struct VerifyOperation: Sendable {
    /// A path, or `s3://BUCKET/KEY` (`.../latest`: the newest under the prefix).
    public var archive: String
    /// Where to extract; the system temp directory by default.
    public var temporaryDirectory: String?
    /// How to reach the object store of an `s3://` archive.
    public var objectStore = ObjectStoreOptions()
    /// The passphrase of an encrypted archive.
    public var passphrase: String?

    public init(archive: String) {
        self.archive = archive
    }

    /// The prefix of the temp directories verify extracts into.
    static let tempPrefix = ".dbtool-verify-"

    /// What verify found: only reported when everything is right.
    public struct Report: Codable, Sendable, Equatable {
        public var archive: String
        public var manifest: BackupManifest
        public var integrity: String
    }

    public func run() throws -> Report {
        let parent = temporaryDirectory ?? NSTemporaryDirectory()
        removeStaleTempFiles(in: parent, prefix: Self.tempPrefix)
        let scratch = parent + "/" + tempName(prefix: Self.tempPrefix, for: UUID().uuidString)
        defer { FileSystem.removeTree(scratch) }
        do {
            try FileSystem.createDirectory(scratch)
        } catch {
            throw error.reported(.cantCreate, hint: "Set TMPDIR to a writable directory.")
        }
        let archive: String
        let inspection: ArchiveInspection
        if ObjectLocation.isObjectURL(self.archive) {
            // Read once, streamed: inspected and extracted in the same pass.
            let store = try ObjectStore(objectStore)
            let location = try ObjectArchives.resolve(ObjectLocation(self.archive), in: store)
            archive = location.description
            let reader = try ArchiveReader(source: ObjectReader(store: store, location: location), name: archive, passphrase: passphrase)
            inspection = try ArchiveInspection(archive: archive, reader: reader, extractingInto: scratch)
        } else {
            archive = URL(fileURLWithPath: self.archive).standardizedFileURL.path
            inspection = try ArchiveInspection(archive: archive, passphrase: passphrase)
            try ArchiveExtraction(inspection: inspection).run(into: scratch)
        }
        let integrity = try DatabaseCheck.run(
            database: scratch + "/" + inspection.manifest.databaseFile, archive: archive, foreignKeys: true)
        return Report(archive: archive, manifest: inspection.manifest, integrity: integrity)
    }
}
