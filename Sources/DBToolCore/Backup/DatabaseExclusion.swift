import Foundation

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
    /// The database file.
    let path: String
    private let descriptor: Int32
    private let watched: [FileIdentity]

    /// SQLite's lock bytes: PENDING_BYTE (1 GiB), then RESERVED, then the
    /// 510 SHARED bytes.
    private static let lockOffset: off_t = 0x4000_0000
    private static let lockLength: off_t = 512
    /// The dead-man-switch byte of the `-shm` file.
    private static let shmDeadManSwitch: off_t = 128

    /// A file's device and inode, which outlive renames.
    struct FileIdentity: Hashable {
        var device: UInt
        var inode: UInt

        init?(path: String) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            self.init(info)
        }

        init(_ info: stat) {
            device = UInt(info.st_dev)
            inode = UInt(info.st_ino)
        }
    }

    /// Takes the exclusion, or throws 75 naming what uses the database.
    init(database path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DBToolError(.noPermission, "can not open the database \(path) to check that nothing uses it: \(systemError())")
        }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = Self.lockOffset
        lock.l_len = Self.lockLength
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else {
            close(descriptor)
            throw Self.inUse(path, by: "a SQLite connection holds a lock on it")
        }
        self.descriptor = descriptor
        watched = ["", "-wal", "-shm", "-journal"].compactMap { FileIdentity(path: path + $0) }
        if Self.hasWALIndexUsers(path + "-shm") {
            release()
            throw Self.inUse(path, by: "a SQLite connection has its WAL index (-shm) open")
        }
        let users = Self.processes(using: Set(watched))
        if !users.isEmpty {
            release()
            throw Self.inUse(path, by: Self.describe(users))
        }
    }

    /// The processes that opened the database's files since the exclusion
    /// was taken (they wait for its lock): empty when nobody did.
    func latecomers() -> String? {
        let users = Self.processes(using: Set(watched))
        return users.isEmpty ? nil : Self.describe(users)
    }

    private var isReleased = false

    /// Drops the lock (closing the descriptor drops it).
    func release() {
        guard !isReleased else { return }
        isReleased = true
        close(descriptor)
    }

    deinit { release() }

    static func inUse(_ path: String, by reason: String) -> DBToolError {
        DBToolError(
            .tempFail, "the database \(path) is in use: \(reason); nothing was changed",
            hint:
                "Stop the application first, then retry; or pass --live to restore into the running database in place (its connections see the restored content, nothing is lost)."
        )
    }

    /// Whether a connection holds the read lock every user of the WAL index
    /// keeps on its dead-man-switch byte. F_GETLK only asks: no lock is taken,
    /// and the descriptor is not one SQLite's locks live on in this process.
    private static func hasWALIndexUsers(_ shmPath: String) -> Bool {
        let descriptor = open(shmPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = shmDeadManSwitch
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// The other processes with one of `files` open, as (pid, command name).
    /// Processes this user may not inspect are not seen.
    static func processes(using files: Set<FileIdentity>) -> [(pid: Int32, command: String)] {
        guard !files.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let me = getpid()
        var users: [(pid: Int32, command: String)] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            let fdDirectory = "/proc/\(entry)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { continue }
            for name in descriptors {
                var info = stat()
                // stat follows the magic link to the open file itself.
                guard stat(fdDirectory + "/" + name, &info) == 0, files.contains(FileIdentity(info)) else { continue }
                let command = (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
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
