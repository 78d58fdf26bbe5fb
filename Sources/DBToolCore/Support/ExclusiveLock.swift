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
///
/// The directory may be writable by others (or the run may be root's, in a
/// directory an application user owns): the lock file is never opened
/// through a symbolic link, must be a regular file with one link, owned by
/// the user who runs dbtool and holding at most a pid, or it is refused
/// (73). Nothing else is ever truncated, written or removed.
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

    /// The longest content of a lock file: a pid and a newline.
    private static let maximumContentSize = 32

    /// Waits up to `timeout` for the lock (0: fail at once).
    ///
    /// - throws: ``DBToolError`` 75 past the timeout, naming the holder's
    ///   pid; 73 when the lock file can not be created, or is not one.
    init(directory: String, purpose: Purpose, timeout: TimeInterval) throws {
        let path = directory + "/" + purpose.fileName
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            guard let descriptor = try Self.openLockFile(path, directory: directory) else { continue }
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
                var buffer = [UInt8](repeating: 0, count: Self.maximumContentSize)
                let count = pread(descriptor, &buffer, Self.maximumContentSize, 0)
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

    /// Creates the lock file, or opens the one another dbtool run created;
    /// nil when it vanished in between (try again).
    private static func openLockFile(_ path: String, directory: String) throws -> Int32? {
        // O_NONBLOCK: opening a FIFO planted there must not hang the run.
        let flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        let created = open(path, flags | O_CREAT | O_EXCL, 0o600)
        if created >= 0 { return created }
        guard errno == EEXIST else {
            throw DBToolError(
                .cantCreate, "can not create the lock file \(path): \(systemError())", hint: "Check the permissions of \(directory).")
        }
        let descriptor = open(path, flags)
        if descriptor < 0 && errno == ENOENT { return nil }
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : systemError()
            throw notALockFile(path, reason: reason)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = systemError()
            close(descriptor)
            throw notALockFile(path, reason: reason)
        }
        if info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 0 {
            close(descriptor)  // removed by its holder since we opened it: try again
            return nil
        }
        let reason: String? =
            if info.st_mode & S_IFMT != S_IFREG {
                "it is not a regular file"
            } else if info.st_nlink > 1 {
                "it has \(info.st_nlink) hard links"
            } else if info.st_uid != geteuid() {
                "it belongs to user \(info.st_uid), not to the user running dbtool (\(geteuid()))"
            } else if info.st_size > maximumContentSize {
                "it holds \(info.st_size) bytes, more than a pid"
            } else {
                nil
            }
        if let reason {
            close(descriptor)
            throw notALockFile(path, reason: reason)
        }
        return descriptor
    }

    private static func notALockFile(_ path: String, reason: String) -> DBToolError {
        DBToolError(
            .cantCreate, "the lock file \(path) is not one dbtool created: \(reason); nothing was changed",
            hint: "Check who put it there; remove it once no dbtool runs on this database.")
    }

    /// Whether `path` still names the file open on `descriptor` (without
    /// following a link put in its place).
    private static func isLinked(_ descriptor: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && lstat(path, &named) == 0 && opened.st_dev == named.st_dev
            && opened.st_ino == named.st_ino
    }

    deinit {
        // While still locked (see the type's documentation), and only when
        // the path still names the file this run locked.
        if Self.isLinked(descriptor, at: path) { unlink(path) }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
