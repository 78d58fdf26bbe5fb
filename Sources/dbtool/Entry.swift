import ArgumentParser
import DBToolCore

/// The entry point: a run parses with ``DBTool`` (see ``CommandRunner``);
/// help, completion and the man page's tool description come from
/// ``DBToolInterface``. SIGINT and SIGTERM are caught from the start
/// (``Interruption``): every command cleans up, and ends with 130.
@main
enum Entry {
    static func main() {
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
        guard command.exitCode(for: error) == .success else { command.exit(withError: error) }
        do {
            let message = command.fullMessage(for: error)
            if !message.isEmpty { try StandardStreams.write(message + "\n") }
            try StandardStreams.flush()
        } catch {
            DBTool.exit(withError: failed(error))
        }
        DBTool.exit()
    }
}
