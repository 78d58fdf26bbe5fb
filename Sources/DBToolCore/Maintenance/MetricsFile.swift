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
        ("dbtool_replicate_updated_timestamp_seconds", "When `dbtool replicate` last wrote its metrics (every 15 s while it runs)."),
        ("dbtool_replicate_lag_seconds", "How long commits have waited to be shipped (0: all shipped)."),
        ("dbtool_replicate_pending_bytes", "The bytes of LTX files waiting in the outbox."),
        ("dbtool_replicate_shipped_txid", "The last transaction ID the replica holds."),
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
        let previous = try existingSamples(path)
        let labels = "command=\"\(escape(run.command))\",database=\"\(escape(run.database))\""
        let databaseLabel = "database=\"\(escape(run.database))\""
        let end = seconds(run.end.timeIntervalSince1970)
        var changes = [
            "dbtool_last_run_timestamp_seconds{\(labels)}": end,
            "dbtool_last_success_timestamp_seconds{\(labels)}":
                run.exitStatus == 0 ? end : previous["dbtool_last_success_timestamp_seconds{\(labels)}"] ?? "0",
            "dbtool_last_run_duration_seconds{\(labels)}": seconds(run.duration),
            "dbtool_last_run_exit_status{\(labels)}": String(run.exitStatus),
            "dbtool_database_size_bytes{\(databaseLabel)}": String(FileSystem.size(run.database)),
            "dbtool_wal_size_bytes{\(databaseLabel)}": String(FileSystem.size(run.database + "-wal")),
        ]
        if let bytes = run.bytes { changes["dbtool_last_run_bytes{\(labels)}"] = String(bytes) }
        try update(path, with: changes)
    }

    /// Writes the state of a running `replicate` into the file at `path`,
    /// keeping the other samples.
    public static func writeReplication(
        database: String, replica: String, lag: TimeInterval, pendingBytes: Int64, shippedTXID: UInt64, now: Date, to path: String
    ) throws {
        try writing.withLock { _ in
            let labels = "database=\"\(escape(database))\",replica=\"\(escape(replica))\""
            try update(
                path,
                with: [
                    "dbtool_replicate_updated_timestamp_seconds{\(labels)}": seconds(now.timeIntervalSince1970),
                    "dbtool_replicate_lag_seconds{\(labels)}": seconds(lag),
                    "dbtool_replicate_pending_bytes{\(labels)}": String(pendingBytes),
                    "dbtool_replicate_shipped_txid{\(labels)}": String(shippedTXID),
                    "dbtool_database_size_bytes{database=\"\(escape(database))\"}": String(FileSystem.size(database)),
                    "dbtool_wal_size_bytes{database=\"\(escape(database))\"}": String(FileSystem.size(database + "-wal")),
                ])
        }
    }

    /// Replaces `samples` in the file, keeping the others, and writes it.
    private static func update(_ path: String, with changes: [String: String]) throws {
        var samples = try existingSamples(path)
        samples.merge(changes) { $1 }
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
            throw DBToolError(error.status, "can not write the metrics file \(path) (\(error.message))", hint: "Check --metrics-file and its directory.")
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
