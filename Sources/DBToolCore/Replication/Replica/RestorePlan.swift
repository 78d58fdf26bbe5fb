import Foundation

/// The files that rebuild a replica's database at a target: the newest
/// snapshot at or before it (level 9, or a level-0 file that starts at TXID
/// 1), then, level by level, the files that carry the chain furthest
/// without a gap, none past the target.
///
/// A target is a TXID (`--txid`), a time (`--at`: the state of the last
/// file written before it), or the latest state.
struct RestorePlan: Equatable {
    enum Target: Equatable {
        case latest
        case txid(UInt64)
        case time(Date)
    }

    /// The files to apply, in order.
    var files: [ReplicaFile]
    /// The TXID the database is at once they are applied.
    var txid: UInt64 { files.last?.name.maxTXID ?? 0 }

    /// The plan for `target` from `available` (every file of the replica).
    /// Nil when nothing is restorable at or before the target.
    ///
    /// - parameters:
    ///   - available: Every file of the replica, any level.
    ///   - target: The state to restore.
    ///   - createdAt: A file's exact time, when the listing's is only an
    ///     upper bound (an object store's upload time); called only for the
    ///     files whose listed time is not before a time target.
    init?(_ available: [ReplicaFile], target: Target, createdAt: (ReplicaFile) throws -> Date = { $0.createdAt }) rethrows {
        func within(_ file: ReplicaFile) throws -> Bool {
            switch target {
            case .latest: return true
            case .txid(let txid): return file.name.maxTXID <= txid
            case .time(let time): return try file.createdAt < time || createdAt(file) < time
            }
        }
        let snapshots = try available.filter {
            try ($0.name.level == LTXFileName.snapshotLevel || $0.name.minTXID == 1) && within($0)
        }
        guard let snapshot = snapshots.max(by: { ($0.name.maxTXID, $0.name.level) < ($1.name.maxTXID, $1.name.level) }) else {
            return nil
        }
        files = try [snapshot] + Self.chain(after: snapshot.name.maxTXID, in: available, where: within)
    }

    /// The files of levels 0 to 8 that carry a database at `txid` furthest
    /// without a gap, each the one that reaches furthest, among those that
    /// `include` accepts.
    static func chain(
        after txid: UInt64, in available: [ReplicaFile], where include: (ReplicaFile) throws -> Bool = { _ in true }
    ) rethrows -> [ReplicaFile] {
        var files: [ReplicaFile] = []
        var current = txid
        let candidates = available.filter { $0.name.level != LTXFileName.snapshotLevel && $0.name.maxTXID > txid }
        while true {
            // Files that start at or before the next TXID and end after the current one.
            let next = try candidates.filter { try $0.name.minTXID <= current + 1 && $0.name.maxTXID > current && include($0) }
                .max { ($0.name.maxTXID, -$0.name.level) < ($1.name.maxTXID, -$1.name.level) }
            guard let next else { return files }
            files.append(next)
            current = next.name.maxTXID
        }
    }
}
