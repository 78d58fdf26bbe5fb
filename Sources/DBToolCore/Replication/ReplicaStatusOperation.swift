import FoundationEssentials

/// `dbtool replicate status REPLICA`: what a replica holds, level by level,
/// its last TXID and when it was written, and how far behind now that is.
public struct ReplicaStatusOperation: Sendable {
    public var replica: String
    public var objectStore = ObjectStoreOptions()

    public init(replica: String) {
        self.replica = replica
    }

    public struct Level: Codable, Sendable, Equatable {
        public var level: Int
        public var files: Int
        public var bytes: Int64
        /// The TXIDs the level covers, hexadecimal.
        public var minTXID: String?
        public var maxTXID: String?
    }

    public struct Report: Codable, Sendable, Equatable {
        public var replica: String
        /// The last TXID shipped (hexadecimal), nil for an empty replica.
        public var txid: String?
        /// When the file holding it was written (RFC 3339 in JSON).
        public var time: Date?
        /// The same, in seconds since 1970.
        public var timeUnix: Double?
        /// Seconds from that time to now.
        public var lagSeconds: Double?
        /// The earliest state a restore reaches (its oldest snapshot).
        public var earliest: Date?
        /// The same, in seconds since 1970.
        public var earliestUnix: Double?
        public var levels: [Level]
    }

    /// - throws: ``DBToolError`` 66 for a replica that does not exist, 77 or
    ///   75 for an object store that refuses or does not answer.
    public func run(now: Date = Date()) throws -> Report {
        let store = try Replica.at(replica, objectStore: objectStore)
        if let path = store.store.localPath, !FileSystem.isDirectory(path) {
            throw DBToolError(.noInput, "no replica at \(path)", hint: "Give the directory `dbtool replicate --to` writes.")
        }
        var levels: [Level] = []
        var all: [ReplicaFile] = []
        for level in ReplicaLevels.all {
            let files = try store.files(level: level)
            all += files
            guard !files.isEmpty else { continue }
            levels.append(
                Level(
                    level: level, files: files.count, bytes: files.reduce(0) { $0 + $1.size },
                    minTXID: files.map(\.name.minTXID).min().map(LTXFileName.hex), maxTXID: files.map(\.name.maxTXID).max().map(LTXFileName.hex)))
        }
        let last = all.max { ($0.name.maxTXID, $0.createdAt) < ($1.name.maxTXID, $1.createdAt) }
        let time = try last.map { try store.exactTimestamp(of: $0) }
        let earliest = all.filter { $0.name.minTXID == 1 }.map(\.createdAt).min()
        return Report(
            replica: store.description, txid: last.map { LTXFileName.hex($0.name.maxTXID) }, time: time,
            timeUnix: time?.timeIntervalSince1970, lagSeconds: time.map { max(0, now.timeIntervalSince($0)) }, earliest: earliest,
            earliestUnix: earliest?.timeIntervalSince1970, levels: levels)
    }
}
