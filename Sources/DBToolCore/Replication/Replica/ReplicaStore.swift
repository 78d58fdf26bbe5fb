import Foundation

/// Where a replica's LTX files live, in Litestream 0.5's layout: a local
/// directory (`DIR/ltx/LEVEL/MIN-MAX.ltx`, each file's modification time its
/// header's timestamp) or a prefix of S3-compatible storage
/// (`PREFIX/LEVEL/MIN-MAX.ltx`, the level in four hexadecimal digits, the
/// timestamp in the object's `litestream-timestamp` metadata), so that Litestream reads what dbtool
/// writes, and the other way round.
protocol ReplicaStore: AnyObject {
    /// The replica as given, for messages.
    var description: String { get }
    /// The files of `level` whose first TXID is in `firstTXIDs`, by
    /// transaction. A store lists only those: a restore or a compaction
    /// reads the end of a day of level-0 files, not all of them.
    func files(level: Int, firstTXIDs: ClosedRange<UInt64>) throws -> [ReplicaFile]
    /// Publishes the local file `path` as `name`, whole or not at all.
    func write(_ name: LTXFileName, from path: String, timestamp: Date) throws
    /// A reader of the file `name`, front to back.
    func open(_ name: LTXFileName) throws -> LTXDecoder.Source
    /// Deletes `name` (nothing when it is not there).
    func delete(_ name: LTXFileName) throws
    /// The replica's record (``ReplicaRecord``), nil when it has none.
    func readRecord() throws -> Data?
    /// Writes the replica's record unless it has one: false when another
    /// was there first (the store decides, whatever the timing).
    func createRecord(_ data: Data) throws -> Bool
}

/// A file of a replica.
struct ReplicaFile: Equatable, Sendable {
    var name: LTXFileName
    var size: Int64
    /// When it was written: its header's timestamp, as the store keeps it.
    var createdAt: Date
}

/// The levels of a replica: 0 to 8 (level 0 a file per sync, the others
/// compactions), and the snapshots' 9.
enum ReplicaStoreLevels {
    static let all = 0...LTXFileName.snapshotLevel

    /// Whether `level` is listed whole: levels 2 to 9 hold a file per five
    /// minutes or more, and may hold the one that straddles a snapshot.
    static func isListedWhole(_ level: Int) -> Bool { level >= 2 }

    /// The first TXIDs to list at `level` once the levels above it carry a
    /// chain to `reach`: every one for the levels listed whole, those after
    /// `reach` for levels 1 and 0 (a compacted file merges whole files of
    /// the level below, so past the first such file each level's files end
    /// where those of the levels below end).
    static func listing(level: Int, reach: UInt64) -> ClosedRange<UInt64> {
        isListedWhole(level) ? 0...UInt64.max : (reach + 1)...UInt64.max
    }
}

extension ReplicaStore {
    /// Every file of `level`.
    func files(level: Int) throws -> [ReplicaFile] {
        try files(level: level, firstTXIDs: 0...UInt64.max)
    }

    /// Every file of every level.
    func allFiles() throws -> [ReplicaFile] {
        try ReplicaStoreLevels.all.flatMap { try files(level: $0) }
    }

    /// The files of levels 0 to 8 that may carry a chain on from `txid`
    /// (every file that ends after it, but those of levels 0 and 1 that
    /// straddle it), listed so that a day of history costs a listing of its
    /// last minutes: see `ReplicaStoreLevels.listing(level:reach:)`.
    func files(after txid: UInt64) throws -> [ReplicaFile] {
        var found: [ReplicaFile] = []
        var reach = txid
        for level in (0..<LTXFileName.snapshotLevel).reversed() {
            found += try files(level: level, firstTXIDs: ReplicaStoreLevels.listing(level: level, reach: reach)).filter { $0.name.maxTXID > txid }
            reach = try RestorePlan.chain(after: reach, in: found).last?.name.maxTXID ?? reach
        }
        return found
    }

    /// The last TXID the replica holds (0 when it holds nothing): the
    /// snapshots and levels 2 to 8 whole, then levels 1 and 0 from the
    /// last TXID found above them.
    func lastTXID() throws -> UInt64 {
        var last: UInt64 = 0
        for level in ReplicaStoreLevels.all.reversed() {
            let range = ReplicaStoreLevels.listing(level: level, reach: last)
            last = max(last, try files(level: level, firstTXIDs: range).map(\.name.maxTXID).max() ?? 0)
        }
        return last
    }
}

/// The store of `replica`: an `s3://BUCKET/PREFIX/` URL or a directory.
func openReplicaStore(_ replica: String, objectStore: ObjectStoreOptions) throws -> any ReplicaStore {
    if replica.hasPrefix("s3://") { return try ObjectReplicaStore(ObjectLocation(replica), options: objectStore) }
    return try DirectoryReplicaStore(LocalPath.resolve(replica, what: "the replica"))
}
