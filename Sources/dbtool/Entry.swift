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
        let arguments = Array(CommandLine.arguments.dropFirst())
        if DBToolInterface.handles(arguments) {
            DBToolInterface.main(arguments)
        } else {
            // The one exit of a run: nil is 0; an ExitCode exits silently.
            DBTool.exit(withError: CommandRunner.run(arguments))
        }
    }
}
