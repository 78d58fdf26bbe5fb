import Foundation

/// `dbtool replicate verify REPLICA`: reads every file of a replica whole,
/// checking its CRC-64 and that its header is the one its name promises,
/// checks that the chain from the oldest snapshot reaches the last TXID
/// without a gap, and says which moments are restorable.
public struct ReplicaVerifyOperation: Sendable {
    public var replica: String
    public var objectStore = ObjectStoreOptions()

    public init(replica: String) {
        self.replica = replica
    }

    public struct Report: Codable, Sendable, Equatable {
        public var replica: String
        public var files: Int
        public var bytes: Int64
        /// The first and last restorable TXIDs (hexadecimal) and times.
        public var earliestTXID: String
        public var earliest: Date
        public var latestTXID: String
        public var latest: Date
    }

    /// - throws: ``DBToolError`` 65 naming a damaged file, a file whose
    ///   header does not match its name, or the TXIDs a gap loses; 66 for an
    ///   empty replica.
    public func run() throws -> Report {
        let store = try openReplicaStore(replica, objectStore: objectStore)
        let files = try store.allFiles()
        guard !files.isEmpty else {
            throw DBToolError(.noInput, "\(store.description) holds no replica files", hint: "Check the URL or directory.")
        }
        for file in files {
            try Interruption.check()
            do {
                var decoder = try LTXDecoder(from: try store.open(file.name))
                let header = decoder.header
                guard header.minTXID == file.name.minTXID, header.maxTXID == file.name.maxTXID else {
                    throw LTXError.malformed(
                        "its header covers TXIDs \(LTXFileName.hex(header.minTXID))-\(LTXFileName.hex(header.maxTXID))")
                }
                var page = [UInt8](repeating: 0, count: Int(header.pageSize))
                while try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) != nil {}
            } catch let error as LTXError {
                throw DBToolError(
                    .dataError, "\(store.description): \(file.name.path) is damaged: \(error.reason)",
                    hint: "Restore an earlier moment (--txid, --at), or let replication write a new snapshot.")
            }
        }
        let last = files.map(\.name.maxTXID).max() ?? 0
        guard let latest = try RestorePlan(files, target: .latest), let oldest = Self.oldestStart(files) else {
            throw DBToolError(.dataError, "\(store.description) has no snapshot to restore from", hint: "Start replication again: it writes one.")
        }
        guard latest.txid == last else {
            throw DBToolError(
                .dataError,
                "\(store.description): the chain stops at TXID \(LTXFileName.hex(latest.txid)): no file holds TXID \(LTXFileName.hex(latest.txid + 1)) (the last is \(LTXFileName.hex(last)))",
                hint: "A file is missing: restores reach \(LTXFileName.hex(latest.txid)) at most.")
        }
        let exact = store as? ObjectReplicaStore
        let newest = latest.files.last!
        return Report(
            replica: store.description, files: files.count, bytes: files.reduce(0) { $0 + $1.size },
            earliestTXID: LTXFileName.hex(oldest.name.maxTXID), earliest: try exact?.exactTimestamp(of: oldest.name) ?? oldest.createdAt,
            latestTXID: LTXFileName.hex(latest.txid), latest: try exact?.exactTimestamp(of: newest.name) ?? newest.createdAt)
    }

    /// The oldest file a restore can start from.
    private static func oldestStart(_ files: [ReplicaFile]) -> ReplicaFile? {
        files.filter { $0.name.level == LTXFileName.snapshotLevel || $0.name.minTXID == 1 }.min { $0.name.maxTXID < $1.name.maxTXID }
    }
}
