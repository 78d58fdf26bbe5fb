import DatabaseKit
import Foundation

/// What one run of a command leaves for monitoring (`--metrics-file`).
public struct RunMetrics: Sendable {
    /// `backup`, `migrate`, `check`…
    public var command: String
    /// The database file.
    public var database: String
    /// The run's exit status.
    public var exitStatus: Int32
    /// When it ended, and how long it took, in seconds.
    public var end: Date
    public var duration: TimeInterval
    /// What it wrote (the archive, the snapshot), when it writes something.
    public var bytes: Int64?

    public init(command: String, database: String, exitStatus: Int32, end: Date, duration: TimeInterval, bytes: Int64? = nil) {
        self.command = command
        self.database = database
        self.exitStatus = exitStatus
        self.end = end
        self.duration = duration
        self.bytes = bytes
    }
}

/// A Prometheus text-format file for node_exporter's textfile collector,
/// written atomically (a temp file beside it, synced, renamed: the
/// collector never reads half of it) and readable by the collector (0644).
///
/// One file may collect several commands and databases: the samples of
/// other runs are kept, those of this command and database replaced. The
/// last success time is carried over a failed run, so that an alert on
/// "no successful backup in 26 h" sees the failures.
public enum MetricsFile {
    /// The metrics dbtool writes, with their help.
    static let metrics: [(name: String, help: String)] = [
        ("dbtool_last_run_timestamp_seconds", "When the last run of the command on the database ended (Unix time)."),
        ("dbtool_last_success_timestamp_seconds", "When a run of the command on the database last succeeded (Unix time; 0: never)."),
        ("dbtool_last_run_duration_seconds", "How long the last run took."),
        ("dbtool_last_run_exit_status", "The exit status of the last run (0: success)."),
        ("dbtool_last_run_bytes", "What the last run wrote (an archive, a snapshot), in bytes."),
        ("dbtool_database_size_bytes", "The size of the database file after the last run."),
        ("dbtool_wal_size_bytes", "The size of the database's WAL file after the last run."),
    ]

    /// Writes `run` into the file at `path`, keeping the other samples.
    ///
    /// - throws: ``DBToolError`` naming the file when it can not be written.
    public static func write(_ run: RunMetrics, to path: String) throws {
        // The runs of a fleet finish on several threads: one rewrite at a time.
        try writing.withLock { _ in try rewrite(run, path) }
    }

    private static let writing = Locked(())

    private static func rewrite(_ run: RunMetrics, _ path: String) throws {
        var samples = try existingSamples(path)
        let labels = "command=\"\(escape(run.command))\",database=\"\(escape(run.database))\""
        let databaseLabel = "database=\"\(escape(run.database))\""
        let end = seconds(run.end.timeIntervalSince1970)
        let previousSuccess = samples["dbtool_last_success_timestamp_seconds{\(labels)}"] ?? "0"
        samples["dbtool_last_run_timestamp_seconds{\(labels)}"] = end
        samples["dbtool_last_success_timestamp_seconds{\(labels)}"] = run.exitStatus == 0 ? end : previousSuccess
        samples["dbtool_last_run_duration_seconds{\(labels)}"] = seconds(run.duration)
        samples["dbtool_last_run_exit_status{\(labels)}"] = String(run.exitStatus)
        if let bytes = run.bytes { samples["dbtool_last_run_bytes{\(labels)}"] = String(bytes) }
        samples["dbtool_database_size_bytes{\(databaseLabel)}"] = String(FileSystem.size(run.database))
        samples["dbtool_wal_size_bytes{\(databaseLabel)}"] = String(FileSystem.size(run.database + "-wal"))
        var text = ""
        for metric in metrics {
            let lines = samples.filter { $0.key.hasPrefix(metric.name + "{") }.sorted { $0.key < $1.key }
            guard !lines.isEmpty else { continue }
            text += "# HELP \(metric.name) \(metric.help)\n# TYPE \(metric.name) gauge\n"
            for (key, value) in lines { text += "\(key) \(value)\n" }
        }
        do {
            try writeSmallFile(path, contents: text, mode: 0o644)
        } catch let error as DBToolError {
            throw DBToolError(error.status, "the metrics file: \(error.message)", hint: "Check --metrics-file and its directory.")
        }
    }

    /// The samples of dbtool's metrics in the file (`name{labels}` to
    /// value); none when it does not exist. Lines of other metrics, and
    /// lines dbtool can not read, are dropped.
    private static func existingSamples(_ path: String) throws -> [String: String] {
        guard FileSystem.exists(path) else { return [:] }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.contents(path)
        } catch {
            throw DBToolError(
                .ioError, "can not read the metrics file \(path): \(error)", hint: "Check --metrics-file: dbtool replaces it whole.")
        }
        var samples: [String: String] = [:]
        let names = Set(metrics.map(\.name))
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let brace = line.firstIndex(of: "{"), names.contains(String(line[..<brace])),
                let close = line.range(of: "} ", options: .backwards)
            else { continue }
            samples[String(line[..<close.lowerBound]) + "}"] = String(line[close.upperBound...])
        }
        return samples
    }

    /// A label value as the text format escapes it.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }
}
