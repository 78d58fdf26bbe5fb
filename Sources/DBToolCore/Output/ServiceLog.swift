import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How much a line of a long-running command's log matters.
public enum LogLevel: String, Sendable {
    /// Progress: a snapshot taken, a sync, a stop.
    case info
    /// Something the operator may have to act on: a store that does not
    /// answer, a failed compaction, an outbox that is full.
    case warning

    /// The syslog priority journald reads from a `<N>` prefix.
    var syslogPriority: Int { self == .warning ? 4 : 6 }
}

/// Receives the log lines of a long-running command (`replicate`,
/// `restore --follow`), one call per line.
public typealias LogSink = @Sendable (LogLevel, String) -> Void

/// How a long-running command's log lines are written to standard error.
///
/// - `text` on a terminal or into a file: `TIME dbtool COMMAND DATABASE: LINE`.
/// - `text` under systemd (standard error is the journal stream named by
///   `$JOURNAL_STREAM`): `<PRIORITY>dbtool COMMAND DATABASE: LINE`, with no
///   time (journald stamps each line) and the syslog priority journald reads.
/// - `json`: one object per line, `{"time", "level", "command", "database",
///   "message"}`, for log shippers.
public struct ServiceLog: Sendable {
    /// The shape of each line.
    public enum Format: String, Sendable, CaseIterable {
        /// `TIME dbtool COMMAND DATABASE: LINE` (no time under journald).
        case text
        /// One JSON object per line.
        case json
    }

    /// Text or JSON.
    public let format: Format
    /// Whether standard error is journald's stream: lines then go without a time.
    public let toJournal: Bool
    /// The command, as the line names it: `replicate`, `restore --follow`.
    public let command: String
    /// The database (or copy) the command works on.
    public let database: String

    /// The log of `command` on `database`, as `format`; `toJournal` as
    /// ``standardErrorIsJournal(environment:)`` finds it, unless given.
    public init(format: Format, command: String, database: String, toJournal: Bool = ServiceLog.standardErrorIsJournal()) {
        self.format = format
        self.command = command
        self.database = database
        self.toJournal = toJournal
    }

    /// One line, newline included.
    public func line(_ level: LogLevel, _ message: String, at time: Date = Date()) -> String {
        switch format {
        case .json:
            let fields: [(String, String)] = [
                ("time", ISOTime.text(time)), ("level", level.rawValue), ("command", command),
                ("database", database), ("message", message),
            ]
            return "{" + fields.map { "\(jsonString($0.0)):\(jsonString($0.1))" }.joined(separator: ",") + "}\n"
        case .text where toJournal:
            return "<\(level.syslogPriority)>dbtool \(command) \(database): \(message)\n"
        case .text:
            return "\(ISOTime.text(time)) dbtool \(command) \(database): \(message)\n"
        }
    }

    /// True when `$JOURNAL_STREAM` names the device and inode of standard
    /// error, as systemd sets it for a service whose output goes to the
    /// journal (a variable inherited by a child writing elsewhere does not count).
    public static func standardErrorIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
