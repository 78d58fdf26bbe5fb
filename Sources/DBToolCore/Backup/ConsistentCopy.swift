import DatabaseKit
import Dispatch
import FoundationEssentials

/// The database file, its WAL and its SHM, all from one committed state,
/// read while other processes keep writing, with writers kept waiting as
/// little as possible.
///
/// In WAL mode (the default of `dbtool init`), in this order:
/// 1. Connection R begins a read transaction. While it lasts, SQLite's WAL
///    locks guarantee two things (wal.c, `walCheckpoint` and `walRestartLog`):
///    a checkpoint copies into the database file only frames that R's
///    snapshot includes, and none at all while R reads from the database
///    file alone; and the WAL is never restarted under frames that were
///    copied into the database file.
/// 2. The database file is streamed into the archive from a descriptor of
///    this process, up to R's size. A page a checkpoint rewrites meanwhile
///    may be copied torn, but its frame stays in the WAL, which recovery
///    replays over it.
/// 3. Connection W runs `BEGIN IMMEDIATE`: no commit and no WAL reset can
///    happen while it holds the write lock. The WAL and SHM are copied into
///    the staging directory (with `sendfile(2)`, in the kernel), and W rolls
///    back. This is the only time writers wait: a WAL's copy, not the
///    database's.
/// 4. R ends; both connections are closed.
/// 5. Only then are this process's own descriptors closed. A POSIX `close()`
///    of any descriptor on a file drops every lock this process holds on it
///    (sqlite.org, "How To Corrupt Your Database Files", section 2.2);
///    after the connections are gone there is no lock left to drop.
///
/// The archived state is the one at step 3: every transaction committed
/// before the backup started is in it. In rollback-journal mode a reader
/// blocks commits anyway, so the database is copied into the staging
/// directory under `BEGIN IMMEDIATE` (RESERVED), and writers wait for that copy.
struct ConsistentCopy {
    let database: DatabaseHandle

    /// What the copy holds.
    struct State {
        var journalMode: String
        var pageSize: Int
        var pageCount: Int
        var schemaVersion: Int
        var userVersion: Int
        var migrations: [BackupManifest.Migration]
        /// How long writers were kept out.
        var lockDuration: TimeInterval
        /// The files copied into the staging directory, by their name.
        var stagedFiles: [String]
        /// What `PRAGMA quick_check` said of the database while it was
        /// copied: `["ok"]` for a sound one (also when not asked).
        var check = ["ok"]

        /// The state `db` sees (nothing staged yet).
        init(_ db: Database) throws {
            journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown"
            pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            schemaVersion = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            migrations = try MigrationsTable.records(db).map {
                BackupManifest.Migration(version: $0.version, name: $0.name, appliedAt: $0.appliedAt)
            }
            lockDuration = 0
            stagedFiles = []
        }
    }

    /// Takes the copy. In WAL mode `streamDatabase` archives the live
    /// database file: it gets an open descriptor, its status, and the
    /// length to archive. The other files are copied into `staging` (an
    /// existing, empty directory) with their names, permissions and times.
    /// With `checking`, a ``SourceCheck`` runs meanwhile, and its result is
    /// in the state.
    func run(
        into staging: String, checking: Bool = true, streamDatabase: (FileDescriptor, FileStatus, Int64) throws -> Void,
        progress: (Int64, Int64) -> Void
    ) throws -> State {
        // Declared first, so closed last: after the connections (step 5).
        var descriptors: [FileDescriptor] = []
        defer { for descriptor in descriptors { descriptor.close() } }
        let register = { (descriptor: FileDescriptor) in descriptors.append(descriptor) }
        if database.isReadOnlyPlace {
            return try staticCopy(checking: checking, streamDatabase: streamDatabase, register: register)
        }
        let reader = try database.openQueue()
        defer { try? reader.close() }
        let writer = try database.openQueue()
        defer { try? writer.close() }

        return try database.reportingErrors {
            var check: SourceCheck?
            var state = try reader.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN DEFERRED")
                defer { try? db.execute(sql: "ROLLBACK") }
                // Reading starts the transaction: its WAL read lock is taken now.
                let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                if checking { check = try SourceCheck(database: database) }
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" else {
                    try db.execute(sql: "ROLLBACK")  // a reader would block the locked copy's writers
                    return try lockedCopy(writer, of: [""] + DatabaseFiles.walSuffixes, into: staging, register: register, progress: progress)
                }
                let path = database.location.filePath
                guard let (descriptor, info) = try openSource(path, register: register) else {
                    throw DBToolError(.noInput, "no database at \(path)")
                }
                try streamDatabase(descriptor, info, min(info.size, Int64(pageCount) * Int64(pageSize)))
                return try lockedCopy(writer, of: DatabaseFiles.walSuffixes, into: staging, register: register, progress: progress)
            }
            if let check { state.check = try check.wait() }
            return state
        }
    }

    /// Where dbtool may not write (read-only media, a directory of another
    /// user), nobody else can write either through this directory: a
    /// database whose WAL is empty is read `immutable` (see
    /// ``DatabaseHandle/openForReading(readonly:)``) and its file streamed
    /// whole, with no lock; writers are never waited for.
    private func staticCopy(
        checking: Bool, streamDatabase: (FileDescriptor, FileStatus, Int64) throws -> Void, register: (FileDescriptor) -> Void
    ) throws -> State {
        let reader = try database.openForReading()
        defer { try? reader.close() }
        return try database.reportingErrors {
            try reader.read { db in
                var state = try State(db)
                let path = database.location.filePath
                guard let (descriptor, info) = try openSource(path, register: register) else {
                    throw DBToolError(.noInput, "no database at \(path)")
                }
                try streamDatabase(descriptor, info, info.size)
                if checking {
                    do {
                        state.check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
                        state.check = [error.message ?? "database disk image is malformed"]
                    }
                }
                return state
            }
        }
    }

    /// Copies the files named by `suffixes` (appended to the database's
    /// path; "" is the database file) into `staging`, under `BEGIN IMMEDIATE`
    /// on `writer`, and reads the state they hold.
    private func lockedCopy(
        _ writer: DatabaseQueue, of suffixes: [String], into staging: String, register: (FileDescriptor) -> Void,
        progress: (Int64, Int64) -> Void
    ) throws -> State {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let lockStart = DispatchTime.now()
            defer { try? db.execute(sql: "ROLLBACK") }

            var state = try State(db)

            var sources: [(name: String, descriptor: FileDescriptor, info: FileStatus)] = []
            for suffix in suffixes {
                let path = database.location.filePath + suffix
                if let (descriptor, info) = try openSource(path, register: register) {
                    sources.append((URL(fileURLWithPath: path).lastPathComponent, descriptor, info))
                }
            }
            let total = sources.reduce(Int64(0)) { $0 + $1.info.size }
            var done: Int64 = 0
            for source in sources {
                try Self.copy(source.descriptor, info: source.info, to: staging + "/" + source.name) { count in
                    done += count
                    progress(done, total)
                }
                state.stagedFiles.append(source.name)
            }
            state.lockDuration = Double(DispatchTime.now().uptimeNanoseconds - lockStart.uptimeNanoseconds) / 1e9
            return state
        }
    }

    /// Opens a file to copy, or returns nil when it does not exist (no WAL
    /// or SHM is fine). Never blocks on a FIFO planted there: anything but a
    /// regular file is refused (65). The descriptor is closed by
    /// ``run(into:checking:streamDatabase:progress:)``, last.
    private func openSource(_ path: String, register: (FileDescriptor) -> Void) throws -> (FileDescriptor, FileStatus)? {
        let descriptor: FileDescriptor
        do {
            guard let opened = try FileDescriptor.openIfExists(path, .readOnly, options: .nonBlocking) else { return nil }
            descriptor = opened
        } catch {
            throw error.reported(.noPermission, hint: "Run dbtool as a user who can read it.")
        }
        register(descriptor)
        let info: FileStatus
        do {
            info = try descriptor.status()
        } catch {
            throw error.reported(.ioError)
        }
        guard info.kind == .regular else { throw NotRegularFile(path: path, kind: info.kind) }
        try descriptor.setBlocking()
        return (descriptor, info)
    }

    /// Copies an open file into a new file at `path`, with the same
    /// permissions and times, in 64 MiB kernel copies.
    private static func copy(_ source: FileDescriptor, info: FileStatus, to path: String, copied: (Int64) -> Void) throws {
        let destination = try createNewFile(path)
        defer { destination.close() }
        var offset: Int64 = 0
        while offset < info.size {
            try Interruption.check()
            let count = try destination.copy(from: source, offset: &offset, count: Int(min(info.size - offset, 64 << 20)))
            if count == 0 { break }  // shorter than at fstat: nothing left to copy
            copied(Int64(count))
        }
        try destination.setPermissions(info.permissions)
        try destination.setTimes(access: info.accessTime, modification: info.modificationTime)
    }
}
