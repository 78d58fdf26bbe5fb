import ArgumentParser
import DBToolCore
import FoundationEssentials

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write a consistent single-file copy of the database.",
        discussion: """
            The copy holds one committed state (WAL content included, journal mode DELETE), even \
            while other processes write. It is written to a temp file beside the --output file, checked \
            with PRAGMA quick_check, fsynced and renamed: a crash never leaves a partial file under its \
            name. It refuses to replace an existing file unless --force (73).

            With --output-dir DIR the file is named NAME-YYYYMMDDTHHMMSS.mmmZ.sqlite (UTC, to the \
            millisecond, as backups are), and --keep N deletes all but the newest N of those files \
            (only files named so; a file it could not delete is reported, and the run still succeeds).

            Examples:
              dbtool snapshot --database /var/lib/myapp/db --output /tmp/copy.sqlite
              dbtool snapshot --database db --output-dir /backups --keep 7 --vacuum
            """)

    @Option(name: .customLong("output"), help: "The file to write.", completion: .file(), transform: nonEmptyPath)
    var outputPath: String?

    /// The positional OUTPUT of the first design, still accepted.
    @Argument(help: .hidden, completion: .file(), transform: nonEmptyPath)
    var legacyOutputPath: String?

    private var outputFile: String? { outputPath ?? legacyOutputPath }

    @Option(name: .long, help: "Write a timestamped file in this directory instead.", completion: .directory, transform: nonEmptyPath)
    var outputDir: String?

    @Option(name: .long, parsing: .unconditional, help: "With --output-dir: keep only the newest N snapshots.")
    var keep: Int?

    @Flag(name: .long, help: "Replace the --output file if it exists.")
    var force = false

    @Flag(name: .long, help: "Compact the copy (VACUUM INTO).")
    var vacuum = false

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if outputPath != nil && legacyOutputPath != nil {
            throw ValidationError("give the file once: --output FILE")
        }
        if (outputFile == nil) == (outputDir == nil) {
            throw ValidationError("give exactly one destination: --output FILE or --output-dir DIR")
        }
        if database.namesFleet && outputFile != nil {
            throw ValidationError("--output names one file: with several databases, give --output-dir DIR (a folder per database)")
        }
        if keep != nil && outputDir == nil {
            throw ValidationError("--keep works with --output-dir only")
        }
        if let keep, keep < 1 {
            throw ValidationError("--keep must be 1 or more (got \(keep))")
        }
    }

    func run() throws {
        if database.namesFleet {
            let (outputDir, keep, force, vacuum) = (self.outputDir, self.keep, self.force, self.vacuum)
            return try runOverDatabases("snapshot", database, fleet, output, metrics: metrics) { handle in
                var operation = SnapshotOperation(database: handle)
                operation.outputDirectory = outputDir.map { $0 + "/" + handle.location.fleetName }
                operation.outputRoot = outputDir
                operation.keep = keep
                operation.force = force
                operation.vacuum = vacuum
                let report = try operation.run()
                return (report, report.bytes)
            } text: { report in
                "\(report.database): \(report.snapshot) (\(ByteCount.text(report.bytes)))"
            }
        }
        let handle = try database.handle
        var operation = SnapshotOperation(database: handle)
        operation.output = outputFile
        operation.outputDirectory = outputDir
        operation.keep = keep
        operation.force = force
        operation.vacuum = vacuum
        if Terminal.isAttached(2) && !output.quiet {
            operation.progress = ProgressLine(label: "snapshot").update
        }
        let snapshot = operation
        try runReporting(
            output,
            operation: {
                try metrics.recorded("snapshot", database: handle) {
                    let report = try snapshot.run()
                    return (report, report.bytes)
                }
            },
            text: { report in
                var text = "Snapshot of \(report.database) written to \(report.snapshot) (\(report.bytes) bytes)."
                if !report.deleted.isEmpty { text += "\nDeleted \(report.deleted.count) older snapshot(s)." }
                if !report.deleteFailures.isEmpty {
                    text +=
                        "\nCould not delete \(report.deleteFailures.count) older snapshot(s): \(report.deleteFailures.joined(separator: "; "))"
                }
                return text
            })
    }
}
