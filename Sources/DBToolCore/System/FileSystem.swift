import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The calls dbtool makes on paths (the descriptor calls are on
/// ``FileDescriptor``). This folder, System/, is the only place of
/// DBToolCore that calls the C library or `FileManager`. Each call throws a
/// ``FileSystemError`` naming the path.
enum FileSystem {
    /// `stat(2)` (`lstat(2)` unless `followingLinks`); nil when nothing is
    /// there (ENOENT, or ENOTDIR: a parent is a file).
    static func status(_ path: String, followingLinks: Bool = true) throws(FileSystemError) -> FileStatus? {
        var raw = stat()
        let result = followingLinks ? stat(path, &raw) : lstat(path, &raw)
        guard result == 0 else {
            if Errno.current == .noSuchFileOrDirectory || Errno.current == .notADirectory { return nil }
            throw FileSystemError(operation: .inspect, path: path, errno: .current)
        }
        return FileStatus(raw)
    }

    /// The absolute path with every link resolved (`realpath(3)`); nil when
    /// it leads nowhere, or through a name that is not UTF-8 (a string
    /// would not hold it as it is).
    static func resolvingLinks(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(validatingCString: resolved)
    }

    /// True when `pattern` is a glob: it holds `*`, `?` or `[`, and names
    /// no existing path as it is written.
    static func isPattern(_ pattern: String) -> Bool {
        pattern.contains { $0 == "*" || $0 == "?" || $0 == "[" } && !exists(pattern)
    }

    /// The paths `pattern` matches (`glob(3)`: `*`, `?`, `[...]`), sorted;
    /// a path that is no pattern (``isPattern(_:)``) is returned as it is.
    ///
    /// - throws: ``DBToolError`` 64 for a match whose name is not UTF-8:
    ///   it is refused rather than turned into another path.
    static func expand(_ pattern: String) throws -> [String] {
        guard isPattern(pattern) else { return [pattern] }
        var matches = glob_t()
        defer { globfree(&matches) }
        guard glob(pattern, 0, nil, &matches) == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(matches.gl_pathc) {
            guard let raw = matches.gl_pathv[index] else { continue }
            guard let path = String(validatingCString: raw) else {
                let bytes = Array(UnsafeBufferPointer(start: raw, count: strlen(raw))).map { UInt8(bitPattern: $0) }
                throw DBToolError(
                    .usage, "\(pattern) matches \(escapedFileName(bytes)), whose name is not UTF-8: dbtool would not address it as it is; nothing was done",
                    hint: "Rename it to a UTF-8 name, or narrow the pattern.")
            }
            paths.append(path)
        }
        return paths.sorted()
    }

    /// Whether `path` is a directory that is a mount point (a volume's root,
    /// a bind mount): it can not be renamed, nor receive a file renamed from
    /// another file system.
    static func isMountPoint(_ path: String) -> Bool {
        guard let info = (try? status(path, followingLinks: false)) ?? nil, info.kind == .directory else { return false }
        if let parent = (try? status(LocalPath.parent(of: path))) ?? nil, parent.identity.device != info.identity.device { return true }
        // A bind mount within one file system: only the mount table tells.
        guard let resolved = resolvingLinks(path), let table = try? contents("/proc/self/mountinfo") else { return false }
        for line in String(decoding: table, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 4 && unescapedMountPath(fields[4]) == resolved { return true }
        }
        return false
    }

    /// A mount point as the mount table writes it: space, tab, newline and
    /// backslash as octal escapes (`\040`).
    private static func unescapedMountPath(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether something is at `path` (following links).
    static func exists(_ path: String) -> Bool {
        (try? status(path)).flatMap { $0 } != nil
    }

    /// Whether `path` is a directory (following links).
    static func isDirectory(_ path: String) -> Bool {
        (try? status(path))??.kind == .directory
    }

    /// The size of a file, 0 when it does not exist.
    static func size(_ path: String) -> Int64 {
        (try? status(path))??.size ?? 0
    }

    /// Whether this process may look into the directory (`access(2)` with
    /// `X_OK`); nil when it does not exist or can not be asked about.
    static func isSearchable(_ path: String) -> Bool? {
        if access(path, X_OK) == 0 { return true }
        return Errno.current.isPermissionDenied ? false : nil
    }

    /// Whether this process may create files in the directory (`access(2)`).
    static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// Whether `path` is on a file system mounted read-only (`statvfs(3)`).
    static func isOnReadOnlyMedia(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// The names in a directory, sorted, without "." and "..", nor the
    /// names that are not UTF-8 (a string would not hold them as they are:
    /// ``DirectoryDescriptor/entries()`` has their bytes).
    static func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError(operation: .list, path: path, errno: .current) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            guard let name = withUnsafeBytes(of: entry.pointee.d_name, { String(validating: $0.prefix { $0 != 0 }, as: UTF8.self) }) else {
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The first `count` bytes of a file (fewer when it is shorter), or nil
    /// when it can not be read; a FIFO there is never waited on.
    static func prefix(_ path: String, count: Int) -> [UInt8]? {
        // Non-blocking: a FIFO in the file's place must not hang the open.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
        return read < 0 ? nil : Array(bytes.prefix(read))
    }

    /// The whole content of a regular file (a FIFO or a device there is
    /// refused, never waited on).

    static func contents(_ path: String) throws -> [UInt8] {
        let (descriptor, _) = try FileDescriptor.openRegularFile(path)
        defer { descriptor.close() }
        return try descriptor.readToEnd()
    }

    /// `rename(2)`: atomic within a file system; replaces a file (or an empty
    /// directory) at `destination`, and a link there, never its target.
    static func rename(_ source: String, to destination: String) throws(FileSystemError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw FileSystemError(operation: .move(from: source), path: destination, errno: .current)
        }
    }

    /// Removes a file (`unlink(2)`); false when it was not there.
    @discardableResult
    static func remove(_ path: String) throws(FileSystemError) -> Bool {
        if unlink(path) == 0 { return true }
        if Errno.current == .noSuchFileOrDirectory { return false }
        throw FileSystemError(operation: .remove, path: path, errno: .current)
    }

    /// Removes a file or a directory with its content, ignoring errors: for
    /// dbtool's own temp files and staging directories, which the next run
    /// removes if this one could not.
    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes an empty directory (`rmdir(2)`).
    static func removeEmptyDirectory(_ path: String) throws(FileSystemError) {
        guard rmdir(path) == 0 else { throw FileSystemError(operation: .remove, path: path, errno: .current) }
    }

    /// Creates a directory with exactly `permissions`, whatever the umask.
    static func createDirectory(_ path: String, permissions: mode_t = 0o700) throws(FileSystemError) {
        guard mkdir(path, permissions) == 0 else {
            throw FileSystemError(operation: .createDirectory, path: path, errno: .current)
        }
        try setPermissions(path, permissions)
    }

    /// `chmod(2)`.
    static func setPermissions(_ path: String, _ permissions: mode_t) throws(FileSystemError) {
        guard chmod(path, permissions & 0o777) == 0 else {
            throw FileSystemError(operation: .setPermissions, path: path, errno: .current)
        }
    }

    /// Sets the access and modification times to `seconds` since 1970.
    static func setTimes(_ path: String, seconds: Int) throws(FileSystemError) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw FileSystemError(operation: .setTimes, path: path, errno: .current)
        }
    }

    /// Sets the access and modification times to `date`, to the nanosecond.
    static func setTimes(_ path: String, date: Date) throws(FileSystemError) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
        var times = [time, time]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw FileSystemError(operation: .setTimes, path: path, errno: .current)
        }
    }

    /// Flushes a file or a directory (its entries: a rename in it) to the disk.
    static func sync(_ path: String) throws(FileSystemError) {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { descriptor.close() }
        try descriptor.sync()
    }
}

/// The processes dbtool asks about: itself, and those that may hold files.
enum SystemProcess {
    /// This process's id.
    static var currentID: Int32 { getpid() }

    /// The host's name (`gethostname(2)`).
    static let hostName: String = {
        var buffer = [UInt8](repeating: 0, count: 256)
        let named = buffer.withUnsafeMutableBytes { gethostname($0.baseAddress!.assumingMemoryBound(to: CChar.self), 255) } == 0
        return named ? String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self) : "unknown"
    }()

    /// The effective user of this process.
    static var effectiveUserID: uid_t { geteuid() }

    /// The effective user's home directory (`$HOME` is the caller's to
    /// read first), or nil when the user has no entry.
    static var homeDirectory: String? {
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// Where temporary files go: `$TMPDIR`, else `/tmp`, with a trailing
    /// slash (what Foundation's `NSTemporaryDirectory()` answers).
    static var temporaryDirectory: String {
        guard let directory = getenv("TMPDIR").map({ String(cString: $0) }), !directory.isEmpty else { return "/tmp/" }
        return directory.hasSuffix("/") ? directory : directory + "/"
    }

    /// The effective user's name, or its number when it has none.
    static var userName: String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "uid \(geteuid())" }
        return String(cString: name)
    }

    /// False only when no process `pid` exists (a process of another user
    /// that can not be signalled still exists).
    static func exists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || Errno.current != .noSuchProcess
    }
}

/// The standard streams, as the CLI asks about them.
public enum Terminal {
    /// Whether the descriptor (0, 1, 2) is a terminal: progress is shown
    /// only there.
    public static func isAttached(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}
