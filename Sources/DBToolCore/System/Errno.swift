#if canImport(Glibc)
    import Glibc
#endif

/// A system error number (`errno`), in the style of swift-system's `Errno`:
/// what a failed call of this folder reports.
struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value of `errno`.
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, read right after the failed call.
    static var current: Errno { Errno(errno) }

    /// The system's message, e.g. "No such file or directory".
    var description: String { String(cString: strerror(rawValue)) }

    static let noSuchFileOrDirectory = Errno(ENOENT)
    static let fileExists = Errno(EEXIST)
    static let notADirectory = Errno(ENOTDIR)
    static let interrupted = Errno(EINTR)
    static let wouldBlock = Errno(EWOULDBLOCK)
    static let tooManySymbolicLinkLevels = Errno(ELOOP)
    static let noSuchProcess = Errno(ESRCH)
    static let nameTooLong = Errno(ENAMETOOLONG)

    /// A full or failing disk: ENOSPC, EDQUOT, EFBIG past a file-size limit, EIO.
    var isWriteFailure: Bool { [ENOSPC, EDQUOT, EFBIG, EIO].contains(rawValue) }

    /// EACCES or EPERM.
    var isPermissionDenied: Bool { rawValue == EACCES || rawValue == EPERM }
}

/// What a failed system call attempted on its path: the verb of the
/// message, and whether the path was to be read as it is (a missing one
/// is then no input, 66, rather than a place that can not be made, 73).
enum FileOperation: Sendable, Equatable {
    case open, read, list, openDirectory, inspect
    case create, createDirectory, createPipe, write, copy, sync, truncate, lock, run
    case remove, setPermissions, setTimes
    /// A move from the given path to the error's path.
    case move(from: String)
    /// A move or a link, from the error's path, or to it.
    case moveSource, moveDestination, link, linkDestination

    /// The verb phrase of the message: "can not VERB PATH".
    var verb: String {
        switch self {
        case .open: "open"
        case .read: "read"
        case .list: "list"
        case .openDirectory: "open the directory"
        case .inspect: "inspect"
        case .create: "create"
        case .createDirectory: "create the directory"
        case .createPipe: "create a pipe for"
        case .write: "write"
        case .copy: "copy to"
        case .sync: "sync"
        case .truncate: "truncate"
        case .lock: "lock"
        case .run: "run"
        case .remove: "remove"
        case .setPermissions: "set the permissions of"
        case .setTimes: "set the times of"
        case .move(let source): "move \(source) to"
        case .moveSource: "move"
        case .moveDestination: "move to"
        case .link: "link"
        case .linkDestination: "link to"
        }
    }

    /// Whether the path was input, read as it is: opened, read or listed.
    var readsInput: Bool {
        switch self {
        case .open, .read, .list: true
        default: false
        }
    }
}

/// A failed system call on a path: what was attempted, on which path, and
/// the system's reason. dbtool reports it as a ``DBToolError`` whose exit
/// status follows the reason and the operation (see ``status``).
struct FileSystemError: Error, CustomStringConvertible, ReportableError {
    /// What was attempted.
    let operation: FileOperation
    /// The path it was attempted on.
    let path: String
    /// Why it failed.
    let errno: Errno

    /// "can not create /x/y: No space left on device".
    var description: String { "can not \(operation.verb) \(path): \(errno)" }

    /// 130 for a call a signal interrupted, 74 for a full or failing disk,
    /// 77 for a permission denied, 66 for a missing file that was to be
    /// read, 73 otherwise.
    var status: ExitStatus {
        if errno == .interrupted { return .interrupted }
        if errno.isWriteFailure { return .ioError }
        if errno.isPermissionDenied { return .noPermission }
        if errno == .noSuchFileOrDirectory && operation.readsInput { return .noInput }
        return .cantCreate
    }

    var toolError: DBToolError {
        if errno == .interrupted { return Interruption.error }
        return DBToolError(
            status, description, hint: ownHint ?? (status == .ioError ? "Free some space on its disk (or check the disk), and retry." : nil),
            transient: errno.isWriteFailure)
    }

    /// The hint the reason itself calls for, whatever the caller suggests:
    /// a name too long is not a permission problem.
    private var ownHint: String? {
        errno == .nameTooLong ? "A name in the path is longer than the file system allows (255 bytes): choose a shorter one." : nil
    }

    /// The error as dbtool reports it, with another status or hint; an
    /// interruption stays one (130), and a full disk or a permission denied
    /// keeps its own status (74, 77) whatever `status` says.
    func reported(_ status: ExitStatus? = nil, hint: String? = nil) -> DBToolError {
        if errno == .interrupted { return Interruption.error }
        let own = self.status
        let chosen = own == .ioError || own == .noPermission ? own : (status ?? own)
        return DBToolError(chosen, description, hint: ownHint ?? hint ?? toolError.hint, transient: errno.isWriteFailure)
    }
}

/// Retries a system call interrupted by a signal (EINTR), until SIGINT or
/// SIGTERM was received: dbtool catches them (``Interruption``) without
/// `SA_RESTART`, so that a call blocked on a pipe, a FIFO or a lock
/// returns, and its caller fails with `EINTR` (reported as 130).
@inline(__always)
func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR || Interruption.isRequested { return result }
    }
}
