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
            table. Each ANALYZE reads every row of the table's indexes, as a full ANALYZE does, on \
            databases up to 1 GiB (about 3 s); above, 100000 rows per index unless \
            --analysis-limit says otherwise. A limit caps each index's rows per key: a value \
            repeated more often than the limit looks more selective than it is. The report names \
            each table analysed, and why.

            Examples:
              dbtool optimize --database /var/lib/myapp/db
              dbtool optimize --database /var/lib/myapp/db --analyze
            """)

    @Flag(name: .long, help: "ANALYZE every table, not only those whose statistics are stale.")
    var analyze = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Rows read per index by ANALYZE (0: all; default: all up to 1 GiB, 100000 above).", valueName: "rows"))
    var analysisLimit: Int?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let analysisLimit, analysisLimit < 0 { throw ValidationError("--analysis-limit must be 0 or more (got \(analysisLimit))") }
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
