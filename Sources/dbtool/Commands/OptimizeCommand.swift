import ArgumentParser
import DBToolCore

struct OptimizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimize",
        abstract: "Keep the query planner's statistics current (ANALYZE what needs it).",
        discussion: """
            Analyses the tables with indexes whose statistics are missing, or whose row count \
            moved tenfold since they were taken (estimated from their largest rowid: no table is \
            read whole), as PRAGMA optimize does from SQLite 3.46 on; --analyze analyses every \
            table. Each ANALYZE reads at most --analysis-limit rows per index (0: all), so it is \
            cheap enough for a nightly cron job. The report names each table analysed, and why.

            Examples:
              dbtool optimize --database /var/lib/myapp/db
              dbtool optimize --database /var/lib/myapp/db --analyze --analysis-limit 0
            """)

    @Flag(name: .long, help: "ANALYZE every table, not only those whose statistics are stale.")
    var analyze = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Rows read per index by ANALYZE (0: all; default 1000).", valueName: "rows"))
    var analysisLimit = 1000

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if analysisLimit < 0 { throw ValidationError("--analysis-limit must be 0 or more (got \(analysisLimit))") }
    }

    func run() throws {
        let (analyze, analysisLimit) = (self.analyze, self.analysisLimit)
        try runOverDatabases("optimize", database, fleet, output) { handle in
            var operation = OptimizeOperation(database: handle)
            operation.analyzeAll = analyze
            operation.analysisLimit = analysisLimit
            return (try operation.run(), nil)
        } text: { report in
            guard !report.analyzed.isEmpty else {
                return "\(report.database): statistics current for \(report.current.count) table(s) with indexes; nothing analysed."
            }
            let tables = report.analyzed.map { "  \($0.table) (\($0.reason))" }.joined(separator: "\n")
            return "\(report.database): analysed \(report.analyzed.count) table(s) in \(report.durationMs) ms:\n\(tables)"
        }
    }
}
