import DatabaseKit
import FoundationEssentials

/// `dbtool backup verify ARCHIVE`: the archive reads whole, matches its
/// manifest, and its database passes `integrity_check` and
/// `foreign_key_check` once extracted to a temp directory (removed after).
///
/// The archive is read once (`ArchiveUnpacking`), from a file, a pipe or
/// an object. The scratch copy is private (0700, files 0600, whatever the
/// archive says) and needs no durability: nothing is synced.
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
        let opened = try OpenedArchive.open(archive, objectStore: objectStore, extensions: ArchiveFormat.fileExtensions)
        let parentPath = temporaryDirectory ?? SystemProcess.temporaryDirectory
        removeStaleTempFiles(in: parentPath, prefix: Self.tempPrefix)
        let parent: DirectoryDescriptor
        let scratchName = tempName(prefix: Self.tempPrefix, for: UUID().uuidString)
        do {
            parent = try DirectoryDescriptor.open(parentPath)
            try parent.createDirectory(scratchName)
        } catch {
            throw error.reported(.cantCreate, hint: "Set TMPDIR to a writable directory.")
        }
        defer {
            parent.removeTree(scratchName)
            parent.close()
        }
        let scratch = try parent.openDirectory(scratchName)
        defer { scratch.close() }
        let reader = try ArchiveReader(source: opened.source, name: opened.name, passphrase: passphrase)
        let unpacking = try ArchiveUnpacking(
            archive: opened.name, reader: reader, into: scratch, options: .init(appliesModes: false, isDurable: false))
        let integrity = try DatabaseCheck.run(
            database: scratch.path(of: unpacking.manifest.databaseFile), archive: opened.name, foreignKeys: true)
        return Report(archive: opened.name, manifest: unpacking.manifest, integrity: integrity)
    }
}
