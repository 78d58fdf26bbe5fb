import DatabaseKit
import FoundationEssentials

/// The work of a replication that never holds up level-0 shipping, on a
/// thread of its own with its own connection to the store: writing and
/// uploading snapshots (from the state the shipping lane pins for it,
/// ``ImagePlan``), uploading a large start image, compacting levels 1 and
/// up, and retention. Level-0 files keep going up on the shipping lane
/// meanwhile, so the loss window stays one sync interval plus one small
/// upload, whatever the size of the database.
///
/// `@unchecked Sendable`: what both lanes touch is in `mail`, under its
/// lock; the rest belongs to the lane's thread.
final class MaintenanceLane: @unchecked Sendable {
    /// What the lanes hand each other.
    private struct Mail {
        var stop = false
        /// A start image to upload from the outbox, and whether it landed.
        var startImage: (name: LTXFileName, path: String)?
        var startImageLanded = false
        /// Set when a snapshot is due; the shipping lane answers with a plan.
        var snapshotWanted = false
        var plan: ImagePlan?
        /// Set by the shipping lane when its session goes away: the plan in
        /// progress is abandoned.
        var cancelPlan = false
        var running = true
        /// Syncs the shipping lane finished (their files uploaded, or left
        /// in the outbox while the store does not answer).
        var syncs = 0
    }

    private let mail = Locked(Mail())
    private let replica: Replica
    private let scratch: String
    /// Where the shipping lane keeps the level-0 files it uploaded.
    private let localLevelZero: String?
    private let snapshotInterval: TimeInterval
    private let syncInterval: TimeInterval
    private let compactionLevels: [Compaction.Level]?
    private let retention: TimeInterval
    private let nodeID: UInt64
    private let log: LogSink
    private var lastSnapshot: Date

    /// - parameters:
    ///   - replica: The lane's own replica (its own store connection).
    ///   - scratch: Where snapshots and compactions are built.
    ///   - localLevelZero: Where the shipping lane keeps the level-0 files
    ///     it uploaded, for compaction to read from the disk (nil: from the store).
    ///   - snapshotInterval: Seconds between snapshots.
    ///   - syncInterval: Seconds between the shipping lane's syncs.
    ///   - lastSnapshot: When the replica's newest snapshot was written
    ///     (`.distantPast`: one is due now).
    ///   - compactionLevels: The levels compacted, nil for none.
    ///   - retention: Seconds of history kept restorable.
    ///   - nodeID: The node ID written into the files the lane makes.
    ///   - log: Where the lane's lines go.
    init(
        replica: Replica, scratch: String, localLevelZero: String?, snapshotInterval: TimeInterval, syncInterval: TimeInterval,
        lastSnapshot: Date, compactionLevels: [Compaction.Level]?, retention: TimeInterval, nodeID: UInt64, log: @escaping LogSink
    ) {
        self.replica = replica
        self.scratch = scratch
        self.localLevelZero = localLevelZero
        self.snapshotInterval = snapshotInterval
        self.syncInterval = syncInterval
        self.lastSnapshot = lastSnapshot
        self.compactionLevels = compactionLevels
        self.retention = retention
        self.nodeID = nodeID
        self.log = log
    }

    /// Starts the lane's thread.
    func start() {
        // Below the shipping lane and the application: a snapshot of a large
        // database compresses for seconds on end.
        WorkerThreads.start(name: "replicate-maintenance", priority: .background) { [self] _ in
            run()
            mail.withLock { $0.running = false }
            mail.broadcast()
        }
    }

    // MARK: - Mail from the shipping lane

    /// Hands a start image (a level-0 file of the outbox) to upload.
    func upload(startImage name: LTXFileName, from path: String) {
        mail.withLock { $0.startImage = (name, path) }
    }

    /// Whether the start image handed over is in the replica (once: the
    /// answer is then forgotten).
    func takeStartImageLanded() -> Bool {
        mail.withLock { mail in
            defer { mail.startImageLanded = false }
            return mail.startImageLanded
        }
    }

    /// The shipping lane finished a sync: its files are in the replica, or
    /// wait in the outbox while the store does not answer.
    func synced() {
        mail.withLock { $0.syncs += 1 }
    }

    /// Whether a snapshot is due and the lane waits for its plan.
    var wantsSnapshot: Bool { mail.withLock { $0.snapshotWanted && $0.plan == nil } }

    /// Hands the plan of the snapshot due.
    func take(_ plan: ImagePlan) {
        mail.withLock { mail in
            mail.plan = plan
            mail.snapshotWanted = false
            mail.cancelPlan = false
        }
    }

    /// Abandons the snapshot in progress (its session goes away).
    func cancelSnapshot() {
        let waiting = mail.withLock { mail -> ImagePlan? in
            mail.cancelPlan = true
            defer { mail.plan = nil }
            return mail.plan
        }
        waiting?.finish()
    }

    /// Stops the lane: it finishes the start image it was handed (until
    /// `deadline`), abandons the rest, and returns once its thread ended.
    func stop(deadline: Date) {
        mail.withLock { mail in
            mail.stop = true
            mail.cancelPlan = true
        }
        while mail.withLock({ $0.running }) && Date() < deadline { WorkerThreads.pause(seconds: 0.02) }
        mail.withLock { $0.plan }?.finish()
    }

    // MARK: - The lane's thread

    private var isStopping: Bool { mail.withLock { $0.stop } }

    private func run() {
        var compaction = Compaction(store: replica, scratch: scratch)
        compaction.nodeID = nodeID
        compaction.localLevelZero = localLevelZero
        compaction.beforePublishing = publishingAfterSync
        if let compactionLevels { compaction.levels = compactionLevels }
        var lastRetention = Date.distantPast
        while true {
            if let start = mail.withLock({ $0.startImage }) {
                uploadStartImage(start.name, from: start.path)
                continue
            }
            if isStopping { return }
            if let plan = mail.withLock({ $0.plan }) {
                writeSnapshot(plan)
                continue
            }
            if Date().timeIntervalSince(lastSnapshot) >= snapshotInterval {
                mail.withLock { $0.snapshotWanted = true }
            }
            if compactionLevels != nil { maintain(&compaction, &lastRetention) }
            let wake = Date().addingTimeInterval(1)
            while Date() < wake, !isStopping, mail.withLock({ $0.plan == nil && $0.startImage == nil }) {
                WorkerThreads.pause(seconds: 0.05)
            }
        }
    }

    /// Uploads the start image until it is in the replica (a store away:
    /// tried again), or the lane stops.
    private func uploadStartImage(_ name: LTXFileName, from path: String) {
        var reported = false
        while true {
            do {
                try replica.write(name, from: path, timestamp: try Uploader.timestamp(of: path), beforePublishing: publishingAfterSync)
                mail.withLock { mail in
                    mail.startImage = nil
                    mail.startImageLanded = true
                }
                return
            } catch {
                if !reported { log(.warning, "the start image \(name.fileName) could not go up yet (\(error)): retrying") }
                reported = true
                // A second signal, or the shutdown's deadline: give up.
                if isStopping && Interruption.isRequested { return }
                let wake = Date().addingTimeInterval(2)
                while Date() < wake && !(isStopping && Interruption.isRequested) { WorkerThreads.pause(seconds: 0.05) }
            }
        }
    }

    /// Writes the snapshot of `plan` and uploads it at level 9.
    private func writeSnapshot(_ plan: ImagePlan) {
        defer {
            plan.finish()
            mail.withLock { if $0.plan === plan { $0.plan = nil } }
        }
        let started = Date()
        do {
            // Streamed to the store as it is encoded: no local copy of the
            // database, and no gigabyte of dirty pages for the shipping
            // lane's fsyncs to wait behind.
            let timestamp = ReplicationSession.now()
            let size = try replica.write(
                plan.name, timestamp: Date(timeIntervalSince1970: Double(timestamp) / 1000),
                body: { sink in try plan.write(to: sink, timestamp: timestamp) { [mail] in mail.withLock { $0.cancelPlan || $0.stop } } },
                beforePublishing: publishingAfterSync)
            lastSnapshot = started
            log(
                .info,
                "snapshot: \(plan.name.fileName) at level \(plan.name.level) (\(ByteCount.text(size)), \(Int(Date().timeIntervalSince(started).rounded())) s)"
            )
        } catch is ImagePlan.Cancelled {
            return
        } catch {
            log(.warning, "snapshot failed, trying again later: \(error)")
            lastSnapshot = Date().addingTimeInterval(min(300, snapshotInterval) - snapshotInterval)
        }
    }

    /// An upload of the lane at least this large (a snapshot, a start
    /// image, a merged file) is published, its multipart upload completed,
    /// just after the shipping lane's next sync. A server may stop
    /// answering while it assembles a large object (moto does, for half a
    /// second or more of a gigabyte's): the sync before has landed, and
    /// the next has the most time before the pause.
    static let alignedPublishSize: Int64 = 16 << 20

    /// Called with the size of an upload about to be published: waits, for
    /// one of ``alignedPublishSize`` or more, until the shipping lane
    /// finishes its next sync (a sync interval and a second at most, the
    /// store away meanwhile), or until the lane stops.
    private func publishingAfterSync(_ size: Int64) {
        guard size >= Self.alignedPublishSize else { return }
        let seen = mail.withLock { $0.syncs }
        let deadline = Date().addingTimeInterval(syncInterval + 1)
        while Date() < deadline, !isStopping, mail.withLock({ $0.syncs == seen }) {
            WorkerThreads.pause(seconds: 0.005)
        }
    }

    /// How often retention looks: a 24th of the window, from a minute to ten.
    static func retentionInterval(for window: TimeInterval) -> TimeInterval {
        min(600, max(60, window / 24))
    }

    /// Compacts the levels whose interval passed, and applies retention
    /// now and then; a failure is reported and tried again later: the
    /// replica stays restorable from level 0 meanwhile.
    private func maintain(_ compaction: inout Compaction, _ lastRetention: inout Date) {
        do {
            for name in try compaction.run() { log(.info, "compacted: \(name.fileName) at level \(name.level)") }
            // Retention deletes only what a snapshot older than the window covers: a look now and then is enough.
            if Date().timeIntervalSince(lastRetention) >= Self.retentionInterval(for: retention) {
                lastRetention = Date()
                let deleted = try compaction.enforceRetention(retention)
                if !deleted.isEmpty { log(.info, "retention: \(deleted.count) files older than \(Int(retention)) s deleted") }
            }
        } catch {
            if !isStopping { log(.warning, "compaction failed, retrying later: \(error)") }
        }
    }
}
