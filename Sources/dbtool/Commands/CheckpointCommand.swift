import ArgumentParser
import DBToolCore
import DatabaseKit

struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Checkpoint the WAL, and report frames and WAL file sizes.",
        discussion: """
            The application's writers never wait for dbtool: a passive pass copies what it can \
            without locking, then the blocking mode (full, restart, truncate) is attempted without \
            waiting inside SQLite, and retried with short pauses while a reader or a writer is in \
            the way, so a writer waits at most for one attempt (milliseconds). When the mode could \
            not complete within --timeout, dbtool exits 75 and says so (the sqlite3 shell exits 0 \
            in that case: dbtool does not). A database not in WAL mode exits 65.

            Examples:
              dbtool checkpoint --database /var/lib/myapp/db
              dbtool checkpoint --database /var/lib/myapp/db --mode truncate --format json
            """)

    @Option(name: .long, help: "passive, full, restart or truncate.")
    var mode: Database.CheckpointMode = .passive

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let mode = self.mode
        try runOverDatabases("checkpoint", database, fleet, output, metrics: metrics) { handle in
            var operation = CheckpointOperation(database: handle)
            operation.mode = mode
            return (try operation.run(), nil)
        } text: { report in
            """
            \(report.mode) checkpoint of \(report.database): \(report.checkpointedFrames) WAL frames checkpointed (the WAL holds \(report.walFrames)); \
            WAL file \(report.walSizeBefore) -> \(report.walSizeAfter) bytes\(report.attempts > 1 ? " (\(report.attempts) attempts, \(report.waitedMs) ms)" : "").
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
