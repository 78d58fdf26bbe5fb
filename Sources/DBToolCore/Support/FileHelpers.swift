import Foundation

/// The size of a file, 0 when it does not exist.
func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

/// Removes a database file and its companions (WAL, SHM, journal).
func removeDatabaseFiles(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// fsync(2) of a file or directory.
func fsyncPath(_ path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw DBToolError(.ioError, "can not open \(path) to sync it: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else {
        throw DBToolError(.ioError, "can not sync \(path) to disk: \(String(cString: strerror(errno)))")
    }
}

/// Renames a complete, synced temp file (or directory) to its final name and
/// syncs the directory, so that the final name appears whole or not at all.
func publish(_ temp: String, as destination: String, what: String) throws {
    guard rename(temp, destination) == 0 else {
        let code = errno
        throw DBToolError(.cantCreate, "can not move \(what) to \(destination): \(String(cString: strerror(code)))")
    }
    try fsyncPath(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
}

/// The name of a temp file or directory for this process: `<prefix><pid>-<name>`.
/// ``removeStaleTempFiles(in:prefix:)`` recognizes it by the prefix and pid.
func tempName(prefix: String, for name: String) -> String {
    "\(prefix)\(getpid())-\(name)"
}

/// Removes the temp files and directories named by ``tempName(prefix:for:)``
/// whose process is gone (a run killed by SIGKILL or a crash).
func removeStaleTempFiles(in directory: String, prefix: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names where name.hasPrefix(prefix) {
        let pidText = name.dropFirst(prefix.count).prefix { $0.isNumber }
        if let pid = pid_t(pidText), pid != getpid(), kill(pid, 0) != 0 && errno == ESRCH {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}

/// Whether `path` is a directory.
func isDirectory(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
}

/// The message of the current `errno`.
func systemError() -> String { String(cString: strerror(errno)) }

/// The exit status of a failed write: 74 when the disk is full or failing
/// (ENOSPC, EDQUOT, EFBIG past a file-size limit, EIO), 73 otherwise.
func writeFailureStatus(_ code: Int32) -> ExitStatus {
    [ENOSPC, EDQUOT, EFBIG, EIO].contains(code) ? .ioError : .cantCreate
}

/// Creates a file that must not exist yet, private to the user (0600 unless
/// `mode`), and returns its descriptor open for writing. Never through a
/// symbolic link or over an existing file: in a directory others can write,
/// a planted link could otherwise make dbtool write wherever it points. The
/// mode is set explicitly, whatever the umask.
func createNewFile(_ path: String, mode: mode_t = 0o600, what: String = "") throws -> Int32 {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard descriptor >= 0 else {
        let code = errno
        let reason = code == EEXIST ? "it already exists" : String(cString: strerror(code))
        throw DBToolError(writeFailureStatus(code), "can not create \(what.isEmpty ? "" : what + " ")\(path): \(reason)")
    }
    guard fchmod(descriptor, mode) == 0 else {
        let reason = systemError()
        close(descriptor)
        unlink(path)
        throw DBToolError(.cantCreate, "can not set the permissions of \(path): \(reason)")
    }
    return descriptor
}

/// Writes a small file whole: into a new private temp file beside it, synced,
/// then renamed over `path` (which replaces a link there, never its target).
func writeSmallFile(_ path: String, contents: String, mode: mode_t = 0o600) throws {
    let url = URL(fileURLWithPath: path)
    let temp = url.deletingLastPathComponent().path + "/" + tempName(prefix: ".dbtool-write-", for: url.lastPathComponent)
    let descriptor = try createNewFile(temp, mode: mode)
    var keep = false
    defer {
        close(descriptor)
        if !keep { unlink(temp) }
    }
    let bytes = Array(contents.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { throw DBToolError(writeFailureStatus(errno), "can not write \(path): \(systemError())") }
        offset += written
    }
    guard fsync(descriptor) == 0 else { throw DBToolError(writeFailureStatus(errno), "can not write \(path): \(systemError())") }
    try publish(temp, as: path, what: url.lastPathComponent)
    keep = true
}

/// Creates a directory private to the user (0700 unless `mode`), whatever
/// the umask; an existing directory is left as it is.
func createPrivateDirectory(_ path: String, mode: mode_t = 0o700) throws {
    if mkdir(path, mode) == 0 {
        guard chmod(path, mode) == 0 else { throw DBToolError(.cantCreate, "can not set the permissions of \(path): \(systemError())") }
        return
    }
    let code = errno
    if code == EEXIST && isDirectory(path) { return }
    throw DBToolError(
        code == EACCES || code == EPERM ? .noPermission : .cantCreate,
        "can not create the directory \(path): \(code == EEXIST ? "a file of that name exists" : String(cString: strerror(code)))")
}

/// Makes sure an `--output-dir` exists: a missing one is created private
/// (0700), when its parent exists (a typo deep in a path is reported rather
/// than created).
func createOutputDirectory(_ path: String) throws {
    if isDirectory(path) { return }
    let parent = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
    guard isDirectory(parent) else {
        throw DBToolError(
            .cantCreate, "the output directory \(path) does not exist, nor its parent \(parent)", hint: "Create it first (mkdir -p).")
    }
    try createPrivateDirectory(path)
}

/// Creates the missing directories of `path`, private (0700), parents first.
func createMissingDirectories(_ path: String) throws {
    var missing: [String] = []
    var current = URL(fileURLWithPath: path).standardizedFileURL
    while !FileManager.default.fileExists(atPath: current.path) && current.path != "/" {
        missing.append(current.path)
        current = current.deletingLastPathComponent()
    }
    for directory in missing.reversed() { try createPrivateDirectory(directory) }
}
