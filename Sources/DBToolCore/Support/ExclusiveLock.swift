import Foundation

/// An exclusive lock between dbtool processes: `flock` on a lock file in the
/// database's directory. Never on the database, WAL or SHM files: closing a
/// descriptor on those would drop SQLite's own POSIX locks. The holder
/// writes its pid into the file, so that a waiting run can name it.
///
/// The holder removes the file before unlocking it, so that no file is left
/// behind. A waiting run may then hold a lock on the removed file: it checks,
/// once locked, that the path still names the file it locked, and retries
/// otherwise.
final class ExclusiveLock {
    private let descriptor: Int32
    private let path: String

    /// What is locked, for messages: `dbtool migrate` is migrating, `dbtool backup` is backing up.
    struct Purpose {
        /// The lock file's name in the database's directory.
        var fileName: String
        /// The command that holds it, e.g. `dbtool migrate`.
        var command: String
        /// What the holder is doing, e.g. "is migrating".
        var activity: String

        static let migrate = Purpose(fileName: ".dbtool-migrate.lock", command: "dbtool migrate", activity: "is migrating")
        static let backup = Purpose(fileName: ".dbtool-backup.lock", command: "dbtool backup", activity: "is backing up")
    }

    /// Waits up to `timeout` for the lock (0: fail at once).
    ///
    /// - throws: ``DBToolError`` 75 past the timeout, naming the holder's pid.
    init(directory: String, purpose: Purpose, timeout: TimeInterval) throws {
        let path = directory + "/" + purpose.fileName
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw DBToolError(
                    .cantCreate, "can not create the lock file \(path): \(String(cString: strerror(errno)))",
                    hint: "Check the permissions of \(directory).")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                guard Self.isLinked(descriptor, at: path) else {
                    close(descriptor)  // removed by the holder we waited for: lock the new file
                    continue
                }
                let pid = Array("\(getpid())\n".utf8)
                _ = ftruncate(descriptor, 0)
                _ = pwrite(descriptor, pid, pid.count, 0)
                self.descriptor = descriptor
                self.path = path
                return
            }
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = pread(descriptor, &buffer, 32, 0)
                let holder =
                    count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
                close(descriptor)
                throw DBToolError(
                    .tempFail,
                    "another `\(purpose.command)` (pid \(holder.isEmpty ? "unknown" : holder)) \(purpose.activity) the database in \(directory)",
                    hint: timeout > 0 ? "Retry later, or wait longer with --timeout SECONDS." : "Retry when it has finished.")
            }
            close(descriptor)
            usleep(20_000)
        }
    }

    /// Whether `path` still names the file open on `descriptor`.
    private static func isLinked(_ descriptor: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && stat(path, &named) == 0 && opened.st_dev == named.st_dev
            && opened.st_ino == named.st_ino
    }

    deinit {
        unlink(path)  // while still locked: see the type's documentation
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
