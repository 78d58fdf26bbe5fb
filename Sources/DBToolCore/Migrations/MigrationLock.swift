import Foundation

/// An exclusive lock for one `dbtool migrate` run at a time on a database:
/// `flock` on a lock file in the database's directory (never on the
/// database, WAL or SHM files: closing a descriptor on those would drop
/// SQLite's own POSIX locks). The holder writes its pid into the file, so
/// that a waiting run can name it.
final class MigrationLock {
    private let descriptor: Int32

    /// Waits up to `timeout` for the lock.
    ///
    /// - throws: ``DBToolError`` 75 past the timeout, naming the holder's pid.
    init(directory: String, timeout: TimeInterval) throws {
        let path = directory + "/.dbtool-migrate.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DBToolError(
                .cantCreate, "can not create the lock file \(path): \(String(cString: strerror(errno)))",
                hint: "Check the permissions of \(directory).")
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = pread(descriptor, &buffer, 32, 0)
                let holder =
                    count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
                close(descriptor)
                throw DBToolError(
                    .tempFail,
                    "another `dbtool migrate` (pid \(holder.isEmpty ? "unknown" : holder)) is migrating the database in \(directory)",
                    hint: "Retry later, or wait longer with --timeout SECONDS.")
            }
            usleep(20_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
