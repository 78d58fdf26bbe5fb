import ArgumentParser
import DBToolCore
import FoundationEssentials

/// How a command runs over several databases.
struct FleetOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("With several databases: how many at once (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .long, help: "With several databases: stop at the first failure (the others are reported as skipped).")
    var failFast = false

    func validate() throws {
        if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256 (got \(jobs))") }
    }
}

/// Runs a command on the database `options` name, or on each of the fleet
/// it names: one report per database (text: a line each, then a summary;
/// JSON: one document), metrics per database, and the most telling exit status
/// met. `operation` returns the report and the bytes it wrote, if any.
func runOverDatabases<Report: Encodable & Sendable>(
    _ command: String, _ options: DatabaseOptions, _ fleet: FleetOptions, _ output: OutputOptions, metrics: MetricsOptions? = nil,
    operation: @escaping @Sendable (DatabaseHandle) throws -> (Report, bytes: Int64?), text: (Report) -> String
) throws {
    let configuration = try options.configuration
    /// `--metrics-file`, else the configuration file's for this database.
    @Sendable func metricsOptions(_ handle: DatabaseHandle) -> MetricsOptions? {
        guard var metrics, metrics.metricsFile == nil else { return metrics }
        metrics.metricsFile = configuration?.database(at: handle.location)?.dbtool.metricsFile
        return metrics
    }
    guard options.namesFleet else {
        let handle = try options.handle
        let metrics = metricsOptions(handle)
        return try runReporting(
            output, operation: { try metrics?.recorded(command, database: handle) { try operation(handle) } ?? operation(handle).0 },
            text: text)
    }
    let handles = try options.handles
    let run = { @Sendable (handle: DatabaseHandle) throws -> Report in
        guard let metrics = metricsOptions(handle) else { return try operation(handle).0 }
        return try metrics.recorded(command, database: handle) { try operation(handle) }
    }
    try runFleet(command, names: handles.map(\.location.filePath), fleet, output, text: text) { index in try run(handles[index]) }
}

/// Runs `operation` with the index of each of `names`, `fleet.jobs` at a
/// time, and prints the fleet's report; throws the fleet's status
/// (``ExitStatus/fleetStatus(_:)``).
func runFleet<Report: Encodable & Sendable>(
    _ command: String, names: [String], _ fleet: FleetOptions, _ output: OutputOptions, text: (Report) -> String,
    operation: @escaping @Sendable (Int) throws -> Report
) throws {
    var run = Fleet(names: names, jobs: fleet.jobs)
    run.failFast = fleet.failFast
    let progress = Terminal.isAttached(2) && !output.quiet ? ProgressLine(label: command) : nil
    if let progress { run.progress = progress.update }
    let outcomes = run.run(operation)
    progress?.finishLine()
    let worst = ExitStatus.fleetStatus(outcomes.map(\.status))
    let failed = outcomes.filter { $0.status != 0 }.count
    let skipped = outcomes.filter(\.skipped).count
    if !output.quiet {
        switch output.format {
        case .json:
            try StandardStreams.write(
                jsonDocument(
                    FleetReport(
                        command: command, databases: outcomes, total: outcomes.count, failed: failed, skipped: skipped, status: worst))
                    + "\n")
        case .text:
            var lines: [String] = []
            for outcome in outcomes {
                if outcome.skipped {
                    lines.append("\(outcome.database): skipped (--fail-fast)")
                } else if let error = outcome.error {
                    lines.append("\(outcome.database): error \(error.status): \(error.message)")
                } else if let report = outcome.report {
                    lines.append(text(report).split(separator: "\n").first.map(String.init) ?? outcome.database)
                }
            }
            lines.append(
                "\(outcomes.count) database(s): \(outcomes.count - failed - skipped) succeeded, \(failed) failed\(skipped > 0 ? ", \(skipped) skipped" : "")"
                    + (worst != 0 ? " (exit \(worst))." : "."))
            try StandardStreams.write(lines.joined(separator: "\n") + "\n")
        }
    }
    // Each failure on stderr too, whatever the format and --quiet: cron
    // mails stderr, and a quiet run must not fail silently.
    let failures = outcomes.filter { $0.error != nil }
    for outcome in failures {
        if let error = outcome.error { StandardStreams.writeError("dbtool: error: \(outcome.database): \(error.message)\n") }
    }
    if !failures.isEmpty {
        StandardStreams.writeError(
            "dbtool: \(command): \(failures.count) of \(outcomes.count) database(s) failed (exit \(worst)): "
                + failures.map(\.database).joined(separator: ", ") + "\n")
    }
    if worst != 0 { throw ExitCode(worst) }
}

/// The JSON report of a command over several databases.
struct FleetReport<Report: Encodable & Sendable>: Encodable {
    var command: String
    var databases: [Fleet.Outcome<Report>]
    var total: Int
    var failed: Int
    var skipped: Int
    /// The run's exit status (``ExitStatus/fleetStatus(_:)``).
    var status: Int32
}
