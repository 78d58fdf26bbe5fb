import FoundationEssentials

/// Proof that no other process uses a database file, held while its files
/// are replaced (`dbtool restore`).
///
/// Replacing the files of a database that an application has open loses
/// data silently: the application keeps its descriptors on the old files and
/// commits into them. Three signs of use are checked:
///
/// - SQLite's own locks: the exclusion takes SQLite's EXCLUSIVE lock by hand
///   (a POSIX write lock on the pending, reserved and shared bytes of the
///   database file, <https://www.sqlite.org/lockingv3.html>), which fails
///   while any connection reads or writes, and while any connection in WAL
///   mode is open (it keeps a shared lock). Held, it makes every connection
///   that starts meanwhile wait.
/// - The WAL index: every connection that maps the `-shm` file holds a read
///   lock on its dead-man-switch byte (offset 128 in SQLite's unix VFS).
/// - Open descriptors: any other process with the database, WAL, SHM or
///   journal open (`/proc/PID/fd`). This sees the idle connections of a
///   rollback-journal database, which hold no lock; it sees the processes of
///   other users only when dbtool runs as root.
///
/// The lock is a POSIX lock: closing any descriptor of the file in this
/// process would drop it, so nothing else in the process opens the file
/// while the exclusion is held.
final class DatabaseExclusion {
    /// The database files, as SQLite opens them.
    let paths: [String]
    /// What is checked, for messages.
    let subject: String
    private let descriptors: [FileDescriptor]
    private let watched: Set<FileStatus.Identity>

    /// SQLite's lock bytes: PENDING_BYTE (1 GiB), then RESERVED, then the
    /// 510 SHARED bytes.
    private static let lockOffset: Int64 = 0x4000_0000
    private static let lockLength: Int64 = 512
    /// The dead-man-switch byte of the `-shm` file.
    private static let shmDeadManSwitch: Int64 = 128

    /// The identity of the regular file at `path` (not followed if a link);
    /// nil when there is none.
    static func regularFile(at path: String) -> FileStatus.Identity? {
        guard let info = (try? FileSystem.status(path, followingLinks: false)) ?? nil, info.kind == .regular else { return nil }
        return info.identity
    }

    /// Takes the exclusion of one database file.
    convenience init(database path: String) throws {
        try self.init(databases: [path], otherFiles: [], subject: "the database \(path)")
    }

    /// Takes the exclusion of every database of `directory` (see
    /// ``DirectoryDatabases``), and watches every file in it.
    convenience init(everyDatabaseOf directory: DirectoryDatabases, in path: String) throws {
        try self.init(databases: directory.databases.map(\.resolvedPath), otherFiles: directory.identities, subject: path)
    }

    /// Takes the exclusion of `databases` (files SQLite opens), and watches
    /// them, their companions and `otherFiles` for processes that have them
    /// open; throws 75 naming what uses one of them. `subject` names what
    /// is checked, in messages (`the database DIR/db.sqlite`, `DIR`).
    init(databases: [String], otherFiles: Set<FileStatus.Identity>, subject: String) throws {
        self.subject = subject
        var descriptors: [FileDescriptor] = []
        func releaseAll() { for descriptor in descriptors { descriptor.close() } }
        for path in databases {
            let descriptor: FileDescriptor
            do {
                descriptor = try FileDescriptor.open(path, .readWrite, options: [.noFollow, .nonBlocking])
            } catch {
                releaseAll()
                throw DBToolError(
                    error.errno.isPermissionDenied ? .noPermission : .cantCreate,
                    "can not open the database \(path) to check that nothing uses it: \(error.errno)")
            }
            descriptors.append(descriptor)
            guard descriptor.tryPOSIXWriteLock(offset: Self.lockOffset, length: Self.lockLength) else {
                releaseAll()
                throw Self.inUse("the database \(path)", by: "a SQLite connection holds a lock on it")
            }
            if Self.hasWALIndexUsers(path + "-shm") {
                releaseAll()
                throw Self.inUse("the database \(path)", by: "a SQLite connection has its WAL index (-shm) open")
            }
        }
        self.paths = databases
        self.descriptors = descriptors
        watched = otherFiles.union(databases.flatMap { path in DatabaseFiles.suffixes.compactMap { Self.regularFile(at: path + $0) } })
        let users = Self.processes(using: watched)
        if !users.isEmpty {
            release()
            throw Self.inUse(subject, by: Self.describe(users))
        }
    }

    /// The processes that opened the watched files since the exclusion was
    /// taken (they wait for its lock): nil when nobody did.
    func latecomers() -> String? {
        let users = Self.processes(using: watched)
        return users.isEmpty ? nil : Self.describe(users)
    }

    private var isReleased = false

    /// Drops the locks (closing the descriptors drops them).
    func release() {
        guard !isReleased else { return }
        isReleased = true
        for descriptor in descriptors { descriptor.close() }
    }

    deinit { release() }

    /// The error for `subject` (`the database PATH`, a directory) in use.
    static func inUse(_ subject: String, by reason: String) -> DBToolError {
        DBToolError(
            .tempFail, "\(subject) is in use: \(reason); nothing was changed",
            hint:
                "Stop the application first, then retry; or pass --live to restore into the running database in place (its connections see the restored content, nothing is lost)."
        )
    }

    /// Whether a connection holds the read lock every user of the WAL index
    /// keeps on its dead-man-switch byte. F_GETLK only asks: no lock is taken,
    /// and the descriptor is not one SQLite's locks live on in this process.
    private static func hasWALIndexUsers(_ shmPath: String) -> Bool {
        guard let descriptor = try? FileDescriptor.open(shmPath, .readOnly, options: [.noFollow, .nonBlocking]) else { return false }
        defer { descriptor.close() }
        return descriptor.hasConflictingPOSIXLock(offset: shmDeadManSwitch, length: 1)
    }

    /// The other processes with one of `files` open, as (pid, command name).
    /// Processes this user may not inspect are not seen.
    static func processes(using files: Set<FileStatus.Identity>) -> [(pid: Int32, command: String)] {
        guard !files.isEmpty, let entries = try? FileSystem.contentsOfDirectory("/proc") else { return [] }
        let me = SystemProcess.currentID
        var users: [(pid: Int32, command: String)] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            let fdDirectory = "/proc/\(entry)/fd"
            guard let descriptors = try? FileSystem.contentsOfDirectory(fdDirectory) else { continue }
            for name in descriptors {
                // Followed: the magic link leads to the open file itself.
                guard let info = (try? FileSystem.status(fdDirectory + "/" + name)) ?? nil, files.contains(info.identity) else {
                    continue
                }
                let command = (try? FileSystem.contents("/proc/\(entry)/comm"))
                    .map { String(decoding: $0, as: UTF8.self).trimmingWhitespace() } ?? "?"
                users.append((pid, command))
                break
            }
        }
        return users.sorted { $0.pid < $1.pid }
    }

    private static func describe(_ users: [(pid: Int32, command: String)]) -> String {
        let listed = users.prefix(5).map { "pid \($0.pid) (\($0.command))" }.joined(separator: ", ")
        return "open in \(listed)\(users.count > 5 ? " and \(users.count - 5) more" : "")"
    }
}
