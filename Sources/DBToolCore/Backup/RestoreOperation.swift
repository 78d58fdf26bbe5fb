import DatabaseKit
import Foundation

/// `dbtool restore ARCHIVE DIR`: the database directory of a backup, back
/// in DIR, checked, or nothing changed at all.
///
/// The archive is read whole and checked first (``ArchiveInspection``):
/// a malicious, truncated or damaged archive is refused before anything is
/// written. It is then extracted into a staging directory beside DIR, whose
/// database must pass `PRAGMA integrity_check`. Then, one of two ways:
///
/// - By default, the staging directory takes DIR's place by rename. With
///   `--force`, a non-empty DIR is first moved aside, brought back if the
///   last rename fails, and removed once the restore is complete. Files can
///   only be swapped under a database nobody uses: DIR's database is held
///   with a ``DatabaseExclusion`` across the swap, and a database in use is
///   refused (75), nothing changed.
/// - With `--live`, DIR's database is restored in place, through SQLite's
///   online backup API, in one write transaction of the live database: its
///   connections (other processes included) see the restored content from
///   their next transaction, and nothing they committed before is
///   corrupted. The archive's other files replace theirs one by one (by
///   rename); files of DIR that the archive does not hold are kept.
public struct RestoreOperation: Sendable {
    public var archive: String
    public var directory: String
    /// Replace a non-empty DIR.
    public var force = false
    /// Restore into DIR's database in place, while applications use it.
    public var live = false
    /// With ``live``: how long to wait for the database's write lock.
    public var timeout: TimeInterval = DatabaseHandle.defaultTimeout
    public var progress: (@Sendable (Int64, Int64) -> Void)?
    /// How to reach the object store of an `s3://` archive.
    public var objectStore = ObjectStoreOptions()
    /// The passphrase of an encrypted archive.
    public var passphrase: String?

    public init(archive: String, directory: String) {
        self.archive = archive
        self.directory = directory
    }

    /// What the restore did.
    public struct Report: Codable, Sendable, Equatable {
        public var archive: String
        public var directory: String
        public var database: String
        /// The backup's manifest.
        public var manifest: BackupManifest
        public var integrity: String
        /// True when DIR held data that was replaced (--force, --live).
        public var replaced: Bool
        /// True when the database was restored in place (--live).
        public var live: Bool
    }

    static let tempPrefix = ".dbtool-restore-"

    public func run() throws -> Report {
        let isObject = ObjectLocation.isObjectURL(self.archive)
        var archive = isObject ? self.archive : URL(fileURLWithPath: self.archive).standardizedFileURL.path
        let target = URL(fileURLWithPath: directory).standardizedFileURL.path
        let parent = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: target).lastPathComponent
        let hasContent = try checkTarget(target)

        // A local archive is inspected whole before anything is written; an
        // object is read once, inspected while it is extracted to staging.
        var inspection = isObject ? nil : try ArchiveInspection(archive: archive, passphrase: passphrase)
        if let inspection {
            let existingDatabase = target + "/" + inspection.manifest.databaseFile
            if DatabaseExclusion.regularFile(at: existingDatabase) != nil && !live {
                // Early, before the long work; checked again, and held, at the swap.
                try DatabaseExclusion(database: existingDatabase).release()
            }
        }

        try createMissingDirectories(parent)
        removeStaleTempFiles(in: parent, prefix: Self.tempPrefix)
        let staging = parent + "/" + tempName(prefix: Self.tempPrefix, for: name)
        defer { FileSystem.removeTree(staging) }
        do {
            try FileSystem.createDirectory(staging)
        } catch {
            throw DBToolError(
                .cantCreate, "can not create \(staging) to restore into: \(error.errno)", hint: "Check the permissions of \(parent).")
        }
        if let inspection {
            try ArchiveExtraction(inspection: inspection).run(into: staging) { done, total in progress?(done, total) }
        } else {
            let store = try ObjectStore(objectStore)
            let location = try ObjectArchives.resolve(ObjectLocation(self.archive), in: store)
            archive = location.description
            let source = try ObjectReader(store: store, location: location)
            let reader = try ArchiveReader(source: source, name: archive, passphrase: passphrase)
            let total = source.info.size
            inspection = try ArchiveInspection(archive: archive, reader: reader, extractingInto: staging) { done in
                progress?(min(done, total), total)
            }
        }
        guard let inspection else { throw DBToolError(.software, "the archive \(archive) was not inspected") }
        let existingDatabase = target + "/" + inspection.manifest.databaseFile
        let restoresInPlace = live && DatabaseExclusion.regularFile(at: existingDatabase) != nil
        let database = staging + "/" + inspection.manifest.databaseFile
        let integrity = try DatabaseCheck.run(database: database, archive: archive, foreignKeys: false)
        try Interruption.check()

        if restoresInPlace {
            try LiveRestore(staging: staging, target: target, databaseFile: inspection.manifest.databaseFile, timeout: timeout).run()
        } else {
            try swap(staging, into: target, parent: parent, name: name, database: existingDatabase)
        }
        return Report(
            archive: archive, directory: target, database: existingDatabase,
            manifest: inspection.manifest, integrity: integrity, replaced: hasContent, live: restoresInPlace)
    }

    /// Puts the staging directory in DIR's place, holding DIR's database (if
    /// any) so that no connection starts on it meanwhile; puts DIR back when
    /// a process opened the database during the swap.
    private func swap(_ staging: String, into target: String, parent: String, name: String, database: String) throws {
        let exclusion = DatabaseExclusion.regularFile(at: database) != nil ? try DatabaseExclusion(database: database) : nil
        defer { exclusion?.release() }
        let aside = parent + "/" + tempName(prefix: Self.tempPrefix, for: name + ".old")
        let exists = FileSystem.exists(target)
        if exists {
            do {
                try FileSystem.rename(target, to: aside)
            } catch {
                throw DBToolError(
                    .cantCreate, "can not move \(target) aside: \(error.errno)", hint: "Check the permissions of \(parent).")
            }
        }
        do {
            try FileSystem.rename(staging, to: target)
        } catch {
            let reason = error.errno
            // Put the old content back; if even that fails, say where it is.
            if exists && (try? FileSystem.rename(aside, to: target)) == nil {
                throw DBToolError(
                    .cantCreate, "can not move the restored directory to \(target): \(reason); its old content is in \(aside)",
                    hint: "Move it back with: mv '\(aside)' '\(target)'")
            }
            throw DBToolError(
                .cantCreate, "can not move the restored directory to \(target): \(reason)", hint: "Check the permissions of \(parent).")
        }
        // A process that opened the old database before the swap completed
        // would write into files about to be deleted: undo the swap.
        if let exclusion, let users = exclusion.latecomers() {
            if (try? FileSystem.rename(target, to: staging)) != nil && (try? FileSystem.rename(aside, to: target)) != nil {
                throw DatabaseExclusion.inUse(database, by: users)
            }
            throw DBToolError(
                .cantCreate, "the database \(database) was opened during the restore (\(users)), and its old directory could not be put back: it is in \(aside)",
                hint: "Stop the application, then move it back with: mv '\(aside)' '\(target)'")
        }
        // The restore is complete from here: the old content is no longer needed.
        if exists { FileSystem.removeTree(aside) }
        try syncDirectory(of: target)
    }

    /// Whether DIR holds something; throws when it may not be replaced.
    private func checkTarget(_ target: String) throws -> Bool {
        guard let info = try FileSystem.status(target, followingLinks: false) else { return false }
        guard info.kind == .directory else {
            throw DBToolError(.cantCreate, "\(target) exists and is not a directory", hint: "Restore into a directory.")
        }
        let content = (try? FileSystem.contentsOfDirectory(target)) ?? []
        if !content.isEmpty && !force && !live {
            throw DBToolError(
                .cantCreate, "\(target) is not empty (\(content.count) entries)",
                hint:
                    "Restore into a new directory, or pass --force to replace its content (it is kept if the restore fails), or --live to restore into a database applications are using.")
        }
        return !content.isEmpty
    }
}
