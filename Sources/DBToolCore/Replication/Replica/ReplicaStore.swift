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
    /// The files of `level`, by transaction.
    func files(level: Int) throws -> [ReplicaFile]
    /// Publishes the local file `path` as `name`, whole or not at all.
    func write(_ name: LTXFileName, from path: String, timestamp: Date) throws
    /// A reader of the file `name`, front to back.
    func open(_ name: LTXFileName) throws -> LTXDecoder.Source
    /// Deletes `name` (nothing when it is not there).
    func delete(_ name: LTXFileName) throws
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
}

extension ReplicaStore {
    /// Every file of every level.
    func allFiles() throws -> [ReplicaFile] {
        try ReplicaStoreLevels.all.flatMap { try files(level: $0) }
    }
}

/// The store of `replica`: an `s3://BUCKET/PREFIX/` URL or a directory.
func openReplicaStore(_ replica: String, objectStore: ObjectStoreOptions) throws -> any ReplicaStore {
    if replica.hasPrefix("s3://") { return try ObjectReplicaStore(ObjectLocation(replica), options: objectStore) }
    return try DirectoryReplicaStore(LocalPath.resolve(replica, what: "the replica"))
}
