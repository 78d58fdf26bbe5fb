import DatabaseKit
import FoundationEssentials

/// One command over many databases (`--database` given several times, or
/// as a glob; `init DIR...`): each database in turn on one of ``jobs``
/// threads, every outcome kept, the worst status the run's.
public struct Fleet: Sendable {
    /// The databases, as reports name them.
    public var names: [String]
    /// How many databases are worked on at once.
    public var jobs: Int
    /// Stop starting databases after the first failure; the ones not
    /// started are reported as skipped.
    public var failFast = false
    /// Told the databases finished as they finish.
    public var progress: ProgressHandler?

    public init(names: [String], jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.names = names
        self.jobs = jobs
    }

    /// True when `patterns` name more than one database, or may: several
    /// of them, or a glob (`*`, `?`, `[...]`) that names no path as written.
    public static func namesSeveral(_ patterns: [String]) -> Bool {
        patterns.count > 1 || patterns.contains(where: FileSystem.isPattern)
    }

    /// The databases `patterns` name: each a path, or a glob (`*`, `?`,
    /// `[...]`) expanded in order, without duplicates.
    ///
    /// - throws: ``DBToolError`` 66 for a glob that matches nothing.
    public static func databases(matching patterns: [String], fileName: String, timeout: TimeInterval) throws -> [DatabaseHandle] {
        var seen = Set<String>()
        var handles: [DatabaseHandle] = []
        for pattern in patterns {
            let paths = try FileSystem.expand(pattern)
            if paths.isEmpty {
                throw DBToolError(.noInput, "no database matches \(pattern)", hint: "Check the pattern (quote it, so that dbtool expands it).")
            }
            for path in paths {
                let location = try DatabaseLocation(path: path, fileName: fileName)
                guard seen.insert(location.filePath).inserted else { continue }
                handles.append(DatabaseHandle(location: location, timeout: timeout))
            }
        }
        // No run of the fleet writes onto another database's files.
        let gate = WriteGate(protecting: handles.map(\.location))
        for index in handles.indices { handles[index].gate = gate }
        return handles
    }

    /// What became of one database.
    public struct Outcome<Report: Encodable & Sendable>: Encodable, Sendable {
        public var database: String
        /// Its exit status: 0, or the error's.
        public var status: Int32
        /// The report, also of a run that failed part-way (a migration).
        public var report: Report?
        public var error: DBToolError.Summary?
        /// Not started: `--fail-fast` stopped the run first.
        public var skipped: Bool
    }

    /// Runs `body` with the index of every database in ``names``; never
    /// throws: each failure is an outcome. The outcomes are in the order of
    /// ``names``.
    public func run<Report: Encodable & Sendable>(_ body: @escaping @Sendable (Int) throws -> Report) -> [Outcome<Report>] {
        let total = names.count
        let state = Locked(FleetState<Report>(outcomes: Array(repeating: nil, count: total)))
        let names = self.names
        let failFast = self.failFast
        let progress = self.progress
        let work = { @Sendable in
            while true {
                let claimed: Int? = state.withLock { state in
                    guard state.next < total, !(failFast && state.failed), !Interruption.isRequested else { return nil }
                    defer { state.next += 1 }
                    return state.next
                }
                guard let index = claimed else { return }
                var outcome = Outcome<Report>(database: names[index], status: 0, report: nil, error: nil, skipped: false)
                do {
                    outcome.report = try body(index)
                } catch {
                    let toolError = Self.toolError(error)
                    outcome.status = toolError.status.rawValue
                    outcome.error = toolError.summary
                    outcome.report = (error as? any PartialFailure)?.partialReport as? Report
                }
                let done = state.withLock { state in
                    state.outcomes[index] = outcome
                    state.done += 1
                    if outcome.status != 0 { state.failed = true }
                    return state.done
                }
                progress?(OperationProgress("databases", done: Int64(done), total: Int64(total), unit: .databases))
            }
        }
        WorkerThreads.run(max(1, min(jobs, total)), name: "fleet") { _ in work() }
        return state.withLock { state in
            state.outcomes.enumerated().map { index, outcome in
                outcome ?? Outcome<Report>(database: names[index], status: 0, report: nil, error: nil, skipped: true)
            }
        }
    }

    /// The documented error an error stands for.
    static func toolError(_ error: any Error) -> DBToolError {
        (error as? any ReportableError)?.toolError ?? (error as? any PartialFailure)?.error
            ?? DBToolError(.software, "unexpected error: \(error)")
    }
}

/// The progress of a fleet's run, under its lock.
private struct FleetState<Report: Encodable & Sendable>: Sendable {
    var next = 0
    var done = 0
    var failed = false
    var outcomes: [Fleet.Outcome<Report>?]
}
