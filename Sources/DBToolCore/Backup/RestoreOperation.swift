import DatabaseKit
import Foundation

/// `dbtool restore ARCHIVE DIR`: the database directory of a backup, back
/// in DIR, checked, or nothing changed at all.
///
/// The archive is read whole and checked first (``ArchiveInspection``):
/// a malicious, truncated or damaged archive is refused before anything is
/// written. It is then extracted into a staging directory beside DIR, whose
/// database must pass `PRAGMA integrity_check`; only then does the staging
/// directory take DIR's place by rename. With `--force`, a non-empty DIR is
/// first moved aside, brought back if the last rename fails, and removed
/// once the restore is complete.
public struct RestoreOperation: Sendable {
    public var archive: String
    public var directory: String
    /// Replace a non-empty DIR.
    public var force = false
    public var progress: (@Sendable (Int64, Int64) -> Void)?

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
        /// True when DIR held data that was replaced (--force).
        public var replaced: Bool
    }

    static let tempPrefix = ".dbtool-restore-"

    public func run() throws -> Report {
        let archive = URL(fileURLWithPath: self.archive).standardizedFileURL.path
        let target = URL(fileURLWithPath: directory).standardizedFileURL.path
        let parent = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: target).lastPathComponent
        let hasContent = try checkTarget(target)

        let inspection = try ArchiveInspection(archive: archive)

        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        removeStaleTempFiles(in: parent, prefix: Self.tempPrefix)
        let staging = parent + "/" + tempName(prefix: Self.tempPrefix, for: name)
        let aside = parent + "/" + tempName(prefix: Self.tempPrefix, for: name + ".old")
        defer { try? FileManager.default.removeItem(atPath: staging) }
        guard mkdir(staging, 0o700) == 0 else {
            throw DBToolError(
                .cantCreate, "can not create \(staging) to restore into: \(systemError())", hint: "Check the permissions of \(parent).")
        }
        try ArchiveExtraction(inspection: inspection).run(into: staging) { done, total in progress?(done, total) }
        let database = staging + "/" + inspection.manifest.databaseFile
        let integrity = try DatabaseCheck.run(database: database, archive: archive, foreignKeys: false)
        try Interruption.check()

        let exists = FileManager.default.fileExists(atPath: target)
        if exists {
            guard rename(target, aside) == 0 else {
                throw DBToolError(
                    .cantCreate, "can not move \(target) aside: \(systemError())", hint: "Check the permissions of \(parent).")
            }
        }
        guard rename(staging, target) == 0 else {
            let reason = systemError()
            // Put the old content back; if even that fails, say where it is.
            if exists && rename(aside, target) != 0 {
                throw DBToolError(
                    .cantCreate, "can not move the restored directory to \(target): \(reason); its old content is in \(aside)",
                    hint: "Move it back with: mv '\(aside)' '\(target)'")
            }
            throw DBToolError(
                .cantCreate, "can not move the restored directory to \(target): \(reason)", hint: "Check the permissions of \(parent).")
        }
        // The restore is complete from here: the old content is no longer needed.
        if exists { try? FileManager.default.removeItem(atPath: aside) }
        try fsyncPath(parent)
        return Report(
            archive: archive, directory: target, database: target + "/" + inspection.manifest.databaseFile,
            manifest: inspection.manifest, integrity: integrity, replaced: hasContent)
    }

    /// Whether DIR holds something; throws when it may not be replaced.
    private func checkTarget(_ target: String) throws -> Bool {
        var info = stat()
        guard lstat(target, &info) == 0 else { return false }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw DBToolError(.cantCreate, "\(target) exists and is not a directory", hint: "Restore into a directory.")
        }
        let content = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []
        if !content.isEmpty && !force {
            throw DBToolError(
                .cantCreate, "\(target) is not empty (\(content.count) entries)",
                hint: "Restore into a new directory, or pass --force to replace its content (it is kept if the restore fails).")
        }
        return !content.isEmpty
    }
}
