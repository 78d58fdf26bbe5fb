import ArgumentParser
import DBToolCore
import FoundationEssentials

struct ReplicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Replicate a database continuously, in Litestream's format; show a replica's state.",
        subcommands: [ReplicateRunCommand.self, ReplicateStatusCommand.self, ReplicateVerifyCommand.self],
        defaultSubcommand: ReplicateRunCommand.self)
}

struct ReplicateRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Ship every committed transaction to a replica within --sync-interval (the default of `dbtool replicate`).",
        discussion: """
            A long-running process, for systemd (dbtool-replicate@.service, Type=notify with a \
            watchdog) or a container's supervisor. Every --sync-interval, the transactions committed \
            since the last sync go to the replica as one LTX file (the format and layout of \
            Litestream 0.5: `litestream restore` reads the replica, and `dbtool restore` reads \
            Litestream's). The first run writes the whole database; a restart goes on from the \
            replica's position: the log after its last file when the log is still there, else the \
            pages that changed since (.dbtool-replicate-state records what the replica holds), so \
            its history has no gap and a restart costs what changed. Snapshots (level 9, every \
            --snapshot-interval), compactions and retention run on a lane of their own: level-0 \
            files never wait behind them.

            Replication reads SQLite's write-ahead log, holding a read transaction so that no \
            checkpoint can overwrite a frame not yet shipped, and takes over checkpoints: it \
            checkpoints once the log holds --checkpoint-pages pages, under the write lock, after \
            shipping the log to its end. The application's own passive checkpoints stay harmless; \
            a blocking one (`dbtool checkpoint --mode truncate`) waits for replication's read and \
            exits 75. The database must be in WAL mode.

            Files are written to an outbox beside the database (.dbtool-replicate/, which backups \
            never archive) and uploaded in order: while the store does not answer, they wait \
            there, up to --outbox-limit MiB (then syncs pause and the log holds the transactions), \
            and go up when it answers again; at start-up it is waited for, up to \
            --startup-timeout seconds. One line per event goes to stderr. SIGTERM or SIGINT: \
            a last sync and upload (at most --shutdown-timeout seconds), then exit 0; a second \
            signal stops at once. A second `replicate` of the same database exits 75. A replica \
            belongs to the database that first wrote it (dbtool-replica.json): another database \
            is refused (73), and `replicate verify` fails a replica of two histories.

            Examples:
              dbtool replicate --database /var/lib/myapp/db --to s3://backups/myapp-replica/
              dbtool replicate --database /var/lib/myapp/db --to /mnt/replica/myapp
              dbtool replicate --config /etc/litestream.yml
              dbtool replicate status s3://backups/myapp-replica/
              dbtool restore s3://backups/myapp-replica/ ./db --at 2026-11-26T21:55:21Z
            """)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The replica: s3://BUCKET/PREFIX/ or a directory (with --config: each database's replica).", valueName: "replica"),
        completion: .directory, transform: nonEmptyPath)
    var to: String?

    @Option(name: .long, help: ArgumentHelp("Seconds between syncs: the most a crash loses (default 1).", valueName: "seconds"))
    var syncInterval: Double = 1

    @Option(
        name: .long, help: ArgumentHelp("Checkpoint once the write-ahead log holds this many pages (default 1000).", valueName: "pages"))
    var checkpointPages: Int64 = 1000

    @Option(name: .long, help: ArgumentHelp("Hours between snapshots of the whole database (default 24).", valueName: "hours"))
    var snapshotInterval: Double = 24

    @Option(name: .long, help: ArgumentHelp("The most the outbox holds while the store is away, in MiB (default 1024).", valueName: "mib"))
    var outboxLimit: Int64 = 1024

    @Option(
        name: .long, help: ArgumentHelp("The longest the last sync takes after SIGTERM, in seconds (default 10).", valueName: "seconds"))
    var shutdownTimeout: Double = 10

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long to wait for a store that does not answer at start-up, in seconds (default 300; then 75).", valueName: "seconds"))
    var startupTimeout: Double = 300

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How far back a restore can go: 30min, 24h, 7d, 1mo (default 24h; a bare m is minutes, as Litestream's). Older files go once a snapshot covers them.",
            valueName: "duration"),
        transform: DurationArgument.init(parsing:))
    var retention = DurationArgument(seconds: 86_400)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The interval of each compaction level from 1 up, each longer than the last (default 30s,5m,1h, as Litestream).",
            valueName: "durations"),
        transform: { text in try text.split(separator: ",", omittingEmptySubsequences: false).map { try parseDuration(String($0)) } })
    var compactionLevels: [TimeInterval] = [30, 300, 3600]

    @Flag(name: .long, help: "Do not merge files into higher levels (a restore then reads every level-0 file since a snapshot).")
    var noCompaction = false

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions
    @OptionGroup var log: LogOptions

    func validate() throws {
        if database.config == nil && to == nil {
            throw ValidationError("no replica: pass --to s3://BUCKET/PREFIX/ or a directory (or --config FILE)")
        }
        if database.config != nil && to != nil { throw ValidationError("--config names each database's replica: it takes no --to") }
        guard syncInterval >= 0.01 && syncInterval <= 3600 else { throw ValidationError("--sync-interval takes 0.01 to 3600 seconds") }
        guard checkpointPages >= 1 else { throw ValidationError("--checkpoint-pages takes a positive number of pages") }
        guard snapshotInterval > 0 else { throw ValidationError("--snapshot-interval takes a positive number of hours") }
        guard outboxLimit >= 1 else { throw ValidationError("--outbox-limit takes a positive number of MiB") }
        guard shutdownTimeout >= 0 && shutdownTimeout <= 3600 else { throw ValidationError("--shutdown-timeout takes 0 to 3600 seconds") }
        guard startupTimeout >= 0 && startupTimeout <= 86_400 else { throw ValidationError("--startup-timeout takes 0 to 86400 seconds") }
        guard (1...8).contains(compactionLevels.count), zip(compactionLevels, compactionLevels.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw ValidationError("--compaction-levels takes 1 to 8 durations, each longer than the one before (30s,5m,1h)")
        }
    }

    func run() throws {
        if let configuration = try database.configuration { return try run(configuration) }
        let handle = try database.handle
        var operation = ReplicateOperation(database: handle.location, replica: to ?? "")
        operation.metricsFile = metrics.metricsFile
        operation.gate = handle.gate
        operation.syncInterval = syncInterval
        operation.checkpointPages = checkpointPages
        operation.snapshotInterval = snapshotInterval * 3600
        operation.outboxLimit = outboxLimit << 20
        operation.shutdownTimeout = shutdownTimeout
        operation.startupTimeout = startupTimeout
        operation.retention = retention.seconds
        operation.compacts = !noCompaction
        operation.compactionIntervals = compactionLevels
        operation.objectStore = objectStore.options
        let quiet = output.quiet
        let name = operation.database.filePath
        operation.log = log.sink(command: "replicate", database: name, quiet: quiet)
        if let note = retention.readAs(option: "--retention") { operation.log(.info, note) }
        let replicate = operation
        try runReporting(output, operation: { try metrics.recorded("replicate", database: handle) { (try replicate.run(), nil) } }) {
            report in
            "Replicated \(report.database) to \(report.replica) up to TXID \(report.txid): \(report.filesShipped) files shipped"
                + (report.filesPending > 0 ? ", \(report.filesPending) left in the outbox" : "") + ".\n"
        }
    }
}

extension ReplicateRunCommand {
    /// Every database of a Litestream configuration file, in one process:
    /// the file's settings where it gives them, the command line's elsewhere.
    private func run(_ configuration: LitestreamConfig) throws {
        let listed = configuration.databases.compactMap { entry in entry.replica.map { (entry, $0) } }
        for database in configuration.databases where database.replica == nil {
            StandardStreams.writeError(
                "dbtool: warning: \(configuration.file):\(database.line): \(database.path) has no replica: not replicated\n")
        }
        guard !listed.isEmpty else {
            throw DBToolError(
                .usage, "\(configuration.file) gives no database a replica: nothing to replicate",
                hint: "Give each database a replica: with its url.")
        }
        let locations = try listed.map { try DatabaseLocation(path: $0.0.path, fileName: database.fileName) }
        let quiet = output.quiet
        let operations = zip(listed, locations).map { listing, location -> ReplicateOperation in
            let (entry, replica) = listing
            var operation = ReplicateOperation(database: location, replica: replica.location)
            operation.gate = WriteGate(protecting: locations)
            operation.metricsFile = metrics.metricsFile ?? entry.dbtool.metricsFile
            operation.syncInterval = replica.syncInterval ?? syncInterval
            operation.checkpointPages = entry.checkpointPages ?? checkpointPages
            operation.snapshotInterval = replica.snapshotInterval ?? configuration.snapshotInterval ?? snapshotInterval * 3600
            operation.outboxLimit = outboxLimit << 20
            operation.shutdownTimeout = configuration.shutdownTimeout ?? shutdownTimeout
            operation.startupTimeout = startupTimeout
            operation.retention = replica.retention ?? configuration.retention ?? retention.seconds
            operation.compacts = !noCompaction
            operation.compactionIntervals = configuration.compactionLevels ?? compactionLevels
            operation.objectStore = replica.objectStore(over: objectStore.options)
            operation.log = log.sink(command: "replicate", database: location.filePath, quiet: quiet)
            if replica.retention == nil && configuration.retention == nil, let note = retention.readAs(option: "--retention") {
                operation.log(.info, note)
            }
            return operation
        }
        var fleet = ReplicateFleet(operations)
        let format = log.logFormat
        fleet.failed = { operation, error in
            let line = ServiceLog(format: format, command: "replicate", database: operation.database.filePath)
            StandardStreams.writeError(line.line(.warning, "stopped: \(error.message)" + (error.hint.map { " (\($0))" } ?? "")))
        }
        let report = fleet.run()
        try runReporting(output, operation: { report }) { report in
            report.databases.map { outcome in
                if let error = outcome.error { return "\(outcome.database): error \(error.status): \(error.message)" }
                guard let report = outcome.report, !report.txid.isEmpty else {
                    return "\(outcome.database): stopped before replication to \(outcome.replica) began."
                }
                return
                    "Replicated \(outcome.database) to \(outcome.replica) up to TXID \(report.txid): \(report.filesShipped) files shipped."
            }.joined(separator: "\n") + "\n"
        }
        if report.status != 0 { throw ExitCode(report.status) }
    }
}

struct ReplicateStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a replica's last TXID, its time and lag, and its files by level.",
        discussion: """
            Examples:
              dbtool replicate status s3://backups/myapp-replica/
              dbtool replicate status /mnt/replica/myapp --format json
            """)

    @Argument(help: "The replica: s3://BUCKET/PREFIX/ or a directory.", completion: .directory, transform: nonEmptyPath)
    var replica: String

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = ReplicaStatusOperation(replica: replica)
        operation.objectStore = objectStore.options
        try runReporting(output, operation: { try operation.run() }) { report in
            guard let txid = report.txid, let time = report.time else { return "\(report.replica) is empty.\n" }
            var text = "\(report.replica): TXID \(txid) at \(ISOTime.text(time)) (\(Int(report.lagSeconds ?? 0)) s ago)"
            if let earliest = report.earliest { text += "; restorable from \(ISOTime.text(earliest))" }
            text += "\n"
            for level in report.levels {
                text +=
                    "  level \(level.level): \(level.files) files, \(ByteCount.text(level.bytes)), TXID \(level.minTXID ?? "-") to \(level.maxTXID ?? "-")\n"
            }
            return text
        }
    }
}

struct ReplicateVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Read every file of a replica, check it and the chain, and say what is restorable.",
        discussion: """
            Each file is read whole and its CRC-64 checked, and its header must cover the TXIDs \
            its name says; the chain from the oldest snapshot must reach the last TXID. A damaged \
            or missing file exits 65, naming it or the TXIDs lost; 0 prints the earliest and latest \
            restorable moments.

            Examples:
              dbtool replicate verify s3://backups/myapp-replica/
              dbtool replicate verify /mnt/replica/myapp --format json
            """)

    @Argument(help: "The replica: s3://BUCKET/PREFIX/ or a directory.", completion: .directory, transform: nonEmptyPath)
    var replica: String

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = ReplicaVerifyOperation(replica: replica)
        operation.objectStore = objectStore.options
        try runReporting(output, operation: { try operation.run() }) { report in
            """
            \(report.replica) is sound: \(report.files) files (\(ByteCount.text(report.bytes))) checked; restorable from \
            TXID \(report.earliestTXID) (\(ISOTime.text(report.earliest))) to TXID \(report.latestTXID) (\(ISOTime.text(report.latest))).

            """
        }
    }
}
