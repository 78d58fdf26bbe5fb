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
    /// With ``outputDirectory``: keep only the newest N archives of this database there.
    public var keep: Int?
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
        /// Older archives deleted by `--keep`.
        public var deleted: [String]
        /// `path: reason` of each older archive `--keep` could not delete.
        public var deleteFailures: [String]
    }

    /// The prefix of temp files and staging directories.
    static let tempPrefix = ".dbtool-backup-"

    public func run(now: Date = Date()) throws -> Report {
        let started = DispatchTime.now()
        try database.location.checkExists()
        let format = try ArchiveFormat.resolve(explicit: self.format, output: output)
        if let level { try format.validate(level: level) }
        let destination = try FileDestination(
            FileDestination.Request(output: output, outputDirectory: outputDirectory, keep: keep),
            stem: archiveStem, fileExtension: format.fileExtension,
            seriesExtensions: ArchiveFormat.allCases.map(\.fileExtension), now: now, force: force, tempPrefix: Self.tempPrefix,
            validate: checkOutsideDatabase)
        try destination.prepare()

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
        let (manifest, state) = try writeArchive(plan, format: format, staging: staging, to: temp, now: now)
        try destination.publish(temp, what: "the archive")
        let pruning = destination.prune()
        return Report(
            database: database.location.filePath, archive: destination.path, format: format.rawValue, bytes: FileSystem.size(destination.path),
            sourceBytes: manifest.files.reduce(0) { $0 + $1.size }, files: manifest.files.count, pageCount: state.pageCount,
            lockSeconds: state.lockDuration,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9,
            skipped: plan.skipped, deleted: pruning.deleted, deleteFailures: pruning.failures)
    }

    private func writeArchive(
        _ plan: ArchivePlan, format: ArchiveFormat, staging: String, to temp: String, now: Date
    ) throws -> (BackupManifest, ConsistentCopy.State) {
        let descriptor = try createNewFile(temp)
        defer { descriptor.close() }
        let writer = try ArchiveWriter(fileDescriptor: descriptor, format: format, level: level, threads: threads, destination: temp)
        let folder = plan.folder
        let databasePath = database.location.filePath
        let databaseName = URL(fileURLWithPath: databasePath).lastPathComponent
        let total = plan.totalBytes + ([""] + DatabaseFiles.walSuffixes).reduce(0) { $0 + FileSystem.size(databasePath + $1) }
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

/// How far a backup is.
public struct BackupProgress: Sendable {
    public enum Phase: String, Sendable {
        /// Copying the database's files under the write lock.
        case copying
        /// Compressing the copy into the archive.
        case archiving
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
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
