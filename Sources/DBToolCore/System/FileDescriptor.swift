#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor, in the style of swift-system's `FileDescriptor`:
/// a plain value that its owner closes with ``close()``. Every call retries
/// EINTR and throws a ``FileSystemError`` naming the path.
struct FileDescriptor {
    /// The descriptor number.
    let rawValue: Int32
    /// The path it was opened with, for messages.
    let path: String

    /// How the file is opened.
    enum AccessMode {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// Options of `open(2)`; `O_CLOEXEC` is always added.
    struct Options: OptionSet {
        let rawValue: Int32

        /// O_CREAT|O_EXCL: create the file, which must not exist.
        static let exclusiveCreate = Options(rawValue: O_CREAT | O_EXCL)
        /// O_NOFOLLOW: fail (ELOOP) on a symbolic link instead of following it.
        static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// O_NONBLOCK: never hang on a FIFO planted at the path.
        static let nonBlocking = Options(rawValue: O_NONBLOCK)
    }

    /// Opens `path`; `permissions` apply to a created file (the umask is
    /// overridden by ``createNew(_:permissions:)``, not here).
    static func open(
        _ path: String, _ access: AccessMode, options: Options = [], permissions: mode_t = 0o600
    ) throws(FileSystemError) -> FileDescriptor {
        let flags = access.flags | options.rawValue | O_CLOEXEC | O_NOCTTY
        let descriptor = retryingInterrupted { Glibc.open(path, flags, permissions) }
        guard descriptor >= 0 else {
            throw FileSystemError(operation: options.contains(.exclusiveCreate) ? .create : .open, path: path, errno: .current)
        }
        return FileDescriptor(rawValue: descriptor, path: path)
    }

    /// Opens `path` when it exists; nil when it does not (ENOENT).
    static func openIfExists(
        _ path: String, _ access: AccessMode, options: Options = []
    ) throws(FileSystemError) -> FileDescriptor? {
        do {
            return try open(path, access, options: options)
        } catch where error.errno == .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Creates a file that must not exist yet, private to the user (0600
    /// unless `permissions`), open for writing. Never through a symbolic
    /// link or over an existing file: in a directory others can write, a
    /// planted link could otherwise make dbtool write wherever it points.
    /// The permissions are set explicitly, whatever the umask.
    static func createNew(_ path: String, permissions: mode_t = 0o600) throws(FileSystemError) -> FileDescriptor {
        let descriptor = try open(path, .writeOnly, options: [.exclusiveCreate, .noFollow], permissions: permissions)
        do {
            try descriptor.setPermissions(permissions)
        } catch {
            descriptor.close()
            unlink(path)
            throw error
        }
        return descriptor
    }

    /// Closes the descriptor. A close error is not reported: the data that
    /// matters was synced (``sync()``) before.
    func close() { _ = Glibc.close(rawValue) }

    /// Opens `path` for reading without blocking on a FIFO or a device
    /// found there (`O_NONBLOCK`), and refuses anything but a regular file
    /// (``NotRegularFile``) before a byte is read; links are followed.
    /// The descriptor is returned in blocking mode, with its status.
    static func openRegularFile(_ path: String) throws -> (FileDescriptor, FileStatus) {
        try open(path, .readOnly, options: .nonBlocking).requiringRegularFile()
    }

    /// This descriptor and its status when it is open on a regular file,
    /// switched back to blocking reads; otherwise it is closed and
    /// ``NotRegularFile`` thrown.
    func requiringRegularFile() throws -> (FileDescriptor, FileStatus) {
        let info: FileStatus
        do {
            info = try status()
        } catch {
            close()
            throw error
        }
        guard info.kind == .regular else {
            close()
            throw NotRegularFile(path: path, kind: info.kind)
        }
        try setBlocking()
        return (self, info)
    }

    /// Clears `O_NONBLOCK`: reads wait for data again (interrupted by
    /// SIGINT and SIGTERM, see ``Interruption``).
    func setBlocking() throws(FileSystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0, fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            throw FileSystemError(operation: .open, path: path, errno: .current)
        }
    }

    /// The standard input.
    static let standardInput = FileDescriptor(rawValue: 0, path: "the standard input")

    /// Reads up to `buffer.count` bytes at the current offset; returns how
    /// many (0 at the end of the file).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        let count = retryingInterrupted { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw FileSystemError(operation: .read, path: path, errno: .current) }
        return count
    }

    /// Reads from the current offset to the end of the file (or stream),
    /// stopping once more than `limit` bytes were read (a device such as
    /// `/dev/zero` has no end).
    func readToEnd(limit: Int = Int.max) throws(FileSystemError) -> [UInt8] {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let count = try read(into: chunk)
            if count == 0 { return bytes }
            bytes += chunk.prefix(count)
        }
        return bytes
    }

    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    func read(fromAbsoluteOffset offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        let read = try read(fromAbsoluteOffset: offset, into: buffer)
        return Array(buffer.prefix(read))
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many (0 at
    /// the end of the file).
    func read(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        let count = retryingInterrupted { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
        guard count >= 0 else { throw FileSystemError(operation: .read, path: path, errno: .current) }
        return count
    }

    /// Writes all of `bytes`.
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = retryingInterrupted { Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
            guard written > 0 else { throw FileSystemError(operation: .write, path: path, errno: .current) }
            offset += written
        }
    }

    /// Writes all of `bytes`.
    func writeAll(_ bytes: [UInt8]) throws(FileSystemError) {
        var result: Result<Void, FileSystemError> = .success(())
        bytes.withUnsafeBytes { buffer in result = Result { () throws(FileSystemError) in try writeAll(buffer) } }
        try result.get()
    }

    /// Writes all of `bytes` at `offset`.
    func writeAll(toAbsoluteOffset offset: Int64, _ bytes: [UInt8]) throws(FileSystemError) {
        var result: Result<Void, FileSystemError> = .success(())
        bytes.withUnsafeBytes { buffer in result = Result { () throws(FileSystemError) in try writeAll(toAbsoluteOffset: offset, buffer) } }
        try result.get()
    }

    /// Writes all of `bytes` at `offset`.
    func writeAll(toAbsoluteOffset offset: Int64, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        var done = 0
        while done < bytes.count {
            let written = retryingInterrupted {
                pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            guard written > 0 else { throw FileSystemError(operation: .write, path: path, errno: .current) }
            done += written
        }
    }

    /// Copies up to `count` bytes of `source` from `offset` (advanced) into
    /// this file, in the kernel (`sendfile(2)`); returns how many (0 at the
    /// end of the source).
    func copy(from source: FileDescriptor, offset: inout Int64, count: Int) throws(FileSystemError) -> Int {
        var position = off_t(offset)
        let copied = retryingInterrupted { sendfile(rawValue, source.rawValue, &position, count) }
        guard copied >= 0 else { throw FileSystemError(operation: .copy, path: path, errno: .current) }
        offset = Int64(position)
        return copied
    }

    /// Flushes the file's data and metadata to the disk (`fsync(2)`).
    func sync() throws(FileSystemError) {
        guard retryingInterrupted({ fsync(rawValue) }) == 0 else {
            throw FileSystemError(operation: .sync, path: path, errno: .current)
        }
    }

    /// `fstat(2)`.
    func status() throws(FileSystemError) -> FileStatus {
        var raw = stat()
        guard fstat(rawValue, &raw) == 0 else { throw FileSystemError(operation: .inspect, path: path, errno: .current) }
        return FileStatus(raw)
    }

    /// Sets the permission bits, whatever the umask.
    func setPermissions(_ permissions: mode_t) throws(FileSystemError) {
        guard fchmod(rawValue, permissions & 0o777) == 0 else {
            throw FileSystemError(operation: .setPermissions, path: path, errno: .current)
        }
    }

    /// Sets the access and modification times.
    func setTimes(access: timespec, modification: timespec) throws(FileSystemError) {
        var times = [access, modification]
        guard futimens(rawValue, &times) == 0 else { throw FileSystemError(operation: .setTimes, path: path, errno: .current) }
    }

    /// Truncates (or extends) the file to `size` bytes.
    func resize(to size: Int64) throws(FileSystemError) {
        guard retryingInterrupted({ ftruncate(rawValue, off_t(size)) }) == 0 else {
            throw FileSystemError(operation: .truncate, path: path, errno: .current)
        }
    }

    /// Takes the `flock(2)` exclusive lock without waiting: false when
    /// another open file description holds it.
    func tryLockExclusively() throws(FileSystemError) -> Bool {
        if retryingInterrupted({ flock(rawValue, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if Errno.current == .wouldBlock { return false }
        throw FileSystemError(operation: .lock, path: path, errno: .current)
    }

    /// Releases the `flock(2)` lock.
    func unlock() { _ = flock(rawValue, LOCK_UN) }

    /// Takes a POSIX write lock (`fcntl F_SETLK`) on a byte range without
    /// waiting: false when another process holds a conflicting lock. Such
    /// locks belong to the process: closing any descriptor of the file in
    /// this process drops them.
    func tryPOSIXWriteLock(offset: Int64, length: Int64) -> Bool {
        var lock = rangeLock(offset: offset, length: length)
        return retryingInterrupted { fcntl(rawValue, F_SETLK, &lock) } == 0
    }

    /// Releases the POSIX locks this process holds on the byte range.
    func unlockPOSIX(offset: Int64, length: Int64) {
        var lock = rangeLock(offset: offset, length: length)
        lock.l_type = Int16(F_UNLCK)
        _ = fcntl(rawValue, F_SETLK, &lock)
    }

    /// Whether another process holds a lock on the byte range that would
    /// conflict with a write lock (`fcntl F_GETLK`: nothing is locked).
    func hasConflictingPOSIXLock(offset: Int64, length: Int64) -> Bool {
        var lock = rangeLock(offset: offset, length: length)
        guard fcntl(rawValue, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    private func rangeLock(offset: Int64, length: Int64) -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = off_t(length)
        return lock
    }
}
