import ArgumentParser
import DBToolCore
import FoundationEssentials

/// `--metrics-file`: Prometheus metrics of the run, for node_exporter's
/// textfile collector.
struct MetricsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write Prometheus metrics of this run to FILE (atomically, mode 0644; other runs' samples in it are kept).",
            valueName: "file"),
        completion: .file(), transform: nonEmptyPath)
    var metricsFile: String?

    /// Runs `operation` and, with --metrics-file, records its outcome
    /// whatever it is; `operation` returns its report and the bytes it
    /// wrote, if it writes some. The metrics file is checked first, through
    /// the write gate of the run's databases, so that a path that may not be
    /// written stops the run before anything changes. A metrics
    /// file that can not be written fails a run that succeeded (monitoring
    /// must not go blind silently).
    func recorded<Report: Encodable & Sendable>(
        _ command: String, database: DatabaseHandle, _ operation: () throws -> (Report, bytes: Int64?)
    ) throws -> Report {
        guard let metricsFile else { return try operation().0 }
        try MetricsFile.check(metricsFile, gate: database.gate)
        let start = Date()
        func record(_ status: Int32, bytes: Int64?, report: Any?) throws {
            let end = Date()
            var run = RunMetrics(
                command: command, database: database.location.filePath, exitStatus: status, end: end,
                duration: end.timeIntervalSince(start), bytes: bytes, gauges: (report as? DatabaseGauges)?.gauges ?? [:])
            run.formerNames = database.location.formerFilePaths
            try MetricsFile.write(run, to: metricsFile)
        }
        let result: (Report, bytes: Int64?)
        do {
            result = try operation()
        } catch {
            do {
                try record(toolError(error).status.rawValue, bytes: nil, report: (error as? PartialFailure)?.partialReport)
            } catch {
                printNotice("warning: \(toolError(error).message)")
            }
            throw error
        }
        do {
            try record(0, bytes: result.bytes, report: result.0)
        } catch {
            // The run's report still prints, before the error.
            throw MetricsFailure(report: result.0, error: toolError(error))
        }
        return result.0
    }
}

/// A run that succeeded, whose metrics could not be written.
struct MetricsFailure: PartialFailure {
    let report: any Encodable & Sendable
    let error: DBToolError

    var partialReport: any Encodable { report }
}
