import ArgumentParser
import DBToolCore

struct VacuumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Give free pages back: VACUUM, a compacted copy, or an incremental vacuum.",
        discussion: """
            A full VACUUM rewrites the database and holds the write lock until it is done: on a \
            WAL database, which an application may be writing, it is refused (64, saying roughly \
            how long writers would wait) unless --live. --into FILE writes a compacted copy \
            instead (VACUUM INTO, with snapshot's safety: a temp file, quick_check, fsync, rename; \
            no write lock). --incremental N frees up to N pages (0: all) of a database whose \
            auto_vacuum is incremental. The report gives the pages and bytes freed.

            Examples:
              dbtool vacuum --database /var/lib/myapp/db --live
              dbtool vacuum --database /var/lib/myapp/db --into /tmp/compact.sqlite
              dbtool vacuum --database /var/lib/myapp/db --incremental 1000 --format json
            """)

    @Flag(name: .long, help: "Run a full VACUUM on a WAL database even though writers wait for it.")
    var live = false

    @Option(name: .long, help: "Write a compacted copy to this file instead.", completion: .file(), transform: nonEmptyPath)
    var into: String?

    @Flag(name: .long, help: "With --into: replace the file if it exists.")
    var force = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Free up to N pages of an auto_vacuum=incremental database (0: all).", valueName: "pages"))
    var incremental: Int?

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if [into != nil, incremental != nil].filter({ $0 }).count > 1 { throw ValidationError("give --into or --incremental, not both") }
        if live && (into != nil || incremental != nil) {
            throw ValidationError("--live is for a full VACUUM, without --into or --incremental")
        }
        if force && into == nil { throw ValidationError("--force works with --into only") }
        if let incremental, incremental < 0 { throw ValidationError("--incremental must be 0 or more (got \(incremental))") }
    }

    func run() throws {
        let handle = try database.handle
        if let into {
            var operation = SnapshotOperation(database: handle)
            operation.output = into
            operation.force = force
            operation.vacuum = true
            try runReporting(
                output,
                operation: {
                    try metrics.recorded("vacuum", database: handle) {
                        let report = try operation.run()
                        return (report, report.bytes)
                    }
                }
            ) { report in
                "Compacted copy of \(report.database) written to \(report.snapshot) (\(report.bytes) bytes, \(report.pageCount) pages)."
            }
            return
        }
        var operation = VacuumOperation(database: handle)
        operation.live = live
        operation.incrementalPages = incremental
        try runReporting(output, operation: { try metrics.recorded("vacuum", database: handle) { (try operation.run(), nil) } }) { report in
            """
            \(report.mode == "full" ? "VACUUM" : "Incremental vacuum") of \(report.database): \(report.pagesFreed) pages freed \
            (\(report.pagesBefore) -> \(report.pagesAfter); free \(report.freePagesBefore) -> \(report.freePagesAfter)), \
            file \(report.fileSizeBefore) -> \(report.fileSizeAfter) bytes, in \(report.durationMs) ms.
            """
        }
    }
}
