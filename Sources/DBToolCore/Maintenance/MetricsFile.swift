import DatabaseKit
import FoundationEssentials

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
    /// What the run measured in the database (``DatabaseGauges``), by metric name.
    public var gauges: [String: Int64]
    /// The names the database had in earlier runs when it is missing now
    /// (`DIR/db.sqlite` for a directory that is gone): the samples keep the
    /// label they had.
    public var formerNames: [String] = []

    public init(
        command: String, database: String, exitStatus: Int32, end: Date, duration: TimeInterval, bytes: Int64? = nil,
        gauges: [String: Int64] = [:]
    ) {
        self.command = command
        self.database = database
        self.exitStatus = exitStatus
        self.end = end
        self.duration = duration
        self.bytes = bytes
        self.gauges = gauges
    }
}

/// A report that measures its database for monitoring: `check` counts the
/// problems it found and the free pages. The values go to the metrics file
/// labelled with the database, also when the run failed (a damaged database
/// is when the count matters).
public protocol DatabaseGauges {
    /// Metric names (among ``MetricsFile``'s) and their values.
    var gauges: [String: Int64] { get }
}

/// A Prometheus text-format file for node_exporter's textfile collector,
/// written atomically (a temp file beside it, synced, renamed: the
/// collector never reads half of it) and readable by the collector (0644).
///
/// One file may collect several commands, databases and tools: the samples
/// of other runs are kept, those of this command and database replaced, and
/// the lines of other tools kept as they were. Runs that end together take
/// turns: the read, merge and write happen under a lock beside the file
/// (`.dbtool-metrics-NAME.lock`), so that no run's samples are lost. The
/// last success time is carried over a failed run, so that an alert on "no
/// successful backup in 26 h" sees the failures.
///
/// dbtool never replaces a file it did not write: the file must be absent,
/// empty, or Prometheus text (73 otherwise, untouched), and a regular file
/// (64 for a directory, a FIFO, a device); the write gate keeps it off the
/// database's files.
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
        ("dbtool_check_problems", "What the last check found wrong: integrity findings plus foreign key violations (0: sound)."),
        ("dbtool_database_free_pages", "The database's free pages at the last check."),
        ("dbtool_replicate_updated_timestamp_seconds", "When `dbtool replicate` last wrote its metrics (every 15 s while it runs)."),
        ("dbtool_replicate_lag_seconds", "How long commits have waited to be shipped (0: all shipped)."),
        ("dbtool_replicate_pending_bytes", "The bytes of LTX files waiting in the outbox."),
        ("dbtool_replicate_shipped_txid", "The last transaction ID the replica holds."),
    ]

    /// How long a run waits for another to finish writing the file.
    static let lockTimeout: TimeInterval = 30

    /// Checks, before a run, that its metrics can go to `path`: through the
    /// write gate, into an existing directory, onto nothing but a file dbtool
    /// may replace. Returns the path made absolute.
    ///
    /// - throws: ``DBToolError`` 64 for a protected object or a path that is
    ///   not a file; 73 for a file that is not Prometheus text or a missing
    ///   directory; 77 when it can not be read.
    @discardableResult
    public static func check(_ path: String, gate: WriteGate) throws -> String {
        let absolute = try LocalPath.resolve(path, what: "--metrics-file")
        try gate.check(absolute, .file, what: "--metrics-file")
        let directory = LocalPath.parent(of: absolute)
        guard FileSystem.isDirectory(directory) else {
            throw DBToolError(
                .cantCreate, "can not write the metrics file \(absolute): its directory \(directory) does not exist",
                hint: "Create the directory first (node_exporter's textfile directory, for example), or fix --metrics-file.")
        }
        _ = try existingLines(absolute)
        return absolute
    }

    /// Writes `run` into the file at `path`, keeping the other samples.
    ///
    /// - throws: ``DBToolError`` naming the file when it can not be written.
    public static func write(_ run: RunMetrics, to path: String) throws {
        let end = seconds(run.end.timeIntervalSince1970)
        try update(path) { previous in
            // A database that is gone keeps the label it had while it was there.
            let database =
                run.formerNames.first { name in
                    previous["dbtool_last_run_timestamp_seconds{command=\"\(escape(run.command))\",database=\"\(escape(name))\"}"] != nil
                } ?? run.database
            let labels = "command=\"\(escape(run.command))\",database=\"\(escape(database))\""
            let databaseLabel = "database=\"\(escape(database))\""
            var changes = [
                "dbtool_last_run_timestamp_seconds{\(labels)}": end,
                "dbtool_last_success_timestamp_seconds{\(labels)}":
                    run.exitStatus == 0 ? end : previous["dbtool_last_success_timestamp_seconds{\(labels)}"] ?? "0",
                "dbtool_last_run_duration_seconds{\(labels)}": seconds(run.duration),
                "dbtool_last_run_exit_status{\(labels)}": String(run.exitStatus),
                "dbtool_database_size_bytes{\(databaseLabel)}": String(FileSystem.size(database)),
                "dbtool_wal_size_bytes{\(databaseLabel)}": String(FileSystem.size(database + "-wal")),
            ]
            if let bytes = run.bytes {
                changes["dbtool_last_run_bytes{\(labels)}"] = String(bytes)
            } else if previous["dbtool_last_run_bytes{\(labels)}"] != nil {
                changes["dbtool_last_run_bytes{\(labels)}"] = "0"  // a failed run wrote nothing
            }
            for (name, value) in run.gauges where metricNames.contains(name) {
                changes["\(name){\(databaseLabel)}"] = String(value)
            }
            return changes
        }
    }

    /// Writes the state of a running `replicate` into the file at `path`,
    /// keeping the other samples.
    public static func writeReplication(
        database: String, replica: String, lag: TimeInterval, pendingBytes: Int64, shippedTXID: UInt64, now: Date, to path: String
    ) throws {
        let labels = "database=\"\(escape(database))\",replica=\"\(escape(replica))\""
        try update(path) { _ in
            [
                "dbtool_replicate_updated_timestamp_seconds{\(labels)}": seconds(now.timeIntervalSince1970),
                "dbtool_replicate_lag_seconds{\(labels)}": seconds(lag),
                "dbtool_replicate_pending_bytes{\(labels)}": String(pendingBytes),
                "dbtool_replicate_shipped_txid{\(labels)}": String(shippedTXID),
                "dbtool_database_size_bytes{database=\"\(escape(database))\"}": String(FileSystem.size(database)),
                "dbtool_wal_size_bytes{database=\"\(escape(database))\"}": String(FileSystem.size(database + "-wal")),
            ]
        }
    }

    /// The runs of a fleet finish on several threads: one rewrite at a time
    /// in this process (the lock file serialises processes).
    private static let writing = Locked(false)

    /// Reads the file under its lock, merges the samples `changes` returns
    /// (given dbtool's samples already there), and writes it.
    private static func update(_ path: String, _ changes: ([String: String]) -> [String: String]) throws {
        let path = try LocalPath.resolve(path, what: "--metrics-file")
        let directory = LocalPath.parent(of: path)
        let name = LocalPath.name(of: path)
        try writing.withLock { _ in
            let lock: ExclusiveLock
            do {
                lock = try ExclusiveLock(directory: directory, purpose: .metrics(name), timeout: lockTimeout)
            } catch let error as DBToolError {
                throw DBToolError(error.status, "can not write the metrics file \(path): \(error.message)", hint: error.hint)
            }
            try withExtendedLifetime(lock) {
                let existing = try existingLines(path)
                var samples = dbtoolSamples(existing)
                samples.merge(changes(samples)) { $1 }
                try write(path, foreign: existing.filter { !isDBToolLine($0) }, samples: samples)
            }
        }
    }

    /// The file's lines; none when it does not exist or is empty.
    ///
    /// - throws: ``DBToolError`` 64 when the path is not a regular file, 73
    ///   when the file is not Prometheus text (it is left as it is).
    private static func existingLines(_ path: String) throws -> [Substring] {
        let bytes: [UInt8]
        do {
            guard try FileSystem.status(path) != nil else { return [] }
            bytes = try FileSystem.contents(path)
        } catch let error as NotRegularFile {
            throw DBToolError(
                .usage, "--metrics-file \(path) is \(error.kind.description): it names the file metrics are written to",
                hint: "Name a file, such as /var/lib/node_exporter/textfile/dbtool.prom.")
        } catch let error as FileSystemError {
            throw error.reported(hint: "Check --metrics-file and its permissions.")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw notMetrics(path, "it is not UTF-8 text")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where !PrometheusText.isValidLine(line) {
            throw notMetrics(path, "line \(number + 1) is not Prometheus text: \(String(line.prefix(80)).debugDescription)")
        }
        return lines.filter { !$0.isEmpty }
    }

    private static func notMetrics(_ path: String, _ reason: String) -> DBToolError {
        DBToolError(
            .cantCreate,
            "--metrics-file \(path) holds something other than metrics (\(reason)): dbtool replaces only a metrics file; nothing was changed",
            hint: "Check the path (a typo may name another file); give a new file, or one that holds Prometheus text.")
    }

    /// Whether a line is one of dbtool's samples, or their help or type.
    private static func isDBToolLine(_ line: Substring) -> Bool {
        let body = line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") ? line.dropFirst(7) : line
        let name = body.prefix { $0 != "{" && $0 != " " }
        return metricNames.contains(String(name))
    }

    private static let metricNames = Set(metrics.map(\.name))

    /// dbtool's samples among `lines` (`name{labels}` to value).
    private static func dbtoolSamples(_ lines: [Substring]) -> [String: String] {
        var samples: [String: String] = [:]
        for line in lines where !line.hasPrefix("#") && isDBToolLine(line) {
            guard let close = line.ranges(of: "} ").last else { continue }
            samples[String(line[..<close.lowerBound]) + "}"] = String(line[close.upperBound...])
        }
        return samples
    }

    /// Writes the other tools' lines as they were, then dbtool's families.
    private static func write(_ path: String, foreign: [Substring], samples: [String: String]) throws {
        var text = foreign.map { $0 + "\n" }.joined()
        for metric in metrics {
            let lines = samples.filter { $0.key.hasPrefix(metric.name + "{") }.sorted { $0.key < $1.key }
            guard !lines.isEmpty else { continue }
            text += "# HELP \(metric.name) \(metric.help)\n# TYPE \(metric.name) gauge\n"
            for (key, value) in lines { text += "\(key) \(value)\n" }
        }
        do {
            // The temp file's name does not end in .prom: the collector reads only whole files.
            try writeSmallFile(path, contents: text, mode: 0o644, tempSuffix: ".tmp")
        } catch let error as DBToolError {
            throw DBToolError(
                error.status, "can not write the metrics file \(path) (\(error.message))", hint: "Check --metrics-file and its directory.")
        }
    }

    /// A label value as the text format escapes it.
    static func escape(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            .replacing("\n", with: "\\n")
    }

    private static func seconds(_ value: Double) -> String { Decimals.text(value, places: 3) }
}

/// The lines of Prometheus's text exposition format, as a metrics file may
/// hold them: comments (`# HELP`, `# TYPE`, others), blank lines, and
/// samples `name{label="value",...} value [timestamp]`.
enum PrometheusText {
    /// Whether `line` is a line of the format.
    static func isValidLine(_ line: Substring) -> Bool {
        var scanner = Scanner(line.utf8)
        scanner.skipSpaces()
        if scanner.isAtEnd { return true }
        if scanner.peek == UInt8(ascii: "#") { return true }
        guard scanner.metricName() else { return false }
        if scanner.peek == UInt8(ascii: "{") {
            guard scanner.labels() else { return false }
        }
        guard scanner.skipSpaces() > 0, scanner.value() else { return false }
        if scanner.skipSpaces() > 0 && !scanner.isAtEnd {
            guard scanner.timestamp() else { return false }
            scanner.skipSpaces()
        }
        return scanner.isAtEnd
    }

    private struct Scanner {
        let bytes: Substring.UTF8View
        var index: Substring.UTF8View.Index

        init(_ bytes: Substring.UTF8View) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var isAtEnd: Bool { index == bytes.endIndex }
        var peek: UInt8? { isAtEnd ? nil : bytes[index] }

        mutating func advance() { index = bytes.index(after: index) }

        @discardableResult
        mutating func skipSpaces() -> Int {
            var count = 0
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                advance()
                count += 1
            }
            return count
        }

        private static func isNameStart(_ byte: UInt8, colons: Bool) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_")
                || (colons && byte == UInt8(ascii: ":"))
        }

        private static func isNameByte(_ byte: UInt8, colons: Bool) -> Bool {
            isNameStart(byte, colons: colons) || (0x30...0x39).contains(byte)
        }

        mutating func name(colons: Bool) -> Bool {
            guard let first = peek, Self.isNameStart(first, colons: colons) else { return false }
            advance()
            while let byte = peek, Self.isNameByte(byte, colons: colons) { advance() }
            return true
        }

        mutating func metricName() -> Bool { name(colons: true) }

        /// `{name="value",...}`, a trailing comma allowed.
        mutating func labels() -> Bool {
            advance()  // {
            while true {
                skipSpaces()
                if peek == UInt8(ascii: "}") {
                    advance()
                    return true
                }
                guard name(colons: false) else { return false }
                skipSpaces()
                guard peek == UInt8(ascii: "=") else { return false }
                advance()
                skipSpaces()
                guard peek == UInt8(ascii: "\"") else { return false }
                advance()
                while true {
                    guard let byte = peek else { return false }
                    advance()
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = peek, [UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "n")].contains(escaped) else {
                            return false
                        }
                        advance()
                    }
                }
                skipSpaces()
                if peek == UInt8(ascii: ",") {
                    advance()
                } else if peek != UInt8(ascii: "}") {
                    return false
                }
            }
        }

        private mutating func word() -> Substring {
            let start = index
            while let byte = peek, byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { advance() }
            return Substring(bytes[start..<index])
        }

        /// A float as Go's ParseFloat reads it, or Inf and NaN.
        mutating func value() -> Bool {
            let text = word()
            if ["+Inf", "-Inf", "Inf", "NaN"].contains(text) { return true }
            return !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) } && Double(text) != nil
        }

        /// Milliseconds since 1970, an integer.
        mutating func timestamp() -> Bool {
            let text = word()
            return Int64(text) != nil
        }
    }
}
