import ArgumentParser
import DBToolCore
import FoundationEssentials

/// The entry point: a run parses with ``DBTool`` (see ``CommandRunner``);
/// help, completion and the man page's tool description come from
/// ``DBToolInterface``. SIGINT and SIGTERM are caught from the start
/// (``Interruption``): every command cleans up, and ends with 130. Large
/// buffers are returned to the system when freed (``LargeAllocations``).
@main
enum Entry {
    static func main() {
        LargeAllocations.mapIndividually()
        Interruption.install()
        let arguments: [String]
        do {
            arguments = try ArgumentBytes.arguments()
        } catch {
            exit(with: failed(error))
        }
        if DBToolInterface.handles(arguments) {
            do {
                var command = try DBToolInterface.parseAsRoot(arguments)
                try command.run()
                exit(with: nil, of: DBToolInterface.self)
            } catch {
                exit(with: error, of: DBToolInterface.self)
            }
        } else {
            // The one exit of a run: nil is 0; an ExitCode exits silently.
            exit(with: CommandRunner.run(arguments))
        }
    }

    /// Ends the process as ArgumentParser would for `error`, but writes what
    /// goes to stdout (help, a version, a completion script) through
    /// ``StandardStreams``, so that a stdout that can not be written ends
    /// with 74, not 0.
    static func exit(with error: (any Error)?, of command: any ParsableCommand.Type = DBTool.self) -> Never {
        guard let error else { DBTool.exit() }
        if error is ExitCode { DBTool.exit(withError: error) }
        let code = command.exitCode(for: error)
        guard code == .success else {
            // A usage error, in dbtool's one style: `dbtool: error: ...`, then
            // where the command's help is (ArgumentParser's "See ..." line).
            let message = command.message(for: error)
            let help =
                command.fullMessage(for: error).split(separator: "\n").last { $0.contains("--help") }
                .map { $0.trimmingSpaces() } ?? "See 'dbtool --help'."
            StandardStreams.writeError("dbtool: error: \(message)\n\(help)\n")
            DBTool.exit(withError: ExitCode(code.rawValue))
        }
        do {
            var message = command.fullMessage(for: error)
            // Help (not a version or a completion script): a page that fits a terminal.
            if message.contains("\nUSAGE: ") || message.hasPrefix("USAGE: ") { message = HelpLayout.compact(message) }
            if !message.isEmpty { try StandardStreams.write(message + "\n") }
            try StandardStreams.flush()
        } catch {
            DBTool.exit(withError: failed(error))
        }
        DBTool.exit()
    }
}
