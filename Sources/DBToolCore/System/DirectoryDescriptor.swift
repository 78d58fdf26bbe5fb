#if canImport(Glibc)
    import Glibc
#endif

/// An open directory, through which dbtool reaches what is inside it by
/// name (`openat`, `mkdirat`, `renameat`, `unlinkat`, `fstatat`), never by
/// path: a component swapped for a symbolic link after it was checked
/// (`DIR/snapshots -> /etc`) is never followed, because every name is
/// opened with `O_NOFOLLOW`, and directories with `O_DIRECTORY`.
///
/// A plain value that its owner closes with ``close()``, as
/// ``FileDescriptor``. Names are single components: a name with a `/`, an
/// empty name, `.` and `..` are refused (`EINVAL`), so that nothing
/// escapes the directory.
struct DirectoryDescriptor {
    /// The descriptor number.
    let rawValue: Int32
    /// The directory's path, for messages.
    let path: String

    /// Opens the directory at `path`. Links in `path` are followed unless
    /// `followingLinks` is false, in which case a link as its last
    /// component fails with `ELOOP` (or `ENOTDIR`).
    static func open(_ path: String, followingLinks: Bool = true) throws(FileSystemError) -> DirectoryDescriptor {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW)
        let descriptor = retryingInterrupted { Glibc.open(path, flags) }
        guard descriptor >= 0 else { throw FileSystemError(operation: .openDirectory, path: path, errno: .current) }
        return DirectoryDescriptor(rawValue: descriptor, path: path)
    }

    /// Closes the descriptor.
    func close() { _ = Glibc.close(rawValue) }

    /// The path of `name` inside this directory, for messages.
    func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    private func checked(_ name: String, _ operation: FileOperation) throws(FileSystemError) -> String {
        guard Self.isPlainName(name) else { throw FileSystemError(operation: operation, path: path(of: name), errno: Errno(EINVAL)) }
        return name
    }

    /// True for one path component: not empty, no `/`, not `.` or `..`.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }

    /// Opens the subdirectory `name`; a link there fails (`ELOOP` or `ENOTDIR`).
    func openDirectory(_ name: String) throws(FileSystemError) -> DirectoryDescriptor {
        let name = try checked(name, .openDirectory)
        let descriptor = retryingInterrupted { openat(rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { throw FileSystemError(operation: .openDirectory, path: path(of: name), errno: .current) }
        return DirectoryDescriptor(rawValue: descriptor, path: path(of: name))
    }

    /// Opens the subdirectory `name`, creating it (with exactly
    /// `permissions`) when it does not exist; a link or a file there fails.
    func openOrCreateDirectory(_ name: String, permissions: mode_t = 0o700) throws(FileSystemError) -> DirectoryDescriptor {
        do {
            try createDirectory(name, permissions: permissions)
        } catch where error.errno == .fileExists {
            // There already: opened below, without following a link.
        }
        return try openDirectory(name)
    }

    /// Creates the subdirectory `name` with exactly `permissions`, whatever
    /// the umask (set by descriptor once created).
    func createDirectory(_ name: String, permissions: mode_t = 0o700) throws(FileSystemError) {
        let name = try checked(name, .createDirectory)
        guard mkdirat(rawValue, name, 0o700) == 0 else {
            throw FileSystemError(operation: .createDirectory, path: path(of: name), errno: .current)
        }
        if permissions & 0o7777 != 0o700 {
            let created = try openDirectory(name)
            defer { created.close() }
            try created.setPermissions(permissions)
        }
    }

    /// Opens the file `name` (never through a link, `O_NOFOLLOW`).
    func openFile(_ name: String, _ access: FileDescriptor.AccessMode, options: FileDescriptor.Options = []) throws(FileSystemError)
        -> FileDescriptor
    {
        let name = try checked(name, .open)
        let flags = access.flags | options.rawValue | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY
        let descriptor = retryingInterrupted { openat(rawValue, name, flags, 0o600) }
        guard descriptor >= 0 else { throw FileSystemError(operation: .open, path: path(of: name), errno: .current) }
        return FileDescriptor(rawValue: descriptor, path: path(of: name))
    }

    /// Opens the regular file `name` for reading: never through a link, and
    /// without blocking on a FIFO or a device planted there, which are
    /// refused (a ``NotRegularFile`` error) before anything is read.
    func openRegularFile(_ name: String) throws -> (FileDescriptor, FileStatus) {
        let descriptor = try openFile(name, .readOnly, options: .nonBlocking)
        return try descriptor.requiringRegularFile()
    }

    /// Creates the file `name`, which must not exist, with exactly
    /// `permissions` whatever the umask, open for writing.
    func createFile(_ name: String, permissions: mode_t = 0o600) throws(FileSystemError) -> FileDescriptor {
        let name = try checked(name, .create)
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let descriptor = retryingInterrupted { openat(rawValue, name, flags, 0o600) }
        guard descriptor >= 0 else { throw FileSystemError(operation: .create, path: path(of: name), errno: .current) }
        let file = FileDescriptor(rawValue: descriptor, path: path(of: name))
        if permissions & 0o7777 != 0o600 {
            do {
                try file.setPermissions(permissions)
            } catch {
                file.close()
                _ = unlinkat(rawValue, name, 0)
                throw error
            }
        }
        return file
    }

    /// `fstatat` without following a link; nil when nothing has that name.
    func status(of name: String) throws(FileSystemError) -> FileStatus? {
        let name = try checked(name, .inspect)
        var raw = stat()
        guard fstatat(rawValue, name, &raw, AT_SYMLINK_NOFOLLOW) == 0 else {
            if Errno.current == .noSuchFileOrDirectory { return nil }
            throw FileSystemError(operation: .inspect, path: path(of: name), errno: .current)
        }
        return FileStatus(raw)
    }

    /// The directory's own status.
    func status() throws(FileSystemError) -> FileStatus {
        var raw = stat()
        guard fstat(rawValue, &raw) == 0 else { throw FileSystemError(operation: .inspect, path: path, errno: .current) }
        return FileStatus(raw)
    }

    /// Renames `name` to `newName` in `destination` (`renameat`): a link at
    /// either name is moved or replaced itself, never followed.
    func rename(_ name: String, to destination: DirectoryDescriptor, as newName: String) throws(FileSystemError) {
        let name = try checked(name, .moveSource)
        let newName = try destination.checked(newName, .moveDestination)
        guard renameat(rawValue, name, destination.rawValue, newName) == 0 else {
            throw FileSystemError(operation: .move(from: path(of: name)), path: destination.path(of: newName), errno: .current)
        }
    }

    /// Gives the file `name` a second name, `newName`, in this directory
    /// (`linkat`, not following a link): fails with `EEXIST` when `newName`
    /// exists, so that a file appears under `newName` whole, once, whoever
    /// races to create it.
    func link(_ name: String, as newName: String) throws(FileSystemError) {
        let name = try checked(name, .link)
        let newName = try checked(newName, .linkDestination)
        guard linkat(rawValue, name, rawValue, newName, 0) == 0 else {
            throw FileSystemError(operation: .create, path: path(of: newName), errno: .current)
        }
    }

    /// Removes the file (or link) `name`; false when it was not there.
    @discardableResult
    func removeFile(_ name: String) throws(FileSystemError) -> Bool {
        let name = try checked(name, .remove)
        if unlinkat(rawValue, name, 0) == 0 { return true }
        if Errno.current == .noSuchFileOrDirectory { return false }
        throw FileSystemError(operation: .remove, path: path(of: name), errno: .current)
    }

    /// Removes the empty directory `name`.
    func removeEmptyDirectory(_ name: String) throws(FileSystemError) {
        let name = try checked(name, .remove)
        guard unlinkat(rawValue, name, AT_REMOVEDIR) == 0 else {
            throw FileSystemError(operation: .remove, path: path(of: name), errno: .current)
        }
    }

    /// Removes `name` and, if it is a directory, everything inside it,
    /// without following any link (a link is removed, not its target).
    /// Errors are ignored: for dbtool's own temporaries.
    func removeTree(_ name: String) {
        guard Self.isPlainName(name), let info = (try? status(of: name)) ?? nil else { return }
        guard info.kind == .directory else {
            _ = unlinkat(rawValue, name, 0)
            return
        }
        if let child = try? openDirectory(name) {
            for entry in (try? child.entries()) ?? [] { child.removeTree(rawName: entry.rawName) }
            child.close()
        }
        _ = unlinkat(rawValue, name, AT_REMOVEDIR)
    }

    /// ``removeTree(_:)`` for a name that may not be UTF-8.
    private func removeTree(rawName: [UInt8]) {
        var raw = stat()
        let isDirectory = rawName.withCString { fstatat(rawValue, $0, &raw, AT_SYMLINK_NOFOLLOW) == 0 } && raw.st_mode & S_IFMT == S_IFDIR
        guard isDirectory else {
            _ = rawName.withCString { unlinkat(rawValue, $0, 0) }
            return
        }
        let descriptor = rawName.withCString { openat(rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if descriptor >= 0 {
            let child = DirectoryDescriptor(rawValue: descriptor, path: path)
            for entry in (try? child.entries()) ?? [] { child.removeTree(rawName: entry.rawName) }
            child.close()
        }
        _ = rawName.withCString { unlinkat(rawValue, $0, AT_REMOVEDIR) }
    }

    /// An entry of a directory listing.
    struct Entry {
        /// The name's bytes, as the file system holds them.
        var rawName: [UInt8]
        /// The name, or nil when its bytes are not UTF-8 (such a name can
        /// not be carried by a Swift string without changing it).
        var name: String? { String(validating: rawName, as: UTF8.self) }
        /// The name for messages: invalid bytes as `\xHH`.
        var displayName: String { escapedFileName(rawName) }
    }

    /// The entries, without `.` and `..`, sorted by their bytes.
    func entries() throws(FileSystemError) -> [Entry] {
        // fdopendir takes the descriptor over: give it a copy.
        let copy = dup(rawValue)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let failure = Errno.current
            if copy >= 0 { _ = Glibc.close(copy) }
            throw FileSystemError(operation: .list, path: path, errno: failure)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            entries.append(Entry(rawName: name))
        }
        return entries.sorted { $0.rawName.lexicographicallyPrecedes($1.rawName) }
    }

    /// Sets the permission bits, whatever the umask.
    func setPermissions(_ permissions: mode_t) throws(FileSystemError) {
        guard fchmod(rawValue, permissions & 0o7777) == 0 else {
            throw FileSystemError(operation: .setPermissions, path: path, errno: .current)
        }
    }

    /// Sets the times of the entry `name` (not following a link).
    func setTimes(of name: String, seconds: Int) throws(FileSystemError) {
        let name = try checked(name, .setTimes)
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        guard utimensat(rawValue, name, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileSystemError(operation: .setTimes, path: path(of: name), errno: .current)
        }
    }

    /// Flushes the directory's entries to the disk (a rename or a creation in it).
    func sync() throws(FileSystemError) {
        guard retryingInterrupted({ fsync(rawValue) }) == 0 else { throw FileSystemError(operation: .sync, path: path, errno: .current) }
    }

    /// Flushes every file of the directory's file system to the disk
    /// (`syncfs(2)`): one call instead of one `fsync` per file.
    func syncFileSystem() throws(FileSystemError) {
        guard retryingInterrupted({ syncfs(rawValue) }) == 0 else { throw FileSystemError(operation: .sync, path: path, errno: .current) }
    }
}

/// glibc's `syncfs(2)`, which its module map hides behind `_GNU_SOURCE`.
@_silgen_name("syncfs")
private func syncfs(_ descriptor: Int32) -> Int32

extension Array where Element == UInt8 {
    /// Calls `body` with the bytes as a NUL-terminated C string.
    fileprivate func withCString<T>(_ body: (UnsafePointer<CChar>) -> T) -> T {
        (self + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

/// A file name for messages: its UTF-8 text, with control characters and
/// bytes that are not UTF-8 written `\xHH`, as `ls -b` does.
func escapedFileName(_ bytes: [UInt8]) -> String {
    if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: isControl) { return text }
    var result = ""
    var index = 0
    while index < bytes.count {
        // The longest valid UTF-8 sequence starting here, if any.
        var decoded: String?
        for length in (1...4).reversed() where index + length <= bytes.count {
            if let text = String(validating: bytes[index..<(index + length)], as: UTF8.self), text.unicodeScalars.count == 1 {
                decoded = text
                index += length
                break
            }
        }
        if let decoded, let scalar = decoded.unicodeScalars.first, !isControl(scalar) {
            result += decoded
        } else if let decoded, let scalar = decoded.unicodeScalars.first {
            result += scalar.value < 0x100 ? "\\x" + hexByte(UInt8(scalar.value)) : decoded
        } else {
            result += "\\x" + hexByte(bytes[index])
            index += 1
        }
    }
    return result
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}
