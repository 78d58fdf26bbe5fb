import ArgumentParser
import DBToolCore
import Foundation

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

    /// Runs `body` and, with --metrics-file, records its outcome whatever
    /// it is; `body` returns the bytes it wrote, if it writes some. A
    /// metrics file that can not be written fails a run that succeeded
    /// (monitoring must not go blind silently).
    func recording(_ command: String, database: DatabaseHandle, _ body: () throws -> Int64?) throws {
        guard let metricsFile else {
            _ = try body()
            return
        }
        let start = Date()
        func record(_ status: Int32, bytes: Int64?) throws {
            let end = Date()
            try MetricsFile.write(
                RunMetrics(
                    command: command, database: database.location.filePath, exitStatus: status, end: end,
                    duration: end.timeIntervalSince(start), bytes: bytes),
                to: metricsFile)
        }
        let bytes: Int64?
        do {
            bytes = try body()
        } catch {
            do {
                try record(toolError(error).status.rawValue, bytes: nil)
            } catch {
                printNotice("warning: \(toolError(error).message)")
            }
            throw error
        }
        try record(0, bytes: bytes)
    }
}
