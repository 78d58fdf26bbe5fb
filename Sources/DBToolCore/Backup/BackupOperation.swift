import Crypto
import DatabaseKit
import Foundation

/// `dbtool backup`: an archive of the whole database directory (database,
/// WAL, SHM and every other file), holding one committed state even while
/// other processes keep writing.
///
/// The database file streams into the archive under a read transaction,
/// while writers go on; only the WAL and SHM (or, in rollback-journal mode,
/// the database) are staged beside the destination, under the write lock
/// (see ``ConsistentCopy``). The archive is written to a temp file that is
/// fsynced and renamed: a crash or a signal never leaves a partial archive
/// under the final name. Memory stays flat: files stream through one buffer.
public struct BackupOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// The archive to write, or nil with ``outputDirectory``.
    public var output: String?
    /// A directory where the archive is named with a UTC timestamp.
    public var outputDirectory: String?
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
    /// a timestamped key (see ``ObjectBackup``), instead of a file.
    public var objectPrefix: String?
    /// How to reach the object store of ``objectPrefix``.
    public var objectStore = ObjectStoreOptions()
    /// The upload's part size (S3 allows 5 MiB to 5 GiB).
    public var partSize = 16 << 20
    /// How many parts upload at once; memory holds `uploadThreads + 1` parts.
    public var uploadThreads = 4
    /// The objects' storage class (`STANDARD_IA`, `GLACIER_IR`...), or the bucket's default.
    public var storageClass: String?
    /// With ``outputDirectory`` or ``objectPrefix``: the archives of this
    /// database to keep there once the new one is complete.
    public var retention = RetentionPolicy()
    /// With ``outputDirectory``: keep only the newest N archives (``RetentionPolicy/last``).
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
    /// Called with the bytes done and the total, during the copy and then
    /// during the compression.
    public var progress: (@Sendable (BackupProgress) -> Void)?

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
        /// How long concurrent writers were kept waiting by the copy.
        public var lockSeconds: Double
        public var seconds: Double
        /// Files not archived: symbolic links, sockets, devices.
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
        /// Object storage: whether the object carries dbtool's metadata
        /// (false over 5 GiB; `backup list` then shows size and time only).
        public var objectMetadata: Bool?
    }

    /// The prefix of temp files and staging directories.
    static let tempPrefix = ".dbtool-backup-"

    public func run(now: Date = Date()) throws -> Report {
        let started = DispatchTime.now()
        try database.location.checkExists()
        let format = try resolvedFormat()
        if let level { try format.validate(level: level) }
        if let objectPrefix {
            return try ObjectBackup(operation: self, prefix: ObjectLocation(objectPrefix), format: format).run(now: now, started: started)
        }
        let destination = try FileDestination(
            FileDestination.Request(output: output, outputDirectory: outputDirectory, retention: retention),
            stem: archiveStem, fileExtension: format.fileExtension,
            seriesExtensions: ArchiveFormat.allCases.map(\.fileExtension), now: now, force: force, tempPrefix: Self.tempPrefix,
            validate: checkOutsideDatabase)
        try destination.prepare()
        if dryRun {
            let plan = try ArchivePlan(location: database.location)
            let source = sourceSize(of: plan)
            return Report(
                database: database.location.filePath, archive: destination.path, format: format.rawValue, bytes: 0,
                sourceBytes: source.bytes, files: source.files, pageCount: 0, lockSeconds: 0, seconds: seconds(since: started),
                skipped: plan.skipped, deleted: [], deleteFailures: [], dryRun: true, wouldDelete: destination.expired(),
                encrypted: passphrase != nil)
        }

        // Another backup of this database fails this one at once.
        let lock = try ExclusiveLock(directory: database.location.directoryPath, purpose: .backup, timeout: 0)
        defer { withExtendedLifetime(lock) {} }

        let staging = destination.tempPath(suffix: ".staging")
        let temp = destination.tempPath()
        defer {
            FileSystem.removeTree(staging)
            _ = try? FileSystem.remove(temp)
        }
        try FileSystem.createDirectory(staging)

        let plan = try ArchivePlan(location: database.location)
        let descriptor = try createNewFile(temp)
        defer { descriptor.close() }
        let output = BackgroundWriter(descriptor: descriptor)
        let (manifest, state) = try writeArchive(plan, format: format, staging: staging, to: output, named: temp, now: now)
        try destination.publish(temp, what: "the archive")
        let pruning = destination.prune()
        return Report(
            database: database.location.filePath, archive: destination.path, format: format.rawValue, bytes: FileSystem.size(destination.path),
            sourceBytes: manifest.files.reduce(0) { $0 + $1.size }, files: manifest.files.count, pageCount: state.pageCount,
            lockSeconds: state.lockDuration, seconds: seconds(since: started),
            skipped: plan.skipped, deleted: pruning.deleted, deleteFailures: pruning.failures,
            encrypted: passphrase != nil)
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
        let format = try ArchiveFormat.resolve(explicit: format ?? .zip, output: output)
        guard format == .zip else {
            throw DBToolError(
                .usage, "--encrypt writes zip archives (AES-256), not \(format.rawValue)",
                hint: "Drop --archive-format, or name the --output file .zip.")
        }
        return format
    }

    /// Writes the archive of `plan` to `output`; `name` names it in messages.
    func writeArchive(
        _ plan: ArchivePlan, format: ArchiveFormat, staging: String, to output: any ArchiveSink, named name: String, now: Date
    ) throws -> (BackupManifest, ConsistentCopy.State) {
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
                progress?(BackupProgress(phase: .archiving, done: done, total: total))
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
            progress: { copied, copyTotal in progress?(BackupProgress(phase: .copying, done: copied, total: copyTotal)) })
        for name in state.stagedFiles {
            try archive(name) { observe in try writer.addFile(atPath: staging + "/" + name, as: folder + "/" + name, observe: observe) }
        }
        for directory in plan.directories {
            try writer.addDirectory(as: folder + "/" + directory.path, mode: directory.mode, modified: directory.modified)
        }
        for file in plan.files {
            try archive(file.path) { observe in try writer.addFile(atPath: file.source, as: folder + "/" + file.path, observe: observe) }
        }
        let manifest = BackupManifest(
            dbtoolVersion: DBToolVersion.current, sqliteVersion: Database.sqliteLibVersion,
            created: ISO8601DateFormatter().string(from: now), folder: folder,
            databaseFile: databaseName, journalMode: state.journalMode,
            pageSize: state.pageSize, pageCount: state.pageCount, schemaVersion: state.schemaVersion,
            userVersion: state.userVersion, migrations: state.migrations, files: files)
        try writer.addData(try manifest.encoded(), as: folder + "/" + BackupManifest.entryName, modified: now)
        try writer.finish()
        return (manifest, state)
    }

    /// Timestamped archives are named after the database directory.
    private var archiveStem: String {
        URL(fileURLWithPath: database.location.directoryPath).lastPathComponent
    }

    /// An archive inside the directory it archives would archive itself.
    private func checkOutsideDatabase(_ directory: String, destination: String) throws {
        let source = database.location.directoryPath + "/"
        if database.location.namesDirectory && (directory + "/").hasPrefix(source) {
            throw DBToolError(
                .usage, "the archive \(destination) would be inside the database directory \(database.location.directoryPath), which is archived",
                hint: "Write backups outside the database directory.")
        }
    }
}

func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// How far a backup is.
public struct BackupProgress: Sendable {
    public enum Phase: String, Sendable {
        /// Copying the database's files under the write lock.
        case copying
        /// Compressing the copy into the archive.
        case archiving
        /// Uploading the archive's parts (``BackupProgress/done`` bytes uploaded).
        case uploading
    }
    public var phase: Phase
    public var done: Int64
    public var total: Int64
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
