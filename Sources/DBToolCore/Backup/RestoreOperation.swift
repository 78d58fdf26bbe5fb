import DatabaseKit
import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `dbtool restore ARCHIVE DIR`: the database directory of a backup, back
/// in DIR, checked, or nothing changed at all.
///
/// The archive is read once (`ArchiveUnpacking`): checked and extracted
/// in the same pass into a private staging directory beside DIR, whose
/// files must then be exactly those of the manifest, with their SHA-256,
/// and whose database must pass `PRAGMA integrity_check`. A malicious,
/// truncated or damaged archive, a pipe or an archive replaced midway,
/// leaves DIR untouched. Then, one of two ways:
///
/// - By default, the staging directory takes DIR's place by rename. With
///   `--force`, a non-empty DIR is first moved aside, brought back if the
///   last rename fails, and removed once the restore is complete. Files are
///   only swapped under databases nobody uses: every SQLite database of DIR
///   (by its header, whatever its name, and what links in DIR lead to) is
///   held with a `DatabaseExclusion` across the swap, and a DIR in use is
///   refused (75), nothing changed.
/// - With `--live`, DIR's database is restored in place, through SQLite's
///   online backup API, in one write transaction of the live database: its
///   connections (other processes included) see the restored content from
///   their next transaction, and nothing they committed before is
///   corrupted. The archive's other files replace theirs one by one (by
///   rename); files of DIR that the archive does not hold are kept.
///
/// A restore into DIR holds a lock beside it (`.dbtool-restoring-NAME.lock`)
/// from its first look at DIR to the swap, and DIR's migration lock: a
/// second restore into DIR, or a `migrate` of its database, waits or fails
/// (75), and DIR is checked again at the swap: a DIR that appeared meanwhile
/// is refused (73), untouched.
public struct RestoreOperation: Sendable {
    public var archive: String
    public var directory: String
    /// Replace a non-empty DIR.
    public var force = false
    /// Restore into DIR's database in place, while applications use it.
    public var live = false
    /// Keep the permissions the archive records for others (by default
    /// nothing restored is readable or writable by others).
    public var keepsModes = false
    /// How long to wait for DIR's migration lock, and with ``live`` for the
    /// database's write lock.
    public var timeout: TimeInterval = DatabaseHandle.defaultTimeout
    /// Told the archive's bytes read as the restore goes on.
    public var progress: ProgressHandler?
    /// How to reach the object store of an `s3://` archive.
    public var objectStore = ObjectStoreOptions()
    /// The passphrase of an encrypted archive.
    public var passphrase: String?
    /// With a replica: the TXID to restore (default: the latest).
    public var txid: UInt64?
    /// With a replica: the time to restore, the state of the last file
    /// written before it (default: the latest).
    public var time: Date?
    /// Succeed without restoring when DIR already holds a database (a
    /// container's boot script).
    public var ifDatabaseNotExists = false
    /// With a replica: succeed without restoring when it holds nothing.
    public var ifReplicaExists = false
    /// With a replica: leave the database in rollback-journal mode, for
    /// ``FollowOperation`` to keep current in place (its readers then never
    /// create a write-ahead log).
    public var preparesForFollowing = false
    /// What the run may not write onto: the archive or replica it reads is
    /// added to it.
    public var gate = WriteGate()

    public init(archive: String, directory: String) {
        self.archive = archive
        self.directory = directory
    }

    /// What the restore did.
    public struct Report: Codable, Sendable, Equatable {
        /// The archive or replica restored from.
        public var archive: String
        public var directory: String
        public var database: String
        /// The backup's manifest (an archive's restore).
        public var manifest: BackupManifest?
        /// The state restored (a replica's restore).
        public var replica: ReplicaPoint?
        /// Why nothing was restored (--if-db-not-exists, --if-replica-exists).
        public var skipped: String?
        public var integrity: String
        /// True when DIR held data that was replaced (--force, --live).
        public var replaced: Bool
        /// True when the database was restored in place (--live).
        public var live: Bool
        /// With --live: how long the live database's writers were kept
        /// waiting by the copy, in milliseconds.
        public var writerStallMs: Int64?
    }

    /// The state of a replica a restore rebuilt.
    public struct ReplicaPoint: Codable, Sendable, Equatable {
        /// Its TXID, 16 hexadecimal digits as in file names.
        public var txid: String
        /// When its last file was written.
        public var time: Date
        /// How many files were applied.
        public var files: Int
    }

    static let tempPrefix = ".dbtool-restore-"

    /// Where the restore reads from.
    private enum Source {
        case archive(OpenedArchive)
        case replica(Replica)
    }

    /// A replica: a directory (holding `ltx/`) or an `s3://BUCKET/PREFIX/`
    /// (ending with `/`); nil for an archive.
    private func replicaStore() throws -> Replica? {
        guard try StoreLocation.namesFolder(archive) else { return nil }
        return try Replica.at(archive, objectStore: objectStore)
    }

    /// True when the folder holds backup archives (names with an archive
    /// extension): what `backup --to` writes, mistaken for a replica.
    private static func holdsArchives(_ path: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { name in ArchiveFormat.fileExtensions.contains { name.hasSuffix($0) } }
    }

    /// A report of a restore that was not needed.
    private func skipped(_ reason: String, target: String, database: String = "") -> Report {
        Report(archive: archive, directory: target, database: database, skipped: reason, integrity: "not run", replaced: false, live: false)
    }

    /// What DIR was at the first look, to compare at the swap.
    private enum TargetState: Equatable {
        case missing
        case empty
        case filled(entries: Int)

        /// 0 missing, 1 empty, 2 filled: what must not change without --force.
        var kind: Int {
            switch self {
            case .missing: 0
            case .empty: 1
            case .filled: 2
            }
        }
    }

    public func run() throws -> Report {
        let target = try LocalPath.resolve(directory, what: "the directory to restore into")
        guard target != "/" else { throw DBToolError(.usage, "restore does not replace /", hint: "Restore into a directory of its own.") }
        let parent = LocalPath.parent(of: target)
        let name = LocalPath.name(of: target)
        if ifDatabaseNotExists, FileSystem.isDirectory(target), let existing = try DirectoryDatabases(scanning: target).databases.first {
            return skipped("\(target) already holds a database", target: target, database: existing.path)
        }
        let source: Source
        if let store = try replicaStore() {
            if let path = store.store.localPath, try !ReplicaRestore.isReplica(store), Self.holdsArchives(path) {
                // `dbtool backup --to BACKUPS_DIR` wrote it: one archive is restored at a time.
                throw DBToolError(
                    .usage, "\(archive) is a folder of backup archives, not a replica",
                    hint:
                        "Restore one archive: `dbtool restore \(join(archive, "latest")) \(directory)` for the newest, or choose one with `dbtool backup list \(archive)`."
                )
            }
            if ifReplicaExists, try !ReplicaRestore.isReplica(store) {
                return skipped("\(store.description) holds nothing to restore", target: target)
            }
            source = .replica(store)
        } else {
            guard txid == nil && time == nil else {
                throw DBToolError(
                    .usage,
                    "--txid and --at restore a replica (a directory or s3://BUCKET/PREFIX/ that `dbtool replicate` writes), not the archive \(archive)"
                )
            }
            let opened = try OpenedArchive.open(archive, objectStore: objectStore, extensions: ArchiveFormat.fileExtensions)
            if let progress { opened.source.progress = { done in progress(OperationProgress("restoring", done: done, total: opened.size ?? 0, unit: .bytes)) } }
            source = .archive(opened)
        }
        // Nothing is written onto, into or over what is read: checked before anything changes.
        var gate = self.gate
        switch source {
        case .archive(let opened):
            if let path = opened.localPath { gate.protectSource(path, role: "the archive \(path) this restore reads") }
        case .replica(let replica):
            if let path = replica.store.localPath { gate.protectSource(path, role: "the replica \(path) this restore reads") }
        }
        try gate.check(target, .replacedDirectory, what: "the directory to restore into")
        // A mount point (a volume's root) can not be renamed, nor receive a
        // folder from another file system: it is restored in place, staged
        // inside itself. Elsewhere, the staging directory and the lock are
        // beside DIR.
        let inPlace = FileSystem.isMountPoint(target)
        let workPath = inPlace ? target : parent
        let stagingName = tempName(prefix: Self.tempPrefix, for: name)
        try gate.check(join(workPath, ExclusiveLock.Purpose.restore(into: name).fileName), .ownFile, what: "the restore's lock file")
        try gate.check(join(workPath, stagingName), .ownFile, what: "the restore's staging directory")

        let createdParents = inPlace ? [] : try createMissingDirectories(parent)
        var succeeded = false
        defer { if !succeeded { removeCreated(createdParents) } }
        let workDirectory = try DirectoryDescriptor.open(workPath)
        defer { workDirectory.close() }
        let restoreLock = try ExclusiveLock(directory: workPath, purpose: .restore(into: name), timeout: 0)
        defer { withExtendedLifetime(restoreLock) {} }

        let state = try observeTarget(target)
        if case .filled(let entries) = state, !force && !live {
            throw DBToolError(
                .cantCreate, "\(target) is not empty (\(entries) entries)",
                hint:
                    "Restore into a new directory, or pass --force to replace its content (it is kept if the restore fails), or --live to restore into a database applications are using."
            )
        }
        // Early, before the long work; checked again, and held, at the swap.
        if state != .missing && !live { try DatabaseExclusion(everyDatabaseOf: DirectoryDatabases(scanning: target), in: target).release() }
        if live, case .filled = state, try DirectoryDatabases(scanning: target).databases.isEmpty {
            throw liveWithoutDatabase(target)
        }
        // No migration of DIR's database runs while it is restored.
        let waiting = DispatchTime.now()
        let migrationLock = state == .missing ? nil : try ExclusiveLock(directory: target, purpose: .restoreDatabase, timeout: timeout)
        // --timeout is the sum of the waits: what the lock took is not waited again.
        let waitLeft = max(0, timeout - seconds(since: waiting))
        defer { withExtendedLifetime(migrationLock) {} }

        removeStaleTempFiles(in: workPath, prefix: Self.tempPrefix)
        do {
            try workDirectory.createDirectory(stagingName)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of \(workPath).")
        }
        defer { workDirectory.removeTree(stagingName) }
        let staging = try workDirectory.openDirectory(stagingName)
        defer { staging.close() }

        let sourceName: String
        let databaseFile: String
        var manifest: BackupManifest?
        var replicaPoint: ReplicaPoint?
        var folderMode: mode_t?
        switch source {
        case .archive(let opened):
            let reader = try ArchiveReader(source: opened.source, name: opened.name, passphrase: passphrase)
            let unpacking = try ArchiveUnpacking(
                archive: opened.name, reader: reader, into: staging, options: .init(keepsModes: keepsModes, isDurable: true))
            (sourceName, databaseFile, manifest, folderMode) = (
                opened.name, unpacking.manifest.databaseFile, unpacking.manifest, unpacking.folderMode
            )
        case .replica(let store):
            // DIR's own database name with --live, else the default.
            let existing = live && state != .missing ? try DirectoryDatabases(scanning: target).databases : []
            databaseFile = existing.count == 1 ? existing[0].name ?? DatabaseLocation.defaultFileName : DatabaseLocation.defaultFileName
            let target: RestorePlan.Target = txid.map { .txid($0) } ?? time.map { .time($0) } ?? .latest
            let built = try ReplicaRestore(store: store, target: target).build(into: staging, fileName: databaseFile)
            replicaPoint = ReplicaPoint(txid: built.txid, time: built.time, files: built.files)
            if preparesForFollowing {
                // The read and write versions of the header: 1, rollback-journal mode.
                let identity: FileStatus.Identity
                do {
                    let file = try staging.openFile(databaseFile, .readWrite)
                    defer { file.close() }
                    try file.writeAll(toAbsoluteOffset: 18, [1, 1])
                    try file.sync()
                    identity = try file.status().identity
                } catch {
                    throw error.reported(.cantCreate)
                }
                // Where the copy stands, arriving with it: a follower stopped
                // before its first update goes on from here when run again.
                if !live, let txid = UInt64(built.txid, radix: 16) {
                    try FollowerState(replica: store.description, txid: txid, database: identity).write(in: staging, for: databaseFile)
                }
            }
            // The database rebuilt is the replica owner's: it keeps its identity, and may replicate there again.
            if let owner = try ReplicaRecord.read(from: store), let identity = DatabaseIdentity(owner.database.id) {
                try identity.write(in: staging, for: databaseFile)
            }
            sourceName = store.description
        }
        let stagedDatabase = staging.path(of: databaseFile)
        let integrity = try DatabaseCheck.run(database: stagedDatabase, archive: sourceName, foreignKeys: false)
        try Interruption.check()

        var report = Report(
            archive: sourceName, directory: target, database: target + "/" + databaseFile, manifest: manifest, replica: replicaPoint,
            integrity: integrity, replaced: state != .missing && state != .empty, live: false)
        if live, let database = try liveDatabase(in: target, named: databaseFile) {
            let stall = try LiveRestore(staging: staging, target: target, database: database, databaseFile: databaseFile, timeout: waitLeft)
                .run()
            report.live = true
            report.database = database
            report.writerStallMs = Int64((stall * 1000).rounded())
        } else if inPlace {
            try checkUnchanged(target, expecting: state)
            let contents = state == .empty ? nil : try DirectoryDatabases(scanning: target)
            try RestoreInPlace(target: workDirectory, staging: staging, stagingName: stagingName, contents: contents).run()
        } else {
            let parentDirectory = try DirectoryDescriptor.open(parent)
            defer { parentDirectory.close() }
            try swap(staging, named: stagingName, into: target, in: parentDirectory, expecting: state)
            try staging.setPermissions(folderMode ?? 0o700)
        }
        succeeded = true
        return report
    }

    /// Puts the staging directory in DIR's place, holding every database of
    /// DIR so that no connection starts on one meanwhile; puts DIR back when
    /// a process opened one of its files during the swap.
    private func swap(
        _ staging: DirectoryDescriptor, named stagingName: String, into target: String, in parent: DirectoryDescriptor,
        expecting expected: TargetState
    ) throws {
        let name = LocalPath.name(of: target)
        let now = try checkUnchanged(target, expecting: expected)
        let contents = now == .missing ? nil : try DirectoryDatabases(scanning: target)
        let exclusion = try contents.map { try DatabaseExclusion(everyDatabaseOf: $0, in: target) }
        defer { exclusion?.release() }
        let aside = name + ".dbtool-old-" + TimestampedName.timestamp(Date())
        if now != .missing {
            do {
                try parent.rename(name, to: parent, as: aside)
            } catch {
                throw error.reported(.cantCreate, hint: "Check the permissions of \(parent.path).")
            }
        }
        do {
            try parent.rename(stagingName, to: parent, as: name)
        } catch {
            // Put the old content back; if even that fails, say where it is.
            if now != .missing && (try? parent.rename(aside, to: parent, as: name)) == nil {
                throw DBToolError(
                    .cantCreate,
                    "can not move the restored directory to \(target): \(error.errno); its old content is in \(parent.path(of: aside))",
                    hint: "Move it back with: mv '\(parent.path(of: aside))' '\(target)'")
            }
            throw error.reported(.cantCreate, hint: "Check the permissions of \(parent.path).")
        }
        // A process that opened an old file before the swap completed would
        // write into files about to be deleted: undo the swap.
        if let exclusion, let users = exclusion.latecomers() {
            if (try? parent.rename(name, to: parent, as: stagingName)) != nil && (try? parent.rename(aside, to: parent, as: name)) != nil {
                throw DatabaseExclusion.inUse(target, by: users)
            }
            throw DBToolError(
                .cantCreate,
                "\(target) was opened during the restore (\(users)), and its old content could not be put back: it is in \(parent.path(of: aside))",
                hint: "Stop the application, then move it back with: mv '\(parent.path(of: aside))' '\(target)'")
        }
        // The restore is complete from here: the old content is no longer needed.
        if now != .missing { parent.removeTree(aside) }
        do {
            try parent.sync()
        } catch {
            throw error.reported(.ioError)
        }
    }

    /// Checks DIR again under the restore lock: what appeared since the
    /// first look is not ours to replace (73, unless --force). Returns what
    /// it is now.
    @discardableResult
    private func checkUnchanged(_ target: String, expecting expected: TargetState) throws -> TargetState {
        let now = try observeTarget(target)
        if !force && now.kind != expected.kind {
            throw DBToolError(
                .cantCreate,
                "\(target) \(expected == .missing ? "appeared" : "changed") while the archive was being restored (\(describe(now))); nothing of it was touched",
                hint: "Check what created it; restore into another directory, or pass --force to replace it.")
        }
        return now
    }

    /// `directory/name`.
    private func join(_ directory: String, _ name: String) -> String { directory == "/" ? "/" + name : directory + "/" + name }

    /// What DIR is now (dbtool's lock files and restore folders left out);
    /// throws 73 when it is not a directory.
    private func observeTarget(_ target: String) throws -> TargetState {
        guard let info = try FileSystem.status(target, followingLinks: false) else { return .missing }
        guard info.kind == .directory else {
            throw DBToolError(.cantCreate, "\(target) exists and is not a directory", hint: "Restore into a directory.")
        }
        // Every entry counts, whatever its name's bytes.
        let directory = try DirectoryDescriptor.open(target, followingLinks: false)
        defer { directory.close() }
        let entries = try directory.entries().filter { entry in
            !(entry.name.map { DirectoryDatabases.isLockFile($0) || $0.hasPrefix(Self.tempPrefix) } ?? false)
        }
        return entries.isEmpty ? .empty : .filled(entries: entries.count)
    }

    private func describe(_ state: TargetState) -> String {
        switch state {
        case .missing: "it is gone"
        case .empty: "it is empty"
        case .filled(let entries): "it holds \(entries) entries"
        }
    }

    /// With `--live`: the database of DIR the backup's database goes into,
    /// or nil when DIR is empty (a plain restore then). Refuses (65) a DIR
    /// whose databases have other names, or that holds files but no database.
    private func liveDatabase(in target: String, named databaseFile: String) throws -> String? {
        let contents = try DirectoryDatabases(scanning: target)
        if let match = contents.databases.first(where: { $0.name == databaseFile }) { return match.path }
        let names = contents.databases.map { $0.name ?? $0.path }
        if !names.isEmpty {
            throw DBToolError(
                .dataError,
                "--live restores into the database of the same name: the backup's database is \(databaseFile), but \(target) holds \(names.joined(separator: ", ")); nothing was changed",
                hint: "Restore into a new directory (or without --live, --force, once the application is stopped).")
        }
        if contents.entryCount > 0 { throw liveWithoutDatabase(target) }
        return nil
    }

    private func liveWithoutDatabase(_ target: String) -> DBToolError {
        DBToolError(
            .dataError, "--live restores into the database a directory holds, and \(target) holds none; nothing was changed",
            hint: "Restore without --live: into a new directory, or with --force to replace its content.")
    }

    /// Removes the parents this run created, deepest first, if still empty.
    private func removeCreated(_ directories: [String]) {
        for directory in directories.reversed() { try? FileSystem.removeEmptyDirectory(directory) }
    }
}
