import FoundationEssentials

/// `dbtool replicate verify REPLICA`: reads every file of a replica whole,
/// checking its CRC-64 and that its header is the one its name promises,
/// checks that the chain from the oldest snapshot reaches the last TXID
/// without a gap and that its files come from one history, and says which
/// moments are restorable.
///
/// One history: every file dbtool wrote carries its database's identity
/// (the LTX node ID), which must be the replica owner's (`ReplicaRecord`)
/// and the same in every file; and consecutive level-0 files read from one
/// write-ahead log must continue it where the one before stopped (or cover
/// a log from its start). Two databases writing one replica break both.
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
        /// The database the replica belongs to (`host:path (id …)`), when
        /// its record names one.
        public var owner: String?
    }

    /// - throws: ``DBToolError`` 65 naming a damaged file, a file whose
    ///   header does not match its name, or the TXIDs a gap loses; 66 for an
    ///   empty replica.
    public func run() throws -> Report {
        let store = try Replica.at(replica, objectStore: objectStore)
        let files = try store.allFiles()
        guard !files.isEmpty else {
            throw DBToolError(.noInput, "\(store.description) holds no replica files", hint: "Check the URL or directory.")
        }
        let record = try ReplicaRecord.read(from: store)
        var headers: [(file: ReplicaFile, header: LTXHeader)] = []
        for file in files {
            try Interruption.check()
            do {
                var decoder = try LTXDecoder(from: try store.open(file.name))
                let header = decoder.header
                headers.append((file, header))
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
        try Self.checkOneHistory(headers, owner: record, store: store)
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
        let newest = latest.files.last!
        return Report(
            replica: store.description, files: files.count, bytes: files.reduce(0) { $0 + $1.size },
            earliestTXID: LTXFileName.hex(oldest.name.maxTXID), earliest: try store.exactTimestamp(of: oldest),
            latestTXID: LTXFileName.hex(latest.txid), latest: try store.exactTimestamp(of: newest),
            owner: record?.database.summary)
    }

    /// The size of a write-ahead log's header: where a new log's first frame is.
    static let walHeaderSize: Int64 = 32

    /// Throws 65 when the files come from two databases or two histories.
    static func checkOneHistory(_ headers: [(file: ReplicaFile, header: LTXHeader)], owner: ReplicaRecord?, store: Replica) throws {
        let ownerNode = owner?.database.nodeID ?? 0
        var firstByNode: [UInt64: LTXFileName] = [:]
        for (file, header) in headers where header.nodeID != 0 {
            if ownerNode != 0 && header.nodeID != ownerNode {
                throw twoHistories(
                    store, "\(file.name.path) was written by another database (node \(hex(header.nodeID))), not by the replica's owner \(owner!.database.summary)")
            }
            if let other = firstByNode.values.first, firstByNode[header.nodeID] == nil {
                throw twoHistories(store, "\(other.path) and \(file.name.path) were written by two databases (nodes \(hex(firstByNode.keys.first!)) and \(hex(header.nodeID)))")
            }
            firstByNode[header.nodeID] = firstByNode[header.nodeID] ?? file.name
        }
        // Consecutive level-0 files that dbtool read from a write-ahead log continue it.
        let levelZero = headers.filter { $0.file.name.level == 0 }.sorted { $0.file.name.minTXID < $1.file.name.minTXID }
        for (previous, next) in zip(levelZero, levelZero.dropFirst()) {
            let (a, b) = (previous.header, next.header)
            guard b.minTXID == a.maxTXID + 1, a.nodeID != 0, b.nodeID != 0, a.walOffset != 0, b.walOffset != 0 else { continue }
            let sameLog = a.walSalt1 == b.walSalt1 && a.walSalt2 == b.walSalt2
            let expected = sameLog ? a.walOffset + a.walSize : walHeaderSize
            // A file that covers a log from its start (a new log, or a restart's
            // image of the state there) follows any file.
            guard b.walOffset != expected && b.walOffset != walHeaderSize else { continue }
            throw twoHistories(
                store,
                "\(next.file.name.path) does not follow \(previous.file.name.path): it starts at offset \(b.walOffset) of \(sameLog ? "the same" : "a new") write-ahead log, where \(expected) was expected")
        }
    }

    private static func twoHistories(_ store: Replica, _ detail: String) -> DBToolError {
        DBToolError(
            .dataError, "\(store.description) mixes two histories: \(detail)",
            hint: "Two databases wrote this replica. Restore an earlier moment (--txid, --at) that one of them wrote alone, and give each database its own replica.")
    }

    private static func hex(_ value: UInt64) -> String { LTXFileName.hex(value) }

    /// The oldest file a restore can start from.
    private static func oldestStart(_ files: [ReplicaFile]) -> ReplicaFile? {
        files.filter { $0.name.level == LTXFileName.snapshotLevel || $0.name.minTXID == 1 }.min { $0.name.maxTXID < $1.name.maxTXID }
    }
}
