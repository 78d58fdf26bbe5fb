import DatabaseKit
import Dispatch
import FoundationEssentials

/// `PRAGMA quick_check` of a database being backed up, run on a connection
/// and a thread of its own while the copy streams, so that a backup of a
/// corrupt database is known as such (and never counted as a good one) at
/// little cost in time: reading and checking the pages overlaps with
/// compressing them.
///
/// The check reads in a read transaction of its own, begun once the copy's
/// own read transaction has begun: it sees the pages the copy archives (or
/// newer ones, which the archived WAL carries too).
final class SourceCheck: Sendable {
    private let outcome = Locked<Result<[String], any Error>?>(nil)
    private let group = DispatchGroup()

    /// Starts the check of `database`.
    init(database: DatabaseHandle) throws {
        let queue = try database.openQueue()
        DispatchQueue.global().async(group: group) { [outcome] in
            Interruption.blockInCurrentThread()
            let result = Result { try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") } }
            try? queue.close()
            outcome.withLock { $0 = result }
        }
    }

    /// Waits for the check: its lines, `["ok"]` for a sound database, what
    /// SQLite said for a corrupt one.
    ///
    /// - throws: what stopped the check otherwise (an interruption, a lock).
    func wait() throws -> [String] {
        group.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let lines): return lines
        case .failure(let error as DatabaseError) where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode):
            return [error.message ?? "database disk image is malformed"]
        case .failure(let error): throw error
        case nil: return ["the check did not run"]
        }
    }
}
