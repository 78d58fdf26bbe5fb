import ArgumentParser
import DBToolCore

extension ServiceLog.Format: ExpressibleByArgument {}

/// The log lines of a long-running command: `--log-format`.
struct LogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log lines on stderr: text (no time under systemd's journal) or json, one object per line.", valueName: "format"))
    var logFormat: ServiceLog.Format = .text

    /// A sink writing `command`'s lines about `database` to standard error;
    /// `quiet` keeps the info lines back, never the warnings.
    func sink(command: String, database: String, quiet: Bool) -> LogSink {
        let log = ServiceLog(format: logFormat, command: command, database: database)
        return { level, message in
            if quiet && level == .info { return }
            StandardStreams.writeError(log.line(level, message))
        }
    }
}
