import DatabaseKit
import FoundationEssentials

/// The exit statuses of dbtool, after sysexits(3): scripts act on them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success.
    case success = 0
    /// A usage error: a bad argument or option.
    case usage = 64
    /// A data error: bad SQL, a file that is not a database, an integrity failure.
    case dataError = 65
    /// An input is missing: database, directory, or file.
    case noInput = 66
    /// An internal error.
    case software = 70
    /// An output can not be created.
    case cantCreate = 73
    /// An input/output error (disk full included).
    case ioError = 74
    /// A temporary failure: the database is busy or locked past the timeout.
    case tempFail = 75
    /// Permission denied.
    case noPermission = 77
    /// Interrupted by SIGINT or SIGTERM, after cleaning up (128 + SIGINT).
    case interrupted = 130

    /// The status of a run over several databases whose databases ended
    /// with `statuses`: the most telling one. An interruption stops the
    /// whole run; a broken database, a missing input, a refused permission
    /// or an I/O error needs a person, so they outrank 75 ("retry later"),
    /// which a cron job would otherwise just retry.
    public static func fleetStatus(_ statuses: [Int32]) -> Int32 {
        let precedence: [Int32] = [130, 70, 65, 66, 77, 74, 73, 64]
        let failures = statuses.filter { $0 != 0 }
        guard !failures.isEmpty else { return 0 }
        for status in precedence where failures.contains(status) { return status }
        // 75, or a status outside the documented ones (the highest of those).
        return failures.filter { $0 != 75 }.max() ?? 75
    }

    /// What the status means, for `--help` and the man page.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage error: a bad argument or option"
        case .dataError: "data error: bad SQL, not a database, a failed migration or integrity check"
        case .noInput: "input missing: database, directory, file, bucket or object"
        case .software: "internal error (please report it)"
        case .cantCreate: "cannot create an output"
        case .ioError: "I/O error, disk full included"
        case .tempFail:
            "temporary failure: the database was busy or locked past --timeout, another dbtool run holds it, or the object store kept failing (retry later)"
        case .noPermission: "permission denied (files, object storage credentials, an archive's passphrase)"
        case .interrupted: "interrupted by SIGINT or SIGTERM, after cleaning up"
        }
    }

    /// One paragraph listing every status, for `--help`.
    public static var documentation: String {
        "Exit status: " + allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + "."
    }
}

/// An error dbtool knows how to report: it says which ``DBToolError``
/// (message, hint, exit status) stands for it.
public protocol ReportableError: Error {
    /// The error as dbtool reports it.
    var toolError: DBToolError { get }
}

/// An error that dbtool reports: what went wrong, with what, and what to do.
public struct DBToolError: ReportableError, CustomStringConvertible, Sendable {
    /// The exit status.
    public let status: ExitStatus
    /// One sentence naming the thing (path, statement, argument) and the problem.
    public let message: String
    /// What to do about it, if anything useful can be said.
    public let hint: String?
    /// The SQLite error this error reports, when SQLite raised it: `check`
    /// tells damage SQLite met (`SQLITE_CORRUPT`) from other failures by it.
    public let databaseError: DatabaseError?
    /// Whether the failure may pass by itself, so that a service (a
    /// replication, a follower) waits and tries again rather than stops: a
    /// store or a database that did not answer in time, a full disk. Said
    /// by whoever met the failure, not read from the exit status.
    public let isTransient: Bool

    /// An error with its exit status, message and hint; `transient` says
    /// whether it may pass by itself (default: a temporary failure, 75, is).
    public init(
        _ status: ExitStatus, _ message: String, hint: String? = nil, databaseError: DatabaseError? = nil, transient: Bool? = nil
    ) {
        self.status = status
        self.message = message
        self.hint = hint
        self.databaseError = databaseError
        isTransient = transient ?? (status == .tempFail)
    }

    /// The error as a JSON report holds it.
    public struct Summary: Codable, Sendable, Equatable {
        /// The exit status.
        public var status: Int32
        public var message: String
        public var hint: String?
    }

    /// Itself.
    public var toolError: DBToolError { self }

    /// The error as a JSON report holds it.
    public var summary: Summary { Summary(status: status.rawValue, message: message, hint: hint) }

    /// `error` as dbtool reports it; an error that does not say is an internal one.
    static func wrapping(_ error: any Error) -> DBToolError {
        (error as? any ReportableError)?.toolError ?? DBToolError(.software, "\(error)")
    }

    /// The same error with another hint.
    public func withHint(_ hint: String?) -> DBToolError {
        DBToolError(status, message, hint: hint, databaseError: databaseError, transient: isTransient)
    }

    /// The message, and the hint on its own line.
    public var description: String {
        hint.map { "\(message)\n\($0)" } ?? message
    }

    /// Wraps a database error met while working on `path`.
    public static func database(_ error: DatabaseError, path: String, timeout: TimeInterval? = nil) -> DBToolError {
        let sqliteMessage = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        if Interruption.isRequested && [.SQLITE_INTERRUPT, .SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            return Interruption.error
        }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            let waited = timeout.map { " after waiting \(formatSeconds($0))" } ?? ""
            return DBToolError(
                .tempFail, "the database \(path) is locked by another connection\(waited)",
                hint: "Retry later, or wait longer with --timeout SECONDS.")
        case .SQLITE_NOTADB:
            return DBToolError(
                .dataError, "\(path) is not a SQLite database", hint: "Check the path given with --database.", databaseError: error)
        case .SQLITE_CORRUPT:
            return DBToolError(
                .dataError, "the database \(path) is corrupt: \(sqliteMessage)", hint: "Restore it from a backup.", databaseError: error)
        case .SQLITE_CANTOPEN:
            if !FileSystem.exists(path) {
                return DBToolError(.noInput, "no database at \(path)", hint: "Create it with `dbtool init`, or check --database.")
            }
            return DBToolError(
                .noPermission, "can not open the database \(path): \(sqliteMessage)",
                hint: "Check the permissions of the file and its directory.")
        case .SQLITE_READONLY where error.extendedResultCode == .SQLITE_READONLY_ROLLBACK:
            return DBToolError(
                .dataError,
                "the database \(path) has the journal of a transaction a crash left unfinished: a read-only connection can not roll it back",
                hint: "Run any dbtool command that writes (or sqlite3) on it, then again.")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return DBToolError(
                .noPermission, "can not write the database \(path): \(sqliteMessage)",
                hint: "Check the permissions of the file and its directory.")
        case .SQLITE_FULL:
            return DBToolError(
                .ioError, "can not write \(path): \(error.writeFailureCause)", hint: "Free some space on its disk, and retry.",
                transient: true)
        case .SQLITE_IOERR:
            return DBToolError(
                .ioError, "input/output error on \(path): \(sqliteMessage)", hint: "Check the disk (space, health) and retry.")
        default:
            var message = sqliteMessage
            if let sql = error.sql { message += " (in `\(sql)`)" }
            return DBToolError(.dataError, message)
        }
    }
}

/// "5 s", "0.5 s": never traps, whatever the value.
func formatSeconds(_ seconds: TimeInterval) -> String {
    if seconds == seconds.rounded(), let whole = Int(exactly: seconds) { return "\(whole) s" }
    return Decimals.text(seconds, places: 1) + " s"
}

extension DatabaseError {
    /// True for the errors of a failed write: a full disk, or an I/O error
    /// while writing, syncing or growing a file.
    var isWriteFailure: Bool {
        switch extendedResultCode {
        case .SQLITE_FULL, .SQLITE_IOERR_WRITE, .SQLITE_IOERR_FSYNC, .SQLITE_IOERR_DIR_FSYNC, .SQLITE_IOERR_TRUNCATE:
            return true
        default:
            return resultCode == .SQLITE_FULL
        }
    }

    /// What a write failure means, in the words of the system: SQLite
    /// reports ENOSPC as SQLITE_FULL ("database or disk is full").
    var writeFailureCause: String {
        if resultCode == .SQLITE_FULL { return "No space left on device (\(message ?? "database or disk is full"))" }
        return message ?? "disk I/O error"
    }
}
