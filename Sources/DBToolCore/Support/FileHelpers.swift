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
