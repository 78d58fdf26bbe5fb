import ArgumentParser
import DBToolCore
import DatabaseKit

struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Checkpoint the WAL, and report frames and WAL file sizes.",
        discussion: """
            A blocking mode (full, restart, truncate) that could not complete because of other \
            connections waits up to --timeout, then exits 75 and says so (the sqlite3 shell exits 0 \
            in that case: dbtool does not). A database not in WAL mode exits 65.

            Examples:
              dbtool checkpoint --database /var/lib/myapp/db
              dbtool checkpoint --database /var/lib/myapp/db --mode truncate --format json
            """)

    @Option(name: .long, help: "passive, full, restart or truncate.")
    var mode: Database.CheckpointMode = .passive

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = CheckpointOperation(location: database.location)
        operation.mode = mode
        operation.timeout = database.timeout
        runReporting(output, operation: operation.run) { report in
            """
            \(report.mode) checkpoint of \(report.database): \(report.checkpointedFrames) of \(report.walFrames) WAL frames checkpointed; \
            WAL file \(report.walSizeBefore) -> \(report.walSizeAfter) bytes.
            """
        }
    }
}

extension Database.CheckpointMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard let mode = Self.allCases.first(where: { "\($0)" == argument }) else { return nil }
        self = mode
    }

    public static var allValueStrings: [String] { allCases.map { "\($0)" } }
}
