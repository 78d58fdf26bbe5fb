import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Removes a database file and its companions (WAL, SHM, journal).
func removeDatabaseFiles(_ path: String) {
    for suffix in DatabaseFiles.suffixes { _ = try? FileSystem.remove(path + suffix) }
}

/// The files of one SQLite database: the file and its companions.
enum DatabaseFiles {
    /// "" (the database file), then the WAL, the WAL index and the rollback journal.
    static let suffixes = ["", "-wal", "-shm", "-journal"]
    /// The companions that belong to a WAL database's committed state.
    static let walSuffixes = ["-wal", "-shm"]
}

/// Renames a complete, synced temp file (or directory) to its final name and
/// syncs the directory, so that the final name appears whole or not at all.
func publish(_ temp: String, as destination: String, what: String) throws {
    do {
        try FileSystem.rename(temp, to: destination)
    } catch {
        throw DBToolError(.cantCreate, "can not move \(what) to \(destination): \(error.errno)")
    }
    try syncDirectory(of: destination)
}

/// Syncs the directory that holds `path`: a rename in it reaches the disk.
func syncDirectory(of path: String) throws {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    do {
        try FileSystem.sync(directory)
    } catch {
        throw error.reported(.ioError)
    }
}

/// The exit status of a failed write: 74 when the disk is full or failing
/// (ENOSPC, EDQUOT, EFBIG past a file-size limit, EIO), 77 for a permission
/// denied, 130 for an interruption, 73 otherwise.
func writeFailureStatus(_ code: Errno) -> ExitStatus {
    code.isWriteFailure ? .ioError : code.isPermissionDenied ? .noPermission : code == .interrupted ? .interrupted : .cantCreate
}

/// Creates a private file that must not exist yet (see
/// ``FileDescriptor/createNew(_:permissions:)``), as a dbtool error naming
/// `what` it is for.
func createNewFile(_ path: String, mode: mode_t = 0o600, what: String = "") throws -> FileDescriptor {
    do {
        return try FileDescriptor.createNew(path, permissions: mode)
    } catch {
        let reason = error.errno == .fileExists ? "it already exists" : error.errno.description
        throw DBToolError(writeFailureStatus(error.errno), "can not create \(what.isEmpty ? "" : what + " ")\(path): \(reason)")
    }
}

/// Writes a small file whole: into a new private temp file beside it, synced,
/// then renamed over `path` (which replaces a link there, never its target).
/// `tempSuffix` ends the temp file's name (so that a reader of `*.prom`
/// never reads it).
func writeSmallFile(_ path: String, contents: String, mode: mode_t = 0o600, tempSuffix: String = "") throws {
    let url = URL(fileURLWithPath: path)
    let temp = url.deletingLastPathComponent().path + "/" + tempName(prefix: ".dbtool-write-", for: url.lastPathComponent, suffix: tempSuffix)
    let descriptor = try createNewFile(temp, mode: mode)
    var keep = false
    defer {
        descriptor.close()
        if !keep { _ = try? FileSystem.remove(temp) }
    }
    do {
        try descriptor.writeAll(Array(contents.utf8))
        try descriptor.sync()
    } catch {
        throw DBToolError(writeFailureStatus(error.errno), "can not write \(path): \(error.errno)")
    }
    try publish(temp, as: path, what: url.lastPathComponent)
    keep = true
}

/// Creates a directory private to the user (0700 unless `mode`), whatever
/// the umask; an existing directory is left as it is.
func createPrivateDirectory(_ path: String, mode: mode_t = 0o700) throws {
    do {
        try FileSystem.createDirectory(path, permissions: mode)
    } catch {
        if error.errno == .fileExists && FileSystem.isDirectory(path) { return }
        throw DBToolError(
            error.errno.isPermissionDenied ? .noPermission : .cantCreate,
            "can not create the directory \(path): \(error.errno == .fileExists ? "a file of that name exists" : error.errno.description)")
    }
}

/// Makes sure an `--output-dir` exists: a missing one is created private
/// (0700), when its parent exists (a typo deep in a path is reported rather
/// than created). Returns true when it created it.
@discardableResult
func createOutputDirectory(_ path: String) throws -> Bool {
    if FileSystem.isDirectory(path) { return false }
    let parent = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
    guard FileSystem.isDirectory(parent) else {
        throw DBToolError(
            .cantCreate, "the output directory \(path) does not exist, nor its parent \(parent)", hint: "Create it first (mkdir -p).")
    }
    try createPrivateDirectory(path)
    return true
}

/// Creates the missing directories of `path`, private (0700), parents
/// first; returns those it created, for the caller to remove on failure.
@discardableResult
func createMissingDirectories(_ path: String) throws -> [String] {
    var missing: [String] = []
    var current = URL(fileURLWithPath: path).standardizedFileURL
    while !FileSystem.exists(current.path) && current.path != "/" {
        missing.append(current.path)
        current = current.deletingLastPathComponent()
    }
    var created: [String] = []
    do {
        for directory in missing.reversed() {
            try createPrivateDirectory(directory)
            created.append(directory)
        }
    } catch {
        for directory in created.reversed() { try? FileSystem.removeEmptyDirectory(directory) }
        throw error
    }
    return created
}

