import Foundation

/// `dbtool restore REPLICA DIR --follow`: keeps a restored database current
/// with its replica, a read-only copy for readers elsewhere, until SIGTERM.
///
/// Every interval the files after the copy's TXID are applied to a private
/// shadow of the database beside DIR (`.dbtool-follow-NAME/`), then the
/// shadow goes into DIR's database through SQLite's online backup API, in
/// one write transaction: readers see the state before or the state after,
/// never a half-applied file. When the replica no longer holds the files
/// that follow (retention passed them, a snapshot replaced them), the
/// shadow is rebuilt from the newest snapshot.
public struct FollowOperation: Sendable {
    public var replica: String
    /// The directory the restore filled.
    public var directory: String
    /// The TXID the restore gave, hexadecimal.
    public var txid: String
    public var interval: TimeInterval = 1
    public var objectStore = ObjectStoreOptions()
    /// How long to wait for the copy's write lock (readers keep it briefly).
    public var timeout: TimeInterval = DatabaseHandle.defaultTimeout
    /// Receives one line per update.
    public var log: @Sendable (String) -> Void = { _ in }

    public init(replica: String, directory: String, txid: String) {
        self.replica = replica
        self.directory = directory
        self.txid = txid
    }

    public struct Report: Codable, Sendable, Equatable {
        /// The TXID the copy reached, hexadecimal.
        public var txid: String
        /// How many times the copy was brought forward.
        public var updates: Int
        public var stoppedBy: String?
    }

    /// Follows until SIGTERM or SIGINT (or `stop`).
    ///
    /// - throws: ``DBToolError`` when the replica or the copy fails for good
    ///   (a damaged file: 65; the copy's database gone: 66).
    public func run(until stop: @escaping () -> Bool = { false }) throws -> Report {
        let store = try Replica.at(replica, objectStore: objectStore)
        let target = try LocalPath.resolve(directory, what: "the directory to follow into")
        let database = target + "/" + DatabaseLocation.defaultFileName
        guard FileSystem.exists(database) else {
            throw DBToolError(.noInput, "no database at \(database) to keep current", hint: "Restore into DIR first.")
        }
        let parent = LocalPath.parent(of: target)
        let shadowName = ".dbtool-follow-" + LocalPath.name(of: target)
        let parentDirectory = try DirectoryDescriptor.open(parent)
        defer { parentDirectory.close() }
        parentDirectory.removeTree(shadowName)
        do {
            try parentDirectory.createDirectory(shadowName)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of \(parent).")
        }
        defer { parentDirectory.removeTree(shadowName) }
        let shadow = try parentDirectory.openDirectory(shadowName)
        defer { shadow.close() }

        var current = UInt64(txid, radix: 16) ?? 0
        var pageSize = try rebuild(shadow, from: store, at: .txid(current)).pageSize
        var updates = 0
        while !stop() && !Interruption.isRequested {
            try? Interruption.sleep(seconds: interval)
            if stop() || Interruption.isRequested { break }
            do {
                let files = try store.files(after: current)
                let next = try RestorePlan.chain(after: current, in: files)
                var reach = next.last?.name.maxTXID ?? current
                let last = files.map(\.name.maxTXID).max() ?? current
                if next.isEmpty && last > current {
                    // What follows is gone from the replica: start again from its snapshot.
                    (pageSize, reach) = try rebuild(shadow, from: store, at: .latest)
                    log("the replica no longer holds TXID \(LTXFileName.hex(current + 1)): the copy is rebuilt from its snapshot")
                } else if next.isEmpty {
                    continue
                } else {
                    let file = try shadow.openFile(DatabaseLocation.defaultFileName, .readWrite)
                    defer { file.close() }
                    var applier = LTXApplier(database: file, resumingAt: current, pageSize: pageSize)
                    for name in next.map(\.name) {
                        do {
                            try applier.apply(from: try store.open(name), name: name.path)
                        } catch let error as LTXError {
                            throw DBToolError(.dataError, "\(store.description): \(name.path) can not be applied: \(error.reason)")
                        }
                    }
                    try file.sync()
                }
                let stall = try LiveRestore(
                    staging: shadow, target: target, database: database, databaseFile: DatabaseLocation.defaultFileName, timeout: timeout
                ).run()
                current = reach
                updates += 1
                log("at TXID \(LTXFileName.hex(current)) (readers waited \(Int((stall * 1000).rounded())) ms)")
            } catch let error as DBToolError where error.status == .tempFail {
                log("the replica does not answer (\(error.message)): retrying")
            } catch where Interruption.isRequested {
                break  // the copy keeps its last whole state
            }
        }
        return Report(txid: LTXFileName.hex(current), updates: updates, stoppedBy: Interruption.acknowledge())
    }

    /// Builds the shadow's database at `target`; returns its page size and TXID.
    private func rebuild(
        _ shadow: DirectoryDescriptor, from store: Replica, at target: RestorePlan.Target
    ) throws -> (pageSize: UInt32, txid: UInt64) {
        _ = try? shadow.removeFile(DatabaseLocation.defaultFileName)
        for suffix in DatabaseFiles.walSuffixes { _ = try? shadow.removeFile(DatabaseLocation.defaultFileName + suffix) }
        let built = try ReplicaRestore(store: store, target: target).build(into: shadow, fileName: DatabaseLocation.defaultFileName)
        let (file, _) = try shadow.openRegularFile(DatabaseLocation.defaultFileName)
        defer { file.close() }
        let header = try file.read(fromAbsoluteOffset: 16, count: 2)
        let raw = UInt32(header[0]) << 8 | UInt32(header[1])
        return (raw == 1 ? 65536 : raw, UInt64(built.txid, radix: 16) ?? 0)
    }
}
