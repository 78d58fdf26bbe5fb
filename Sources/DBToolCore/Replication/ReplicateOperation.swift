import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `dbtool replicate`: ships every committed transaction of a live WAL
/// database to a replica (a directory or an `s3://` prefix) within the sync
/// interval, as LTX files in Litestream 0.5's layout, until SIGTERM.
///
/// Two lanes. The shipping lane (the calling thread) reads the log each
/// ``syncInterval`` into one level-0 file of the outbox, a private
/// directory beside the database (`.dbtool-replicate/`, never archived by
/// `dbtool backup`), and uploads the outbox in TXID order. The maintenance
/// lane (`MaintenanceLane`) writes and uploads snapshots, compacts and
/// applies retention beside it, with its own connection to the store: no
/// level-0 file waits behind a large upload.
///
/// A store that is away only delays the upload: files wait in the outbox
/// (up to ``outboxLimit`` bytes; past it, syncs pause and SQLite's log
/// holds the transactions instead, since the session keeps it pinned) and
/// go up, in order, when it answers again; at start-up it is waited for, up
/// to ``startupTimeout``. Nothing is lost on a full local disk either: the
/// log stays pinned until a file could be written.
///
/// Replication takes over checkpoints (see `ReplicationSession`): it
/// checkpoints once the log holds ``checkpointPages`` pages. A snapshot of
/// the whole database goes to level 9 every ``snapshotInterval``.
///
/// A restart (after a stop, SIGKILL, a reboot) goes on from the replica's
/// position (`ReplicationStart`): the log after the replica's last file
/// when it is still there, else the pages that changed since (what the
/// replica holds is recorded beside the database, `ReplicaState`); the
/// whole database only when nothing tells what the replica holds. A
/// database replaced under a running replication (a restore into its
/// directory, a file moved in) goes on as a full image.
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
    /// How long a store that does not answer at start-up is waited for,
    /// with backoff, before the run fails with 75.
    public var startupTimeout: TimeInterval = 300
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
    /// A Prometheus text file (`--metrics-file`) where the lag, the bytes
    /// waiting and the shipped TXID are written every ``metricsInterval``.
    public var metricsFile: String?
    public var metricsInterval: TimeInterval = 15
    /// Receives one line per event (the CLI prints them on stderr).
    public var log: LogSink = { _, _ in }
    /// Called once the replica holds the database's state at the start:
    /// the service is ready.
    public var ready: @Sendable () -> Void = {}
    /// Whether the operation tells systemd it is ready (`READY=1`); one of
    /// several databases replicated by one process leaves that to the
    /// ``ReplicateFleet``, which says so once every one is.
    public var notifiesReady = true
    /// Whether the operation takes SIGTERM and SIGINT itself
    /// (`Interruption.acknowledge()`): one of a ``ReplicateFleet`` leaves
    /// that to the fleet, which stops them all through `run(until:)`.
    public var acknowledgesSignals = true
    /// What the run may not write onto: the database's files are added to it.
    public var gate = WriteGate()

    /// The outbox's name, in the database's directory.
    public static let outboxName = ".dbtool-replicate"

    /// A start image larger than this goes up on the maintenance lane,
    /// while the level-0 files after it go up beside it.
    static let handOffSize: Int64 = 8 << 20

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
    ///   database or the store stayed away past ``startupTimeout``, 65 when
    ///   it is not in WAL mode, 73 when the replica belongs to another
    ///   database, 77 for refused credentials.
    public func run(until stop: @escaping () -> Bool = { false }) throws -> Report {
        try database.checkExists()
        var gate = self.gate
        gate.protect(database)
        let replica = try Replica.at(self.replica, objectStore: objectStore)
        if let path = replica.store.localPath { try gate.check(path, .directory, what: "the replica") }
        if let metricsFile { try MetricsFile.check(metricsFile, gate: gate) }
        let lock = try ExclusiveLock(for: database, purpose: .replicate, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        let identity = SeriesIdentity(location: database)
        try replica.prepareForWriting()
        let outbox = try Outbox(in: database.directoryPath, gate: gate)
        let state = try openState(nodeID: identity.nodeID, replica: replica.description)
        var session = try ReplicationSession(database: database.filePath, outbox: outbox.path)
        session.nodeID = identity.nodeID
        let start: ReplicationStart.Outcome
        do {
            start = try waitingForStore(stop) {
                try ReplicaRecord.claim(replica, for: identity)
                return try ReplicationStart(replica: replica, session: session, state: state, nodeID: identity.nodeID).run()
            }
        } catch  where Interruption.isRequested || stop() {
            // Stopped before it began: nothing to ship, a clean stop.
            let stoppedBy = acknowledgesSignals ? Interruption.acknowledge() : nil
            try? session.close()
            log(.info, "stopped\(stoppedBy.map { " by \($0)" } ?? "") before replication began")
            return Report(
                database: database.filePath, replica: replica.description, txid: "", filesShipped: 0, filesPending: 0, stoppedBy: stoppedBy)
        }
        log(.info, start.description)
        // A replica that starts with the whole database has its first snapshot.
        let maintenance = try startMaintenance(identity: identity, outbox: outbox, replica: replica, imageNow: start.file?.minTXID == 1)
        var uploader = Uploader(replica: replica, outbox: outbox, state: state, log: log, shippedTXID: start.replicaTXID)
        uploader.keepsShipped = compacts
        if let file = start.file, FileSystem.size(outbox.file(file)) > Self.handOffSize {
            uploader.handedOff = file
            maintenance.upload(startImage: file, from: outbox.file(file))
        }
        var lane = ShippingTick(operation: self, outbox: outbox, readyAt: start.file?.maxTXID ?? start.replicaTXID)
        var stopping = false
        while !stopping && !stop() && !Interruption.isRequested {
            do {
                try lane.tick(&session, &uploader, maintenance: maintenance, replica: replica)
            } catch  where Interruption.isRequested {
                stopping = true  // a signal cut a read or a write short: the last sync follows
            }
            lane.sleepUntilNextSync(stop: stop)
        }
        return finish(
            session: session, uploader: &uploader, maintenance: maintenance, outbox: outbox, lane: &lane, replica: replica, stop: stop)
    }

    /// The state of what the replica holds, beside the database.
    private func openState(nodeID: UInt64, replica: String) throws -> ReplicaState {
        do {
            let directory = try DirectoryDescriptor.open(database.directoryPath)
            defer { directory.close() }
            return try ReplicaState.open(in: directory, nodeID: nodeID, replica: replica)
        } catch {
            throw (error as? FileSystemError)?.reported(.cantCreate, hint: "Check the permissions of the database's directory.") ?? error
        }
    }

    /// Runs `body` until the store answers: a store away at start-up is
    /// waited for, logged once, with backoff, up to ``startupTimeout``.
    private func waitingForStore<T>(_ stop: () -> Bool, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(startupTimeout)
        var delay = 1.0
        var reported = false
        while true {
            do {
                return try body()
            } catch let error as DBToolError where error.isTransient && !Interruption.isRequested && !stop() && Date() < deadline {
                if !reported {
                    log(.warning, "the replica does not answer (\(error.message)): waiting for it, up to \(Int(startupTimeout)) s")
                }
                reported = true
                let wake = Date().addingTimeInterval(min(delay, deadline.timeIntervalSinceNow))
                while Date() < wake && !stop() { try Interruption.sleep(seconds: min(0.2, max(0, wake.timeIntervalSinceNow))) }
                if stop() { throw error }
                delay = min(delay * 2, 30)
            }
        }
    }

    /// Starts the maintenance lane, on its own connection to the replica.
    private func startMaintenance(identity: SeriesIdentity, outbox: Outbox, replica: Replica, imageNow: Bool) throws -> MaintenanceLane {
        let own = try Replica.at(self.replica, objectStore: objectStore)
        // Retention keeps a level-9 snapshot: a replica without one gets it
        // now, unless it starts with the whole database (then in one interval).
        // (A level-0 file from TXID 1 is a whole image too.)
        let images = try replica.files(level: LTXFileName.snapshotLevel) + replica.files(level: 0, firstTXIDs: 1...1)
        let lastSnapshot = imageNow ? Date() : images.map(\.createdAt).max() ?? .distantPast
        let levels = compacts ? compactionIntervals.enumerated().map { Compaction.Level(level: $0.offset + 1, interval: $0.element) } : nil
        let lane = MaintenanceLane(
            replica: own, scratch: outbox.maintenance, localLevelZero: compacts ? outbox.shipped : nil, snapshotInterval: snapshotInterval,
            syncInterval: syncInterval, lastSnapshot: lastSnapshot, compactionLevels: levels, retention: retention, nodeID: identity.nodeID,
            log: log)
        lane.start()
        return lane
    }

    /// The stop: the last sync and upload, bounded by ``shutdownTimeout``
    /// (a second signal stops at once), the maintenance lane ended, the report.
    private func finish(
        session: ReplicationSession, uploader: inout Uploader, maintenance: MaintenanceLane, outbox: Outbox, lane: inout ShippingTick,
        replica: Replica, stop: () -> Bool
    ) -> Report {
        if !acknowledgesSignals {
            // The fleet takes the signal for all: wait for it, so that the
            // last sync does not see it as a second signal.
            while Interruption.isRequested && !stop() { usleep(10_000) }
        }
        let stoppedBy = acknowledgesSignals ? Interruption.acknowledge() : nil
        ServiceManager.notify("STOPPING=1")
        let deadline = DispatchTime.now() + shutdownTimeout
        let timer = DispatchWorkItem { Interruption.requestAgain() }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: timer)
        defer { timer.cancel() }
        maintenance.cancelSnapshot()
        do {
            try session.sync()
            if uploader.handedOff != nil {
                // The start image first: the files after it are restorable only with it.
                maintenance.stop(deadline: Date().addingTimeInterval(shutdownTimeout))
                if maintenance.takeStartImageLanded() { uploader.handedOffLanded() }
            }
            try uploader.upload(retrying: false)
        } catch {
            log(.warning, "last sync incomplete: \(error)")
        }
        maintenance.stop(deadline: Date().addingTimeInterval(1))
        try? session.close()
        lane.metrics.update(outbox: outbox, shippedTXID: uploader.shippedTXID, force: true)
        let report = Report(
            database: database.filePath, replica: replica.description, txid: LTXFileName.hex(uploader.shippedTXID),
            filesShipped: uploader.shippedFiles, filesPending: (try? outbox.files().count) ?? 0, stoppedBy: stoppedBy)
        log(.info, "stopped\(stoppedBy.map { " by \($0)" } ?? ""): TXID \(report.txid) shipped, \(report.filesPending) files not shipped")
        return report
    }
}

/// One round of the shipping lane: sync, checkpoint, upload, then a
/// snapshot plan for the maintenance lane when one is due and the upload
/// of what it synced, metrics, and the service's signals.
struct ShippingTick {
    let operation: ReplicateOperation
    let outbox: Outbox
    /// The TXID the replica must hold for the service to be ready.
    let readyAt: UInt64
    private(set) var isReady = false
    private var outboxFull = false
    private let watchdog = ServiceManager.watchdogInterval()
    private var lastHeartbeat = Date()
    /// A log this many times ``ReplicateOperation/checkpointPages`` (one a
    /// snapshot kept from restarting) is copied beside the lane first.
    static let longCheckpointFactor: Int64 = 4
    /// When the last tick began: syncs follow one another one interval apart.
    private var started = Date()
    var metrics: ReplicationMetrics

    init(operation: ReplicateOperation, outbox: Outbox, readyAt: UInt64) {
        self.operation = operation
        self.outbox = outbox
        self.readyAt = readyAt
        metrics = ReplicationMetrics(operation: operation, replica: operation.replica)
    }

    mutating func tick(_ session: inout ReplicationSession, _ uploader: inout Uploader, maintenance: MaintenanceLane, replica: Replica)
        throws
    {
        started = Date()
        heartbeat()
        let checkpointPages = operation.checkpointPages
        let synced = try writingOutbox(&session, &uploader, maintenance: maintenance) { session in
            try session.sync()
            try Self.checkpointIfDue(session, pages: checkpointPages)
        }
        try ship(&uploader, maintenance: maintenance)
        if synced && maintenance.wantsSnapshot {
            try writingOutbox(&session, &uploader, maintenance: maintenance) { session in
                maintenance.take(try session.prepareImage())
            }
            try ship(&uploader, maintenance: maintenance)
        }
        if !isReady && uploader.shippedTXID >= readyAt {
            isReady = true
            operation.ready()
            if operation.notifiesReady { ServiceManager.notify("READY=1\nSTATUS=replicating to \(replica.description)") }
        }
        metrics.update(outbox: outbox, shippedTXID: uploader.shippedTXID)
    }

    /// Checkpoints once the log holds `pages` (``ReplicateOperation/checkpointPages``),
    /// never while a snapshot reads (its read transaction keeps the log
    /// from restarting). A long log, the one a snapshot left, is first
    /// copied on a thread of its own (seconds of work, which a sync must
    /// not wait for); a later tick checkpoints the rest once that is done,
    /// or copies again when the rest grew long meanwhile.
    static func checkpointIfDue(_ session: ReplicationSession, pages: Int64) throws {
        guard !session.imageIsOpen && !session.isCopyingAhead else { return }
        let rest = session.pagesAfterCopy
        let wal = rest ?? session.walPages()
        if wal >= Self.longCheckpointFactor * pages {
            try session.startCopyingAhead()
        } else if rest != nil || wal >= pages {
            try session.checkpoint()
        }
    }

    /// Runs `body`, which writes the outbox, unless the outbox is over its
    /// limit; a full disk is retried at the next tick, a log replaced under
    /// the session goes on as a full image. True when `body` ran whole.
    @discardableResult
    private mutating func writingOutbox(
        _ session: inout ReplicationSession, _ uploader: inout Uploader, maintenance: MaintenanceLane,
        _ body: (inout ReplicationSession) throws -> Void
    ) throws -> Bool {
        let log = operation.log
        do {
            if outbox.size() < operation.outboxLimit {
                if outboxFull { log(.info, "outbox below \(ByteCount.text(operation.outboxLimit)): syncing again") }
                outboxFull = false
                try body(&session)
                return true
            } else if !outboxFull {
                outboxFull = true
                log(
                    .warning,
                    "outbox over \(ByteCount.text(operation.outboxLimit)): syncs pause, the write-ahead log holds the transactions until the store takes them"
                )
            }
        } catch let error as DBToolError where error.isTransient {
            // A full disk: nothing is lost, the log stays pinned; try again. (An
            // outbox that can not be made at all stops the run: a restart makes it anew.)
            log(.warning, "could not write to the outbox (\(error.message)): retrying")
        } catch let error as FileSystemError where error.errno != .interrupted {
            log(.warning, "could not write to the outbox (\(error)): retrying")
        } catch let replaced as ReplicationSession.LogReplaced {
            // A new database under the same name: its history follows on as a full image.
            maintenance.cancelSnapshot()
            let next = session.txid
            try? session.close()
            session = try ReplicationSession(database: operation.database.filePath, outbox: outbox.path)
            session.nodeID = uploader.state.nodeID
            try uploader.state.reset()
            try session.startWithImage(after: next)
            log(.warning, "\(replaced): a full image follows as TXID \(LTXFileName.hex(next + 1))")
        }
        return false
    }

    /// Uploads what waits in the outbox.
    private func ship(_ uploader: inout Uploader, maintenance: MaintenanceLane) throws {
        if maintenance.takeStartImageLanded() { uploader.handedOffLanded() }
        try uploader.upload()
        maintenance.synced()
    }

    /// Sleeps till the next sync, one interval after this tick began (at
    /// once when the tick took longer), telling systemd's watchdog on time.
    mutating func sleepUntilNextSync(stop: () -> Bool) {
        let wake = started.addingTimeInterval(operation.syncInterval)
        while Date() < wake && !stop() && !Interruption.isRequested {
            try? Interruption.sleep(seconds: min(wake.timeIntervalSinceNow, (watchdog ?? operation.syncInterval * 2) / 2))
            heartbeat()
        }
    }

    private mutating func heartbeat() {
        if let watchdog, Date().timeIntervalSince(lastHeartbeat) >= watchdog / 2 {
            ServiceManager.notify("WATCHDOG=1")
            lastHeartbeat = Date()
        }
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
            operation.log(.warning, "could not write the metrics file: \(error)")
        }
    }
}
