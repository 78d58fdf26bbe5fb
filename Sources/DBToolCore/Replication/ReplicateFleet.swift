import DatabaseKit
import Dispatch
import FoundationEssentials

/// Several databases replicated by one process (`replicate --config`), each
/// by its own ``ReplicateOperation`` on its own thread, until SIGTERM or
/// SIGINT stops them all: each then makes its last sync, within its
/// shutdown timeout.
///
/// A database that fails (its replica belongs to another database, it is
/// not in WAL mode) is reported at once and the others go on; systemd hears
/// `READY=1` once every database is replicating or has failed, and at least
/// one replicates. The fleet's status is the most telling of theirs
/// (``ExitStatus/fleetStatus(_:)``).
public struct ReplicateFleet: Sendable {
    /// One operation per database, each set up as for a run of its own.
    public var operations: [ReplicateOperation]
    /// Called with each database's failure, as it happens.
    public var failed: @Sendable (ReplicateOperation, DBToolError) -> Void = { _, _ in }

    /// A fleet of `operations`.
    public init(_ operations: [ReplicateOperation]) {
        self.operations = operations
    }

    /// How one database's replication ended.
    public struct Outcome: Encodable, Sendable {
        /// The database file, and its replica.
        public var database: String
        public var replica: String
        /// 0, or the exit status of its failure.
        public var status: Int32
        /// Its report once stopped, or its error.
        public var report: ReplicateOperation.Report?
        public var error: DBToolError.Summary?
    }

    /// What the fleet did.
    public struct Report: Encodable, Sendable {
        /// Each database's outcome, in the operations' order.
        public var databases: [Outcome]
        /// The signal that stopped it.
        public var stoppedBy: String?
        /// The most telling status of the databases' (``ExitStatus/fleetStatus(_:)``).
        public var status: Int32
    }

    /// Runs every operation until a signal (or `stop`), then returns when all have stopped.
    public func run(until stop: @escaping @Sendable () -> Bool = { false }) -> Report {
        let stopping = Locked<(requested: Bool, by: String?)>((false, nil))
        let settled = Locked((ready: 0, failed: 0))
        let results = Locked([Int: Result<ReplicateOperation.Report, DBToolError>]())
        let group = DispatchGroup()
        let count = operations.count
        @Sendable func settle(ready: Bool) {
            let (readyCount, failedCount) = settled.withLock { counts in
                if ready { counts.ready += 1 } else { counts.failed += 1 }
                return (counts.ready, counts.failed)
            }
            if readyCount + failedCount == count && readyCount > 0 {
                ServiceManager.notify("READY=1\nSTATUS=replicating \(readyCount) of \(count) databases")
            }
        }
        for (index, operation) in operations.enumerated() {
            var operation = operation
            operation.notifiesReady = false
            operation.acknowledgesSignals = false
            let ready = operation.ready
            operation.ready = {
                ready()
                settle(ready: true)
            }
            let failed = self.failed
            let job = operation
            group.enter()
            // Signals go to the thread that waits for them all (below).
            WorkerThreads.start(name: "replicate") { _ in
                let result: Result<ReplicateOperation.Report, DBToolError>
                do {
                    result = .success(try job.run(until: { stopping.withLock { $0.requested } || stop() }))
                } catch {
                    let toolError = DBToolError.wrapping(error)
                    failed(job, toolError)
                    settle(ready: false)
                    result = .failure(toolError)
                }
                results.withLock { $0[index] = result }
                group.leave()
            }
        }
        // The signal is taken here, once, for all: each operation then sees
        // its stop and makes its last sync (a second signal cuts them short).
        while group.wait(timeout: .now() + 0.05) == .timedOut {
            if Interruption.isRequested && !stopping.withLock({ $0.requested }) {
                let by = Interruption.acknowledge()
                stopping.withLock { $0 = (true, by) }
            }
        }
        let outcomes = operations.indices.map { index -> Outcome in
            let operation = operations[index]
            switch results.withLock({ $0[index] }) {
            case .success(let report):
                return Outcome(database: operation.database.filePath, replica: operation.replica, status: 0, report: report)
            case .failure(let error):
                return Outcome(
                    database: operation.database.filePath, replica: operation.replica, status: error.status.rawValue, error: error.summary)
            case nil:
                return Outcome(database: operation.database.filePath, replica: operation.replica, status: ExitStatus.software.rawValue)
            }
        }
        return Report(
            databases: outcomes, stoppedBy: stopping.withLock { $0.by }, status: ExitStatus.fleetStatus(outcomes.map(\.status)))
    }
}
