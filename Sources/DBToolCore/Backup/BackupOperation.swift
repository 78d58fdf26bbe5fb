import Crypto
import DatabaseKit
import Foundation

/// `dbtool backup`: an archive of the whole database directory (database,
/// WAL, SHM and every other file), holding one committed state even while
/// other processes keep writing.
///
/// The database's files are copied under the write lock into a staging
/// directory beside the destination (see ``ConsistentCopy``); the archive is
/// then compressed from there with no lock held, into a temp file that is
/// fsynced and renamed: a crash or a signal never leaves a partial archive
/// under the final name. Memory stays flat: files stream through one buffer.
public struct BackupOperation: Sendable {
    public var location: DatabaseLocation
    /// The archive to write, or nil with ``outputDirectory``.
    public var output: String?
    /// A directory where the archive is named with a UTC timestamp.
    public var outputDirectory: String?
    public var format: ArchiveFormat = .tarZstd
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
    public var timeout: TimeInterval = 5
    /// Called with the bytes done and the total, during the copy and then
    /// during the compression.
    public var progress: (@Sendable (BackupProgress) -> Void)?

    public init(location: DatabaseLocation) {
        self.location = location
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
    }

    /// The prefix of temp files and staging directories.
    static let tempPrefix = ".dbtool-backup-"
    /// The timestamp in archive names: `<folder>-<yyyyMMdd'T'HHmmss.SSS'Z'>.<extension>`.
    static let timestampFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"

    public func run(now: Date = Date()) throws -> Report {
        let started = DispatchTime.now()
        try location.checkExists()
        if let level { try format.validate(level: level) }
        let destination = try destinationPath(now: now)
        let outputDirectory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        try checkDestination(destination, in: outputDirectory)

        let lock = try ExclusiveLock(directory: location.directoryPath, purpose: .backup, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        removeStaleTempFiles(in: outputDirectory, prefix: Self.tempPrefix)

        let name = URL(fileURLWithPath: destination).lastPathComponent
        let staging = outputDirectory + "/" + tempName(prefix: Self.tempPrefix, for: name + ".staging")
        let temp = outputDirectory + "/" + tempName(prefix: Self.tempPrefix, for: name)
        defer {
            try? FileManager.default.removeItem(atPath: staging)
            unlink(temp)
        }
        guard mkdir(staging, 0o700) == 0 else {
            throw DBToolError(.cantCreate, "can not create the staging directory \(staging): \(systemError())")
        }

        let plan = try ArchivePlan(location: location)
        let (manifest, state) = try writeArchive(plan, staging: staging, to: temp, now: now)
        try fsyncPath(temp)
        try publish(temp, as: destination, what: "the archive")
        let deleted = try prune(directory: outputDirectory, except: destination)
        return Report(
            database: location.filePath, archive: destination, format: format.rawValue, bytes: fileSize(destination),
            sourceBytes: manifest.files.reduce(0) { $0 + $1.size }, files: manifest.files.count, pageCount: state.pageCount,
            lockSeconds: state.lockDuration,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9,
            skipped: plan.skipped, deleted: deleted)
    }

    /// Writes the archive: the folder, the database's files as
    /// ``ConsistentCopy`` provides them, the other directories and files,
    /// then the manifest.
    private func writeArchive(
        _ plan: ArchivePlan, staging: String, to temp: String, now: Date
    ) throws -> (BackupManifest, ConsistentCopy.State) {
        let descriptor = try createNewFile(temp)
        defer { close(descriptor) }
        let writer = try ArchiveWriter(fileDescriptor: descriptor, format: format, level: level, threads: threads, destination: temp)
        let folder = plan.folder
        let databasePath = location.filePath
        let databaseName = URL(fileURLWithPath: databasePath).lastPathComponent
        let total = plan.totalBytes + ([""] + ConsistentCopy.companionSuffixes).reduce(0) { $0 + fileSize(databasePath + $1) }
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
        let copy = ConsistentCopy(location: location, timeout: timeout)
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

    private func destinationPath(now: Date) throws -> String {
        if let output { return URL(fileURLWithPath: output).standardizedFileURL.path }
        guard let outputDirectory else {
            throw DBToolError(.usage, "no destination: give --output FILE or --output-dir DIR")
        }
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL
        let destination = directory.appendingPathComponent("\(archiveStem)-\(Self.timestamp(now)).\(format.fileExtension)").path
        try checkOutsideDatabase(directory.path, destination: destination)  // before creating anything
        try createOutputDirectory(directory.path)
        return destination
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = timestampFormat
        return formatter.string(from: date)
    }

    /// Timestamped archives are named after the database directory.
    private var archiveStem: String {
        URL(fileURLWithPath: location.directoryPath).lastPathComponent
    }

    private func checkDestination(_ destination: String, in directory: String) throws {
        if FileManager.default.fileExists(atPath: destination) && !force {
            throw DBToolError(.cantCreate, "\(destination) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        guard isDirectory(directory) else {
            throw DBToolError(
                .cantCreate, "can not write \(destination): the directory \(directory) does not exist", hint: "Create it first (mkdir -p).")
        }
        guard access(directory, W_OK) == 0 else {
            throw DBToolError(
                .noPermission, "can not write \(destination): the directory \(directory) is not writable",
                hint: "Check its permissions, or choose another destination.")
        }
        try checkOutsideDatabase(directory, destination: destination)
    }

    /// An archive inside the directory it archives would archive itself.
    private func checkOutsideDatabase(_ directory: String, destination: String) throws {
        let source = location.directoryPath + "/"
        if location.namesDirectory && (directory + "/").hasPrefix(source) {
            throw DBToolError(
                .usage, "the archive \(destination) would be inside the database directory \(location.directoryPath), which is archived",
                hint: "Write backups outside the database directory.")
        }
    }

    /// Deletes the oldest timestamped archives of this database beyond `keep`, never the new one.
    private func prune(directory: String, except newest: String) throws -> [String] {
        guard let keep, outputDirectory != nil else { return [] }
        let extensions = ArchiveFormat.allCases.map { NSRegularExpression.escapedPattern(for: $0.fileExtension) }
        let pattern =
            "^" + NSRegularExpression.escapedPattern(for: archiveStem) + "-[0-9]{8}T[0-9]{6}\\.[0-9]{3}Z\\.("
            + extensions.joined(separator: "|") + ")$"
        let regex = try NSRegularExpression(pattern: pattern)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        // Sort by "<stem>-<timestamp>" (21 characters after the stem): by time, whatever the format.
        let ours = names.filter { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
            .sorted { $0.prefix(archiveStem.count + 21) < $1.prefix(archiveStem.count + 21) }
        let doomed = ours.dropLast(max(keep, 1)).map { directory + "/" + $0 }.filter { $0 != newest }
        for path in doomed { try? FileManager.default.removeItem(atPath: path) }
        return doomed
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
