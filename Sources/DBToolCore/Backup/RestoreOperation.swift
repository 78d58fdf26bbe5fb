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
        do {
            try publish(staging, as: target, what: "the restored directory")
        } catch {
            if exists { rename(aside, target) }
            throw error
        }
        if exists { try? FileManager.default.removeItem(atPath: aside) }
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

/// `dbtool backup verify ARCHIVE`: the archive reads whole, matches its
/// manifest, and its database passes `integrity_check` and
/// `foreign_key_check` once extracted to a temp directory (removed after).
public struct VerifyOperation: Sendable {
    public var archive: String
    /// Where to extract; the system temp directory by default.
    public var temporaryDirectory: String?

    public init(archive: String) {
        self.archive = archive
    }

    /// What verify found: only reported when everything is right.
    public struct Report: Codable, Sendable, Equatable {
        public var archive: String
        public var manifest: BackupManifest
        public var integrity: String
    }

    public func run() throws -> Report {
        let archive = URL(fileURLWithPath: self.archive).standardizedFileURL.path
        let inspection = try ArchiveInspection(archive: archive)
        let parent = temporaryDirectory ?? NSTemporaryDirectory()
        let scratch = parent + "/" + tempName(prefix: ".dbtool-verify-", for: UUID().uuidString)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard mkdir(scratch, 0o700) == 0 else {
            throw DBToolError(
                .cantCreate, "can not create the temp directory \(scratch): \(systemError())", hint: "Set TMPDIR to a writable directory.")
        }
        try ArchiveExtraction(inspection: inspection).run(into: scratch)
        let integrity = try DatabaseCheck.run(
            database: scratch + "/" + inspection.manifest.databaseFile, archive: archive, foreignKeys: true)
        return Report(archive: archive, manifest: inspection.manifest, integrity: integrity)
    }
}

/// The checks of a restored database.
enum DatabaseCheck {
    /// Opens the database (recovering its WAL), and runs `integrity_check`,
    /// and `foreign_key_check` if asked. Returns "ok" or throws 65.
    static func run(database: String, archive: String, foreignKeys: Bool) throws -> String {
        do {
            let queue = try DatabaseQueue(path: database)
            defer { try? queue.close() }
            return try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw DBToolError(
                        .dataError,
                        "the database in \(archive) fails PRAGMA integrity_check: \(integrity.prefix(3).joined(separator: "; "))",
                        hint: "Use another backup.")
                }
                if foreignKeys {
                    let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    if let first = violations.first {
                        throw DBToolError(
                            .dataError,
                            "the database in \(archive) fails PRAGMA foreign_key_check: \(violations.count) violation(s), the first in table \(first[0] as String? ?? "?")",
                            hint: "Use another backup, or repair the rows after restoring it.")
                    }
                }
                return "ok"
            }
        } catch let error as DatabaseError {
            throw DBToolError(
                .dataError, "the database in \(archive) can not be read: \(error.message ?? "\(error.resultCode)")",
                hint: "The archive does not hold a valid database; use another backup.")
        }
    }
}
