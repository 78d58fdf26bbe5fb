import Crypto
import DatabaseKit
import Dispatch
import FoundationEssentials

/// `dbtool backup`: an archive of the whole database directory (database,
/// WAL, SHM and every other file), holding one committed state even while
/// other processes keep writing.
///
/// The database file streams into the archive under a read transaction,
/// while writers go on; only the WAL and SHM (or, in rollback-journal mode,
/// the database) are staged, under the write lock (see `ConsistentCopy`).
/// A `quick_check` of the database runs meanwhile (`SourceCheck`): the
/// archive of a corrupt database is kept as evidence under a name no
/// retention counts, and the backup fails (65) without pruning anything.
///
/// The archive goes to one file (`--output`), or into a repository (a
/// directory with `--output-dir`, object storage with `--to`): it appears
/// whole under its name or not at all (a temp file renamed, a multipart
/// upload completed), then its record is written beside it, then the
/// retention rules prune this database's older archives, those the
/// repository can attribute and trust (see `ArchiveCatalog`). Memory
/// stays flat: files stream through fixed buffers.
public struct BackupOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// The archive to write, or nil with ``outputDirectory`` or ``objectPrefix``.
    public var output: String?
    /// A directory where the archive is named with a UTC timestamp.
    public var outputDirectory: String?
    /// Over a fleet: the `--output-dir` that holds ``outputDirectory`` (this
    /// database's folder), created when missing as one database's would be.
    public var outputRoot: String?
    /// The archive format; nil: the one ``output``'s extension names, else
    /// tar.zst (see ``ArchiveFormat/resolve(explicit:output:)``).
    public var format: ArchiveFormat?
    /// The compression level, or nil for the format's default.
    public var level: Int?
    /// Compression worker threads for tar.zst and tar.xz; 0 compresses on
    /// the calling thread, which keeps memory flat (files are read and
    /// hashed on a thread of their own either way).
    public var threads = 0
    /// Object storage: `s3://BUCKET/PREFIX/`, where the archive streams to
    /// a timestamped key, instead of a directory.
    public var objectPrefix: String?
    /// How to reach the object store of ``objectPrefix``.
    public var objectStore = ObjectStoreOptions()
    /// How archives go up to object storage.
    public var upload = UploadOptions()
    /// With ``outputDirectory`` or ``objectPrefix``: the archives of this
    /// database to keep there once the new one is complete.
    public var retention = RetentionPolicy()
    /// Keep only the newest N archives (``RetentionPolicy/last``).
    public var keep: Int? {
        get { retention.last }
        set { retention.last = newValue }
    }
    /// Check everything and report what retention would delete, but write
    /// and delete nothing.
    public var dryRun = false
    /// Encrypt the archive (zip, AES-256) with this passphrase.
    public var passphrase: String?
    /// Replace an existing ``output``.
    public var force = false
    /// Told the bytes done of each phase: copying, archiving, uploading.
    public var progress: ProgressHandler?

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// What the backup did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var archive: String
        public var format: String
        /// The archive's size.
        public var bytes: Int64
        /// The archived files' total size.
        public var sourceBytes: Int64
        public var files: Int
        public var pageCount: Int
        /// How long concurrent writers were kept waiting by the copy, and
        /// how long the backup took, in milliseconds as every report gives
        /// durations.
        public var writerStallMs: Int64
        public var durationMs: Int64
        /// The same two in seconds, kept for the scripts that read them.
        public var lockSeconds: Double
        public var seconds: Double
        /// Files not archived: symbolic links, sockets, devices, FIFOs,
        /// files replaced during the backup.
        public var skipped: [String]
        /// Older archives deleted by the retention rules (`--keep`...).
        public var deleted: [String]
        /// `path: reason` of each older archive `--keep` could not delete.
        public var deleteFailures: [String]
        /// The archive's SHA-256, computed as it streamed (object storage only).
        public var sha256: String?
        /// True with --dry-run: nothing was written or deleted.
        public var dryRun = false
        /// With --dry-run: the archives the retention rules would delete.
        public var wouldDelete: [String] = []
        /// Abandoned uploads of killed runs, aborted before this one.
        public var abortedUploads: [String] = []
        /// Whether the archive is encrypted.
        public var encrypted = false
        /// What to know: files skipped and why, archives of the repository
        /// that retention did not count.
        public var warnings: [String] = []
    }

    /// The prefix of temp files and staging directories.
    static let tempPrefix = ".dbtool-backup-"

    public func run(now: Date = Date()) throws -> Report {
        let started = DispatchTime.now()
        try database.location.checkExists()
        // The destination first: a path the run may not write is refused before anything else.
        if let output { try database.gate.check(try LocalPath.resolve(output, what: "--output"), .file, what: "--output") }
        let identity = IdentityPlan(database.location, writing: !dryRun)
        let format = try resolvedFormat()
        if let level { try format.validate(level: level) }
        if let output { return try writeFile(output, format: format, identity: identity, now: now, started: started) }
        guard let location = objectPrefix ?? outputDirectory else {
            throw DBToolError(.usage, "no destination: give --output FILE, --output-dir DIR or --to s3://BUCKET/PREFIX/")
        }
        let repository = try ArchiveRepository.at(location, objectStore: objectStore, upload: upload, tempPrefix: Self.tempPrefix)
        let store = repository.store
        if let path = store.localPath { try database.gate.check(path, .directory, what: "--output-dir") }
        if let outputRoot, store.localPath != nil, !dryRun {
            try createOutputDirectory(try LocalPath.resolve(outputRoot, what: "--output-dir"))
        }
        if !dryRun { try store.prepareForWriting(creating: true) }
        do {
            return try writeSeries(into: repository, format: format, identity: identity, now: now, started: started)
        } catch {
            store.discardCreatedDirectory()
            throw error
        }
    }

    /// `--output FILE`: one archive, no record, no retention.
    private func writeFile(_ output: String, format: ArchiveFormat, identity: IdentityPlan, now: Date, started: DispatchTime) throws
        -> Report
    {
        let path = try LocalPath.resolve(output, what: "--output")
        let store = DirectoryStore(path: LocalPath.parent(of: path), tempPrefix: Self.tempPrefix)
        let repository = ArchiveRepository(store)
        let name = LocalPath.name(of: path)
        if FileSystem.exists(path) && !force {
            throw DBToolError(.cantCreate, "\(path) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        try store.prepareForWriting(creating: false)
        if dryRun { return try dryRunReport(archive: path, format: format, wouldDelete: [], warnings: [], started: started) }
        let lock = try ExclusiveLock(for: database.location, purpose: .backup, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        let written = try write(
            name, format: format, into: repository, evidence: evidenceName(of: name, format: format), identity: identity, now: now)
        identity.keep()
        if Interruption.isRequested { throw Interruption.error(keeping: "the archive \(path) is whole and was kept") }
        return report(written, archive: path, format: format, started: started)
    }

    /// `--output-dir DIR` or `--to s3://…`: a timestamped archive, its
    /// record, then retention.
    private func writeSeries(
        into repository: ArchiveRepository, format: ArchiveFormat, identity plan: IdentityPlan, now: Date, started: DispatchTime
    ) throws -> Report {
        var identity = plan.series
        let name = series(format).name(at: now)
        let catalog = try ArchiveCatalog(repository, extensions: ArchiveFormat.fileExtensions, now: now)
        if catalog.archives.contains(where: { $0.name == name }) {
            throw DBToolError(
                .cantCreate, "\(repository.location(of: name)) already exists", hint: "Wait a millisecond: archive names are timestamps.")
        }
        if dryRun {
            let pruning = Pruning.run(catalog, series: identity, policy: retention, dryRun: true, now: now, adding: (name, now))
            return try dryRunReport(
                archive: repository.location(of: name), format: format, wouldDelete: retention.isEmpty ? [] : pruning.wouldDelete,
                warnings: unverifiedWarnings(catalog), started: started)
        }
        // Another backup of this database fails this one at once.
        let lock = try ExclusiveLock(for: database.location, purpose: .backup, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        var aborted: [String] = []
        // The upload a killed run of this database left, as its lock recorded it.
        if let stale = StaleUpload(note: lock.previousNote), repository.abortAbandoned(name: stale.name, token: stale.token) {
            aborted.append(repository.location(of: stale.name))
        }
        // Noted before the store is asked to start the upload: a kill between
        // its request and its answer leaves an upload whose id only the
        // store knows, found by the archive's key.
        lock.note(StaleUpload(name: name, token: nil).note)
        repository.uploadStarted = { name, token in lock.note(StaleUpload(name: name, token: token).note) }
        if let progress {
            repository.uploadProgress = { uploaded in progress(OperationProgress("uploading", done: uploaded, total: 0, unit: .bytes)) }
        }
        var written = try write(
            name, format: format, into: repository, evidence: evidenceName(of: name, format: format), identity: plan, now: now)
        lock.note("")
        // The identity is kept beside the database once its first archive is whole (another run may have kept one first).
        identity = plan.keep()
        // Written even after SIGINT or SIGTERM: a complete archive never stays without its record.
        try repository.writeSmall(
            SeriesRecord.name(of: name),
            try record(written.manifest, series: identity, file: name, size: written.size, sha256: written.sha256).encoded())
        if Interruption.isRequested {
            throw Interruption.error(
                keeping: "the archive \(repository.location(of: name)) is whole and was kept with its record; retention did not run")
        }
        var report = report(written, archive: repository.location(of: name), format: format, started: started)
        report.abortedUploads = aborted
        if !retention.isEmpty {
            let pruning = Pruning.run(
                try ArchiveCatalog(repository, extensions: ArchiveFormat.fileExtensions, now: now), series: identity, policy: retention,
                protecting: name, dryRun: false, now: now)
            report.deleted = pruning.deleted
            report.deleteFailures = pruning.failures
        }
        written.warnings += unverifiedWarnings(catalog)
        report.warnings = written.warnings
        return report
    }

    /// The archives retention did not count, as warnings.
    private func unverifiedWarnings(_ catalog: ArchiveCatalog) -> [String] {
        catalog.unverified.map { "\($0.location) is not counted by retention, nor deleted: \($0.distrust ?? "")" }
    }

    private func dryRunReport(archive: String, format: ArchiveFormat, wouldDelete: [String], warnings: [String], started: DispatchTime)
        throws
        -> Report
    {
        let plan = try ArchivePlan(location: database.location)
        defer { plan.close() }
        let source = sourceSize(of: plan)
        return Report(
            database: database.location.filePath, archive: archive, format: format.rawValue, bytes: 0, sourceBytes: source.bytes,
            files: source.files, pageCount: 0, writerStallMs: 0, durationMs: Self.milliseconds(seconds(since: started)), lockSeconds: 0,
            seconds: seconds(since: started), skipped: plan.skipped, deleted: [],
            deleteFailures: [], dryRun: true, wouldDelete: wouldDelete, encrypted: passphrase != nil, warnings: plan.warnings + warnings)
    }

    private func report(_ written: Written, archive: String, format: ArchiveFormat, started: DispatchTime) -> Report {
        Report(
            database: database.location.filePath, archive: archive, format: format.rawValue, bytes: written.size,
            sourceBytes: written.manifest.files.reduce(0) { $0 + $1.size }, files: written.manifest.files.count,
            pageCount: written.state.pageCount, writerStallMs: Self.milliseconds(written.state.lockDuration),
            durationMs: Self.milliseconds(seconds(since: started)), lockSeconds: written.state.lockDuration,
            seconds: seconds(since: started),
            skipped: written.skipped, deleted: [], deleteFailures: [], sha256: written.sha256, encrypted: passphrase != nil,
            warnings: written.warnings)
    }

    private static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }

    /// `NAME.corrupt.EXT`: where the archive of a corrupt database is kept.
    private func evidenceName(of name: String, format: ArchiveFormat) -> String {
        let base = name.hasSuffix("." + format.fileExtension) ? String(name.dropLast(format.fileExtension.count + 1)) : name
        return base + ".corrupt." + format.fileExtension
    }

    /// Writes the archive `name` into `repository`: staged, streamed,
    /// published whole; for a corrupt source, published as `evidence`, then
    /// 65.
    private func write(
        _ name: String, format: ArchiveFormat, into repository: ArchiveRepository, evidence: String, identity: IdentityPlan, now: Date
    ) throws -> Written {
        let stagingParent = repository.stagingDirectory
        removeStaleTempFiles(in: stagingParent, prefix: Self.tempPrefix)
        let staging = stagingParent + "/" + tempName(prefix: Self.tempPrefix, for: name + ".staging")
        defer { FileSystem.removeTree(staging) }
        do {
            try FileSystem.createDirectory(staging)
        } catch {
            let staged = repository.store.localPath == nil ? "Set TMPDIR to a writable directory: the -wal is staged there." : nil
            throw error.reported(.cantCreate, hint: staged)
        }
        let plan = try ArchivePlan(location: database.location)
        defer { plan.close() }
        let upload = try repository.create(name, replacing: force)
        var written: Written
        do {
            written = try writeArchive(
                plan, format: format, staging: staging, to: upload, named: repository.location(of: name), identity: identity, now: now)
            // A corrupt source: its archive is kept as evidence, under a name no retention counts.
            try upload.publish(as: written.state.check == ["ok"] ? nil : evidence)
        } catch {
            upload.abort()
            throw Self.describing(
                error, leftBehind: upload.abortFailure.map { "\(repository.location(of: name)) could not be aborted: \($0)" })
        }
        if written.state.check != ["ok"] {
            throw Self.corruptSource(database.location.filePath, check: written.state.check, evidence: repository.location(of: evidence))
        }
        written.size = upload.size
        written.sha256 = upload.sha256
        written.skipped = plan.skipped + written.skipped
        written.warnings = plan.warnings + written.warnings
        return written
    }

    /// The error of a backup whose source failed its `quick_check`.
    static func corruptSource(_ database: String, check: [String], evidence: String) -> DBToolError {
        DBToolError(
            .dataError,
            "the database \(database) is corrupt (quick_check: \(check.prefix(3).joined(separator: "; "))): its archive was kept as evidence in \(evidence), which retention never counts nor deletes; no older archive was deleted",
            hint: "Restore the database from an earlier backup (`dbtool backup list`), or recover what can be read from it.")
    }

    /// The record written beside an archive of a series.
    func record(_ manifest: BackupManifest, series: SeriesIdentity, file: String, size: Int64, sha256: String?) -> SeriesRecord {
        SeriesRecord(
            series: series, file: file, size: size, sha256: sha256, created: manifest.created,
            dbtoolVersion: DBToolVersion.current, pageCount: manifest.pageCount,
            lastMigration: manifest.migrations.last.map { "\($0.version) \($0.name)" }, encrypted: passphrase != nil,
            serverSideEncryption: upload.serverSideEncryption?.rawValue,
            serverSideEncryptionKeyID: upload.serverSideEncryption == .kms ? upload.serverSideEncryptionKeyID : nil)
    }

    /// The series of this database's archives: named after its directory,
    /// in any archive format.
    func series(_ format: ArchiveFormat) -> TimestampedName {
        TimestampedName(
            stem: archiveStem, fileExtension: format.fileExtension, seriesExtensions: ArchiveFormat.allCases.map(\.fileExtension))
    }

    /// What a backup of `plan` reads, as of now: the plan's files, and the
    /// database's own (the database, its -wal and -shm).
    func sourceSize(of plan: ArchivePlan) -> (files: Int, bytes: Int64) {
        let own = ([""] + DatabaseFiles.walSuffixes).map { database.location.filePath + $0 }.filter { FileSystem.exists($0) }
        return (plan.files.count + own.count, own.reduce(plan.totalBytes) { $0 + FileSystem.size($1) })
    }

    /// The format asked for; an encrypted archive is a zip.
    private func resolvedFormat() throws -> ArchiveFormat {
        guard passphrase != nil else { return try ArchiveFormat.resolve(explicit: format, output: output) }
        if let output, let named = ArchiveFormat(fileName: output), named != .zip {
            throw DBToolError(
                .usage, "--encrypt writes zip archives (AES-256), but --output \(output) names a .\(named.fileExtension)",
                hint: "Name the --output file .zip.")
        }
        if let format, format != .zip {
            throw DBToolError(.usage, "--encrypt writes zip archives (AES-256), not \(format.rawValue)", hint: "Drop --archive-format.")
        }
        return .zip
    }

    /// `error`, saying what was left behind when the upload could not be
    /// aborted (after an interruption: not "nothing was left behind").
    static func describing(_ error: any Error, leftBehind: String?) -> any Error {
        guard let leftBehind else { return error }
        let toolError = DBToolError.wrapping(error)
        let message =
            toolError.status == .interrupted
            ? "interrupted: stopped, but the upload \(leftBehind)" : "\(toolError.message); the upload \(leftBehind)"
        return DBToolError(
            toolError.status, message,
            hint:
                "Its parts stay in the bucket until the next backup of this database aborts them (or the bucket's lifecycle rule for incomplete uploads)."
        )
    }

    /// What ``writeArchive(_:format:staging:to:named:identity:now:)`` wrote.
    struct Written {
        var manifest: BackupManifest
        var state: ConsistentCopy.State
        /// Planned files left out (replaced or removed during the backup).
        var skipped: [String]
        var warnings: [String]
        /// The archive's size and (object storage) SHA-256, once published.
        var size: Int64 = 0
        var sha256: String?
    }

    /// Writes the archive of `plan` to `output`; `name` names it in messages.
    /// A database without an identity file gets the one `identity` is about
    /// to keep, in the archive: a restore brings it back.
    func writeArchive(
        _ plan: ArchivePlan, format: ArchiveFormat, staging: String, to output: any ArchiveSink, named name: String, identity: IdentityPlan,
        now: Date
    ) throws -> Written {
        let writer = try ArchiveWriter(
            sink: output, format: format, level: level, threads: threads, passphrase: passphrase, destination: name)
        let folder = plan.folder
        let databasePath = database.location.filePath
        let databaseName = URL(fileURLWithPath: databasePath).lastPathComponent
        let total = sourceSize(of: plan).bytes
        var files: [BackupManifest.File] = []
        var done: Int64 = 0
        /// Archives a file, reporting progress, and lists it for the manifest.
        func archive(
            _ name: String, _ add: (_ observe: (UnsafeRawBufferPointer) throws -> Void) throws -> (size: Int64, sha256: SHA256.Digest)
        ) throws {
            let (size, sha256) = try add { chunk in
                try Interruption.check()
                done += Int64(chunk.count)
                progress?(OperationProgress("archiving", done: done, total: total, unit: .bytes))
            }
            files.append(BackupManifest.File(path: name, size: size, sha256: sha256.hexString))
        }

        try writer.addDirectory(as: folder, mode: plan.folderMode, modified: plan.folderModified)
        let copy = ConsistentCopy(database: database)
        let state = try copy.run(
            into: staging,
            streamDatabase: { descriptor, info, length in
                try archive(databaseName) { observe in
                    try writer.addFile(
                        descriptor: descriptor, info: info, length: length, path: databasePath, as: folder + "/" + databaseName,
                        observe: observe)
                }
            },
            progress: { copied, copyTotal in progress?(OperationProgress("copying", done: copied, total: copyTotal, unit: .bytes)) })
        for name in state.stagedFiles {
            try archive(name) { observe in try writer.addFile(atPath: staging + "/" + name, as: folder + "/" + name, observe: observe) }
        }
        for directory in plan.directories {
            try writer.addDirectory(as: folder + "/" + directory.path, mode: directory.mode, modified: directory.modified)
        }
        var skipped: [String] = []
        var warnings: [String] = []
        for file in plan.files {
            switch plan.open(file) {
            case .success(let (descriptor, info)):
                defer { descriptor.close() }
                try archive(file.path) { observe in
                    try writer.addFile(
                        descriptor: descriptor, info: info, length: info.size, path: descriptor.path, as: folder + "/" + file.path,
                        observe: observe)
                }
            case .failure(let reason):
                skipped.append(file.path)
                warnings.append("skipped \(folder)/\(file.path): \(reason.text)")
            }
        }
        if let new = identity.new {
            let entry = LocalPath.name(of: DatabaseIdentity.path(for: database.location))
            try archive(entry) { observe in
                let bytes = Data((new.id + "\n").utf8)
                try bytes.withUnsafeBytes { try observe($0) }
                try writer.addData(bytes, as: folder + "/" + entry, mode: 0o644, modified: now)
                return (Int64(bytes.count), SHA256.hash(data: bytes))
            }
        }
        let manifest = BackupManifest(
            dbtoolVersion: DBToolVersion.current, sqliteVersion: Database.sqliteLibVersion,
            created: ISOTime.seconds(now), folder: folder,
            databaseFile: databaseName, journalMode: state.journalMode,
            pageSize: state.pageSize, pageCount: state.pageCount, schemaVersion: state.schemaVersion,
            userVersion: state.userVersion, migrations: state.migrations, files: files,
            series: identity.series)
        try writer.addData(try manifest.encoded(), as: folder + "/" + BackupManifest.entryName, modified: now)
        try writer.finish()
        return Written(manifest: manifest, state: state, skipped: skipped, warnings: warnings)
    }

    /// Timestamped archives are named after the database directory.
    private var archiveStem: String {
        URL(fileURLWithPath: database.location.directoryPath).lastPathComponent
    }
}

/// The identity a backup records: the database's, or, for a database that
/// has none yet, a new one that goes into the archive and is kept beside
/// the database once the archive is whole (a failed run leaves nothing).
struct IdentityPlan {
    let location: DatabaseLocation
    /// The identity the database has.
    let existing: DatabaseIdentity?
    /// The identity made for a database that has none (nil for a dry run).
    let new: DatabaseIdentity?

    init(_ location: DatabaseLocation, writing: Bool) {
        self.location = location
        existing = DatabaseIdentity.read(location)
        // A file of that name that is not an identity is left alone: the host and path name the series then.
        let occupied = (try? FileSystem.status(DatabaseIdentity.path(for: location), followingLinks: false)) ?? nil != nil
        new = existing == nil && !occupied && writing ? DatabaseIdentity.random() : nil
    }

    /// The series the archive names.
    var series: SeriesIdentity { SeriesIdentity(location: location, identity: existing ?? new) }

    /// Keeps the new identity beside the database; returns the series as
    /// the database now names it.
    @discardableResult
    func keep() -> SeriesIdentity {
        guard let new else { return series }
        return SeriesIdentity(location: location, identity: new.persist(location) ?? new)
    }
}

func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

extension Digest {
    /// Lowercase hex.
    var hexString: String {
        var text = ""
        text.reserveCapacity(Self.byteCount * 2)
        for byte in self { text += String(byte, radix: 16).leftPadded(to: 2) }
        return text
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
