import Foundation

/// `dbtool replicate`: ships every committed transaction of a live WAL
/// database to a replica (a directory or an `s3://` prefix) within the sync
/// interval, as LTX files in Litestream 0.5's layout, until SIGTERM.
///
/// Each sync writes one file into the outbox, a private directory beside
/// the database (`.dbtool-replicate/`, never archived by `dbtool backup`),
/// and the outbox is then uploaded in TXID order. A store that is away
/// only delays the upload: files wait in the outbox (up to
/// ``outboxLimit`` bytes; past it, syncs pause and SQLite's log holds the
/// transactions instead, since the session keeps it pinned) and go up, in
/// order, when it answers again. Nothing is lost on a full local disk
/// either: the log stays pinned until a file could be written.
///
/// Replication takes over checkpoints (see `ReplicationSession`): it
/// checkpoints once the log holds ``checkpointPages`` pages. A snapshot of
/// the whole database goes to level 9 every ``snapshotInterval``.
///
/// A restart (after SIGKILL, a reboot) writes a full image of the database
/// as the TXID after the replica's last file: the replica's history goes on
/// without a gap, whatever happened to the database meanwhile. So does a
/// database replaced under a running replication (a restore into its
/// directory, a file moved in): the session starts over on the new file.
///
/// SIGTERM or SIGINT ends it: a last sync and upload, bounded by
/// ``shutdownTimeout``, then it returns; a second signal stops at once.
public struct ReplicateOperation: Sendable {
    public var database: DatabaseLocation
    /// `s3://BUCKET/PREFIX/` or a directory.
    public var replica: String
    public var syncInterval: TimeInterval = 1
    public var checkpointPages: Int64 = 1000
    public var snapshotInterval: TimeInterval = 86_400
    public var shutdownTimeout: TimeInterval = 10
    /// The most the outbox holds before syncs pause.
    public var outboxLimit: Int64 = 1 << 30
    /// How far back a restore can go: older files are deleted once a
    /// snapshot covers them.
    public var retention: TimeInterval = 86_400
    /// Whether files are merged into levels 1 and up.
    public var compacts = true
    /// The interval of each compaction level from 1 up (at most 8, each
    /// longer than the one before): Litestream's 30 s, 5 min and 1 h.
    public var compactionIntervals: [TimeInterval] = [30, 300, 3600]
    public var objectStore = ObjectStoreOptions()
    /// Receives one line per event (the CLI prints them on stderr).
    /// A Prometheus text file (`--metrics-file`) where the lag, the bytes
    /// waiting and the shipped TXID are written every ``metricsInterval``.
    public var metricsFile: String?
    public var metricsInterval: TimeInterval = 15
    public var log: @Sendable (String) -> Void = { _ in }
    /// Called once the replica holds the first file: the service is ready.
    public var ready: @Sendable () -> Void = {}
    /// What the run may not write onto: the database's files are added to it.
    public var gate = WriteGate()

    /// The outbox's name, in the database's directory.
    public static let outboxName = ".dbtool-replicate"

    public init(database: DatabaseLocation, replica: String) {
        self.database = database
        self.replica = replica
    }

    /// What the run did, once it stopped.
    public struct Report: Codable, Sendable, Equatable {
        public var database: String
        public var replica: String
        /// The last TXID in the replica, hexadecimal as in file names.
        public var txid: String
        /// Files uploaded during the run.
        public var filesShipped: Int
        /// Files left in the outbox (the store did not answer in time).
        public var filesPending: Int
        /// The signal that stopped it.
        public var stoppedBy: String?
    }

    /// Runs until a signal; `until` (for tests and embedders) can stop it too.
    ///
    /// - throws: ``DBToolError``: 75 when another `replicate` runs for the
    ///   database, 65 when it is not in WAL mode, 77 for refused credentials.
    public func run(until stop: @escaping () -> Bool = { false }) throws -> Report {
        try database.checkExists()
        var gate = self.gate
        gate.protect(database)
        let store = try Replica.at(replica, objectStore: objectStore)
        if let path = store.store.localPath { try gate.check(path, .directory, what: "the replica") }
        if let metricsFile { try MetricsFile.check(metricsFile, gate: gate) }
        let lock = try ExclusiveLock(for: database, purpose: .replicate, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        let identity = SeriesIdentity(location: database)
        try store.prepareForWriting()
        try ReplicaRecord.claim(store, for: identity)
        let outbox = try Outbox(in: database.directoryPath, gate: gate)
        let snapshots: [ReplicaFile]
        let last: UInt64
        do {
            snapshots = try store.files(level: LTXFileName.snapshotLevel)
            last = try store.lastTXID()
        } catch where Interruption.isRequested {
            // Stopped before it began: nothing to ship, a clean stop.
            let stoppedBy = Interruption.acknowledge()
            log("stopped\(stoppedBy.map { " by \($0)" } ?? "") before replication began")
            return Report(database: database.filePath, replica: store.description, txid: "", filesShipped: 0, filesPending: 0, stoppedBy: stoppedBy)
        }
        var session = try ReplicationSession(database: database.filePath, replica: outbox.path)
        session.nodeID = identity.nodeID
        try session.start(after: last)
        log(last == 0 ? "snapshot: TXID 1, the whole database" : "resumed: a full image as TXID \(last + 1), after the replica's \(LTXFileName.hex(last))")
        // Restores start from a level-9 snapshot, and retention keeps one: a replica without one gets it now.
        var lastSnapshot = snapshots.map(\.createdAt).max() ?? .distantPast
        if lastSnapshot == .distantPast {
            try session.snapshot()
            lastSnapshot = Date()
        }
        var uploader = Uploader(store: store, outbox: outbox, log: log, shippedTXID: last)
        var stopping = false
        do {
            try uploader.upload()
        } catch where Interruption.isRequested {
            stopping = true  // the last sync follows
        }
        var compaction = Compaction(store: store, scratch: outbox.path)
        compaction.nodeID = identity.nodeID
        compaction.levels = compactionIntervals.enumerated().map { Compaction.Level(level: $0.offset + 1, interval: $0.element) }
        var lastRetention = Date.distantPast
        ready()
        ServiceManager.notify("READY=1\nSTATUS=replicating to \(store.description)")
        let watchdog = ServiceManager.watchdogInterval()
        var lastHeartbeat = Date()
        var outboxFull = false
        var metrics = ReplicationMetrics(operation: self, replica: store.description)
        while !stopping && !stop() && !Interruption.isRequested {
            if let watchdog, Date().timeIntervalSince(lastHeartbeat) >= watchdog / 2 {
                ServiceManager.notify("WATCHDOG=1")
                lastHeartbeat = Date()
            }
            do {
                if outbox.size() < outboxLimit {
                    if outboxFull { log("outbox below \(ByteCount.text(outboxLimit)): syncing again") }
                    outboxFull = false
                    try session.sync()
                    if session.walPages() >= checkpointPages { try session.checkpoint() }
                    if Date().timeIntervalSince(lastSnapshot) >= snapshotInterval {
                        let name = try session.snapshot()
                        log("snapshot: \(name.fileName) at level \(name.level)")
                        lastSnapshot = Date()
                    }
                } else if !outboxFull {
                    outboxFull = true
                    log("outbox over \(ByteCount.text(outboxLimit)): syncs pause, the write-ahead log holds the transactions until the store takes them")
                }
            } catch let error as DBToolError where error.status == .ioError || error.status == .cantCreate {
                // A full disk: nothing is lost, the log stays pinned; try again.
                log("could not write to the outbox (\(error.message)): retrying")
            } catch let error as FileSystemError where error.errno != .interrupted {
                log("could not write to the outbox (\(error)): retrying")
            } catch let replaced as ReplicationSession.LogReplaced {
                // A new database under the same name: its history follows on as a full image.
                let next = session.txid
                try? session.close()
                session = try ReplicationSession(database: database.filePath, replica: outbox.path)
                session.nodeID = identity.nodeID
                try session.start(after: next)
                log("\(replaced): a full image follows as TXID \(LTXFileName.hex(next + 1))")
            } catch where Interruption.isRequested {
                break  // a signal cut a read or a write short: the last sync follows
            }
            do {
                try uploader.upload()
            } catch where Interruption.isRequested {
                break
            }
            if uploader.isIdle {
                maintain(&compaction, &lastRetention)
            }
            metrics.update(outbox: outbox, shippedTXID: uploader.shippedTXID)
            // Sleep till the next sync, telling systemd's watchdog on time.
            let wake = Date().addingTimeInterval(syncInterval)
            while Date() < wake && !stop() && !Interruption.isRequested {
                try? Interruption.sleep(seconds: min(wake.timeIntervalSinceNow, (watchdog ?? syncInterval * 2) / 2))
                if let watchdog, Date().timeIntervalSince(lastHeartbeat) >= watchdog / 2 {
                    ServiceManager.notify("WATCHDOG=1")
                    lastHeartbeat = Date()
                }
            }
        }
        // The last sync: bounded, and a second signal stops it.
        let stoppedBy = Interruption.acknowledge()
        ServiceManager.notify("STOPPING=1")
        let deadline = DispatchTime.now() + shutdownTimeout
        let timer = DispatchWorkItem { Interruption.requestAgain() }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: timer)
        defer { timer.cancel() }
        do {
            try session.sync()
            try uploader.upload(retrying: false)
        } catch {
            log("last sync incomplete: \(error)")
        }
        try? session.close()
        metrics.update(outbox: outbox, shippedTXID: uploader.shippedTXID, force: true)
        let report = Report(
            database: database.filePath, replica: store.description, txid: LTXFileName.hex(uploader.shippedTXID),
            filesShipped: uploader.shippedFiles, filesPending: (try? outbox.files().count) ?? 0, stoppedBy: stoppedBy)
        log("stopped\(stoppedBy.map { " by \($0)" } ?? ""): TXID \(report.txid) shipped, \(report.filesPending) files not shipped")
        return report
    }
}

extension ReplicateOperation {
    /// Compacts the levels whose interval passed, and applies retention
    /// once a minute; a failure is reported and tried again later: the
    /// replica stays restorable from level 0 meanwhile.
    fileprivate func maintain(_ compaction: inout Compaction, _ lastRetention: inout Date) {
        guard compacts else { return }
        do {
            for name in try compaction.run() { log("compacted: \(name.fileName) at level \(name.level)") }
            if Date().timeIntervalSince(lastRetention) >= 60 {
                lastRetention = Date()
                let deleted = try compaction.enforceRetention(retention)
                if !deleted.isEmpty { log("retention: \(deleted.count) files older than \(Int(retention)) s deleted") }
            }
        } catch {
            log("compaction failed, retrying later: \(error)")
        }
    }
}

/// The outbox: files written by the session, waiting for their upload.
struct Outbox {
    let path: String

    /// Opens (creating, 0700) the outbox in the database's `directory`;
    /// files a killed run left there are dropped: the new run's full image
    /// holds what they held. Whatever has the outbox's name is removed
    /// without following a link, and the gate checked first.
    init(in directory: String, gate: WriteGate) throws {
        path = (directory == "/" ? "" : directory) + "/" + ReplicateOperation.outboxName
        try gate.check(path, .ownFile, what: "the outbox")
        do {
            let parent = try DirectoryDescriptor.open(directory)
            defer { parent.close() }
            parent.removeTree(ReplicateOperation.outboxName)
            try parent.createDirectory(ReplicateOperation.outboxName)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of the database's directory.")
        }
    }

    /// The files waiting, in the order they go up: by TXID, level 0 first.
    func files() throws -> [LTXFileName] {
        try ReplicaLevels.all.flatMap { level -> [LTXFileName] in
            let directory = path + "/ltx/\(level)"
            guard FileSystem.isDirectory(directory) else { return [] }
            return try FileSystem.contentsOfDirectory(directory).compactMap { LTXFileName(level: level, fileName: $0) }
        }.sorted { ($0.maxTXID, $0.level) < ($1.maxTXID, $1.level) }
    }

    func file(_ name: LTXFileName) -> String { path + "/" + name.path }

    /// The bytes waiting.
    func size() -> Int64 {
        ((try? files()) ?? []).reduce(0) { $0 + FileSystem.size(file($1)) }
    }
}

/// Uploads the outbox in order, and reports when the store goes away and
/// comes back.
struct Uploader {
    let store: Replica
    let outbox: Outbox
    let log: @Sendable (String) -> Void
    private var failing = false
    /// The last TXID the replica holds at level 0.
    private(set) var shippedTXID: UInt64
    /// The files uploaded.
    private(set) var shippedFiles = 0
    /// Whether the last upload emptied the outbox.
    private(set) var isIdle = false

    init(store: Replica, outbox: Outbox, log: @escaping @Sendable (String) -> Void, shippedTXID: UInt64) {
        self.store = store
        self.outbox = outbox
        self.log = log
        self.shippedTXID = shippedTXID
    }

    /// Uploads what waits; a store that does not answer leaves it waiting
    /// (reported once), unless `retrying` is false: then the error is thrown.
    mutating func upload(retrying: Bool = true) throws {
        isIdle = false
        for name in try outbox.files() {
            let path = outbox.file(name)
            do {
                let timestamp = try Self.timestamp(of: path)
                try store.write(name, from: path, timestamp: timestamp)
            } catch let error as DBToolError where retrying && (error.status == .tempFail || error.status == .ioError) {
                if !failing { log("the replica \(store.description) does not answer (\(error.message)): files wait in the outbox") }
                failing = true
                return
            }
            _ = try? FileSystem.remove(path)
            if failing { log("the replica answers again: uploading the outbox") }
            failing = false
            shippedFiles += 1
            if name.level == 0 { shippedTXID = max(shippedTXID, name.maxTXID) }
        }
        isIdle = true
    }

    /// The time an LTX file's header records.
    static func timestamp(of path: String) throws -> Date {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { descriptor.close() }
        let bytes = try descriptor.read(fromAbsoluteOffset: 0, count: LTXHeader.size)
        let header = try bytes.withUnsafeBytes { try LTXHeader(decoding: $0) }
        return Date(timeIntervalSince1970: Double(header.timestamp) / 1000)
    }
}

/// The metrics of a running `replicate` (``ReplicateOperation/metricsFile``):
/// how long commits have waited in the outbox (since it was last empty),
/// written every ``ReplicateOperation/metricsInterval``. A failure to write
/// them is logged: replication goes on.
struct ReplicationMetrics {
    let operation: ReplicateOperation
    let replica: String
    private var lastWritten = Date.distantPast
    private var lastEmpty = Date()

    init(operation: ReplicateOperation, replica: String) {
        self.operation = operation
        self.replica = replica
    }

    mutating func update(outbox: Outbox, shippedTXID: UInt64, force: Bool = false) {
        let now = Date()
        let pending = outbox.size()
        if pending == 0 { lastEmpty = now }
        guard let path = operation.metricsFile, force || now.timeIntervalSince(lastWritten) >= operation.metricsInterval else { return }
        lastWritten = now
        do {
            try MetricsFile.writeReplication(
                database: operation.database.filePath, replica: replica, lag: pending == 0 ? 0 : now.timeIntervalSince(lastEmpty),
                pendingBytes: pending, shippedTXID: shippedTXID, now: now, to: path)
        } catch {
            operation.log("could not write the metrics file: \(error)")
        }
    }
}
