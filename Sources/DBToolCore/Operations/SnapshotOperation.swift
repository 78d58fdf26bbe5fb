import DatabaseKit
import FoundationEssentials

/// `dbtool snapshot`: a consistent, standalone single-file copy of the
/// database, taken while other processes keep writing.
///
/// The copy is written to a temp file beside its destination (online backup
/// API, or VACUUM INTO), switched to journal mode DELETE so that it stands
/// alone, checked with `PRAGMA quick_check`, fsynced, and only then renamed:
/// a crash never leaves a partial file under the final name.
public struct SnapshotOperation: Sendable {
    /// The database, and how long to wait for it.
    public var database: DatabaseHandle
    /// The destination file, or nil with ``outputDirectory``.
    public var output: String?
    /// A directory where the snapshot is named with a UTC timestamp.
    public var outputDirectory: String?
    /// Over a fleet: the `--output-dir` that holds ``outputDirectory`` (this
    /// database's folder), created when missing as one database's would be.
    public var outputRoot: String?
    /// With ``outputDirectory``: keep only the newest N snapshots there.
    public var keep: Int?
    /// Replace an existing destination.
    public var force = false
    /// Compact the copy (VACUUM INTO) instead of copying pages.
    public var vacuum = false
    /// The stem of timestamped names (default: the database file's name
    /// without its extension).
    var nameStem: String?
    /// ``outputDirectory`` already open (without following a link): the
    /// snapshots directory inside a database directory.
    var openedDirectory: DirectoryDescriptor?
    /// Told the pages copied as the copy goes on; the backup then copies
    /// in steps (still inside one read transaction, so the copy holds one
    /// committed state).
    public var progress: ProgressHandler?

    public init(database: DatabaseHandle) {
        self.database = database
    }

    /// What the snapshot did.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var snapshot: String
        public var bytes: Int64
        public var pageCount: Int
        public var vacuumed: Bool
        /// Older snapshots deleted by `--keep`.
        public var deleted: [String]
        /// `path: reason` of each older snapshot `--keep` could not delete.
        public var deleteFailures: [String]
        /// Snapshots of the directory that `--keep` did not count.
        public var warnings: [String] = []
    }

    /// The prefix of temp files; stale ones (left by a killed run) are removed.
    static let tempPrefix = ".dbtool-snapshot-"

    public func run(now: Date = Date()) throws -> Report {
        let (repository, name) = try destination(now: now)
        do {
            return try write(name, into: repository, now: now)
        } catch {
            repository.discardCreatedDirectory()
            throw error
        }
    }

    /// The directory and the file name the snapshot goes to, through the
    /// write gate (64 for the database's own files, its directory, or
    /// another database's of the run); the snapshots directory inside the
    /// database directory (``openedDirectory``) is dbtool's own.
    private func destination(now: Date) throws -> (DirectoryStore, String) {
        let path: String
        if let output {
            path = try LocalPath.resolve(output, what: vacuum ? "--into" : "--output")
            try database.gate.check(path, .file, what: vacuum ? "--into" : "--output")
        } else if let outputDirectory {
            let directory = try LocalPath.resolve(outputDirectory, what: "--output-dir")
            if openedDirectory == nil { try database.gate.check(directory, .directory, what: "--output-dir") }
            if let outputRoot { try createOutputDirectory(try LocalPath.resolve(outputRoot, what: "--output-dir")) }
            path = directory + "/" + series.name(at: now)
        } else {
            throw DBToolError(.usage, "no destination: give --output FILE or --output-dir DIR")
        }
        let repository = DirectoryStore(path: LocalPath.parent(of: path), tempPrefix: Self.tempPrefix, opened: openedDirectory)
        if output != nil {
            guard FileSystem.isDirectory(repository.path) else {
                throw DBToolError(
                    .cantCreate, "can not write \(path): the directory \(repository.path) does not exist",
                    hint: "Create it first (mkdir -p).")
            }
            if FileSystem.exists(path) && !force {
                throw DBToolError(.cantCreate, "\(path) already exists", hint: "Choose another name, or pass --force to replace it.")
            }
        }
        try repository.prepareForWriting(creating: outputDirectory != nil)
        return (repository, LocalPath.name(of: path))
    }

    /// The series of timestamped snapshots of this database.
    private var series: TimestampedName {
        TimestampedName(stem: nameStem ?? snapshotStem, fileExtension: "sqlite")
    }

    private func write(_ name: String, into repository: DirectoryStore, now: Date) throws -> Report {
        // Read only: a copy of a database in a place dbtool may not write works too.
        let source = try database.openForReading(readonly: false)
        // Created here, empty (a valid empty database, and what VACUUM INTO
        // accepts): private, whatever the umask (SQLite would create it
        // 0644), and never through a link. SQLite then opens it without
        // creating anything, without a journal, and not through a link.
        let temp = try repository.temporaryFile(for: name)
        defer { removeDatabaseFiles(temp) }

        let pageCount: Int
        do {
            pageCount = try database.reportingErrors {
                try reportingWriteErrors(to: repository.location(of: name)) { () -> Int in
                    if vacuum {
                        try source.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [temp]) }
                    } else {
                        let copy = try DatabaseQueue(path: temp, configuration: Self.copyConfiguration)
                        try copy.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = OFF") }
                        if let progress {
                            // 4 MiB of 4 KiB pages per step.
                            try source.backup(to: copy, pagesPerStep: 1024) { step in
                                progress(
                                    OperationProgress("snapshot", done: Int64(step.completedPageCount), total: Int64(step.totalPageCount), unit: .pages))
                            }
                        } else {
                            try source.backup(to: copy)
                        }
                        try copy.close()
                    }
                    return try finalizeCopy(temp)
                }
            }
        } catch let failure as CorruptCopy {
            // The pages copied are corrupt: the copy is kept as evidence, under a name no retention counts.
            let evidence = name.hasSuffix(".sqlite") ? String(name.dropLast(7)) + ".corrupt.sqlite" : name + ".corrupt"
            try repository.publish(temp: temp, as: evidence, replacing: false)
            throw DBToolError(
                .dataError,
                "the database \(database.location.filePath) is corrupt (quick_check of its copy: \(failure.check.prefix(3).joined(separator: "; "))): the copy was kept as evidence in \(repository.location(of: evidence)), which retention never counts nor deletes",
                hint: "Restore the database from a backup, or recover what can be read from it.")
        }
        try repository.publish(temp: temp, as: name, replacing: force)
        let size = FileSystem.size(repository.location(of: name))
        var report = Report(
            database: database.location.filePath, snapshot: repository.location(of: name), bytes: size, pageCount: pageCount,
            vacuumed: vacuum, deleted: [], deleteFailures: [])
        guard outputDirectory != nil else { return report }
        let identity = IdentityPlan(database.location, writing: true).keep()
        let record = SeriesRecord(
            series: identity, file: name, size: size, created: ISOTime.text(now), dbtoolVersion: DBToolVersion.current,
            pageCount: pageCount)
        let snapshots = ArchiveRepository(repository)
        try snapshots.writeSmall(SeriesRecord.name(of: name), try record.encoded())
        let catalog = try ArchiveCatalog(snapshots, extensions: ArchiveName.snapshotExtensions, now: now)
        report.warnings = catalog.unverified.filter { ArchiveName($0.name, extensions: ["sqlite"])?.stem == series.stem }.map {
            "\($0.location) is not counted by --keep, nor deleted: \($0.distrust ?? "")"
        }
        if let keep {
            let pruning = Pruning.run(
                catalog, series: identity, policy: RetentionPolicy(last: keep), protecting: name, dryRun: false, now: now)
            report.deleted = pruning.deleted
            report.deleteFailures = pruning.failures
        }
        return report
    }

    /// How the copy is opened: the temp file dbtool created, never created
    /// again by SQLite, nor reached through a link. Its busy timeout is 0:
    /// the backup then gives up as soon as the source's wait (``--timeout``,
    /// drawn on by the source's busy handler) is spent, without a second of
    /// retries of its own.
    private static var copyConfiguration: Configuration {
        var configuration = Configuration()
        configuration.createsMissingFile = false
        configuration.followsSymbolicLinks = false
        configuration.busyMode = .timeout(0)
        return configuration
    }

    /// The copy's write errors are about the destination (a full disk, most
    /// often): name it, and the cause, rather than the source. Read errors
    /// go on to name the source.
    private func reportingWriteErrors<T>(to destination: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.isWriteFailure {
            throw DBToolError(
                .ioError, "can not write the snapshot \(destination): \(error.writeFailureCause)",
                hint: "Check the free space and the disk where it goes, and retry.")
        }
    }

    /// The stem of timestamped snapshot names: the database file's name without extension.
    private var snapshotStem: String {
        URL(fileURLWithPath: database.location.filePath).deletingPathExtension().lastPathComponent
    }

    /// A copy whose `quick_check` failed: its source is corrupt.
    private struct CorruptCopy: Error {
        let check: [String]
    }

    /// Makes the copy standalone (journal mode DELETE) and checks it.
    private func finalizeCopy(_ path: String) throws -> Int {
        let copy = try DatabaseQueue(path: path, configuration: Self.copyConfiguration)
        defer { try? copy.close() }
        return try copy.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            let check: [String]
            do {
                check = try String.fetchAll(db, sql: "PRAGMA quick_check")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                throw CorruptCopy(check: [error.message ?? "database disk image is malformed"])
            }
            guard check == ["ok"] else { throw CorruptCopy(check: check) }
            return try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        }
    }
}
