import ArgumentParser

/// The entry point: a run parses with ``DBTool``; help, completion and the
/// man page's tool description come from ``DBToolInterface``.
@main
enum Entry {
    static func main() {
        if DBToolInterface.handles(Array(CommandLine.arguments.dropFirst())) {
            DBToolInterface.main()
        } else {
            DBTool.main()
        }
    }
}
