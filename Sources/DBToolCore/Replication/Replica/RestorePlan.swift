import FoundationEssentials

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
            case .time(let time):
                // Compared to the microsecond: a file's time is whole
                // milliseconds, which a Date near 2026 holds only to 0.2 µs.
                let target = time.microsecondsSince1970
                return try file.createdAt.microsecondsSince1970 < target || createdAt(file).microsecondsSince1970 < target
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

    /// The plan for `target`, listing only what it needs: the snapshots,
    /// then the levels top down, levels 1 and 0 only where the levels above
    /// leave a hole (see `ReplicaLevels.listing(level:reach:)`), so
    /// that a day of level-0 files costs a listing of a few minutes of them.
    /// Should level 0 not line up with the rest (a gap, or files written
    /// otherwise), every file is listed.
    ///
    /// - returns: The plan (nil when nothing is restorable at the target) and
    ///   the number of files listed.
    static func load(
        from store: Replica, target: Target, createdAt exact: @escaping (ReplicaFile) throws -> Date = { $0.createdAt }
    ) throws -> (plan: RestorePlan?, listed: Int) {
        // A time target may ask a file's exact time more than once.
        var times: [LTXFileName: Date] = [:]
        let createdAt = { (file: ReplicaFile) throws -> Date in
            if let time = times[file.name] { return time }
            let time = try exact(file)
            times[file.name] = time
            return time
        }
        // Without a snapshot before the target, every level is listed from TXID
        // 1: a replica's first file is a whole database too.
        var available = try store.files(level: LTXFileName.snapshotLevel)
        var plan = try RestorePlan(available, target: target, createdAt: createdAt)
        // The first TXIDs of `range` a restore to `target` may need.
        func needed(_ range: ClosedRange<UInt64>) -> ClosedRange<UInt64>? {
            guard case .txid(let txid) = target else { return range }
            return txid < range.lowerBound ? nil : range.lowerBound...min(range.upperBound, txid)
        }
        for level in (0..<LTXFileName.snapshotLevel).reversed() {
            if ReplicaLevels.isListedWhole(level) {
                if let range = needed(0...UInt64.max) { available += try store.files(level: level, firstTXIDs: range) }
                plan = try RestorePlan(available, target: target, createdAt: createdAt) ?? plan
                continue
            }
            // Levels 1 and 0 fill what the levels above leave: from where the
            // chain stops to the next file above it, and so on to the end.
            while true {
                let reach = plan?.txid ?? 0
                let above = available.filter {
                    $0.name.level > level && $0.name.level != LTXFileName.snapshotLevel && $0.name.minTXID > reach + 1
                }.map(\.name.minTXID).min()
                guard let range = needed((reach + 1)...(above.map { $0 - 1 } ?? UInt64.max)) else { break }
                let files = try store.files(level: level, firstTXIDs: range)
                available += files
                plan = try RestorePlan(available, target: target, createdAt: createdAt) ?? plan
                if level == 0, let first = files.first, first.name.minTXID > reach + 1 {
                    let all = try store.allFiles()
                    return (try RestorePlan(all, target: target, createdAt: createdAt), all.count)
                }
                if above == nil || (plan?.txid ?? 0) <= reach { break }
            }
        }
        return (plan, available.count)
    }

    /// The files of levels 0 to 8 that carry a database at `txid` furthest
    /// without a gap, each the one that reaches furthest, among those that
    /// `include` accepts.
    static func chain(
        after txid: UInt64, in available: [ReplicaFile], where include: (ReplicaFile) throws -> Bool = { _ in true }
    ) rethrows -> [ReplicaFile] {
        // One sweep by first TXID (a day of level-0 files is 86,400 of them):
        // the files that start at or before the next TXID only grow in number
        // as the chain goes on, so the one reaching furthest is kept as they come.
        let candidates = available.filter { $0.name.level != LTXFileName.snapshotLevel && $0.name.maxTXID > txid }
            .sorted { $0.name.minTXID < $1.name.minTXID }
        var files: [ReplicaFile] = []
        var current = txid
        var index = 0
        var best: ReplicaFile?
        while true {
            while index < candidates.count, candidates[index].name.minTXID <= current + 1 {
                let file = candidates[index]
                index += 1
                guard file.name.maxTXID > current, try include(file) else { continue }
                if let kept = best, (kept.name.maxTXID, -kept.name.level) >= (file.name.maxTXID, -file.name.level) { continue }
                best = file
            }
            guard let next = best, next.name.maxTXID > current else { return files }
            files.append(next)
            current = next.name.maxTXID
        }
    }
}
