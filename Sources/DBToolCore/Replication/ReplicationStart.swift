/// How a run of `replicate` begins: from the replica's position, shipping
/// what changed since, never the whole database again unless its history
/// diverged.
///
/// 1. An empty replica gets the whole database as TXID 1.
/// 2. The replica's last file was read from the log the database still has
///    (its salts, its frames up to the file's end): the run resumes there,
///    and the next sync ships what follows. Nothing is written again.
/// 3. Otherwise, when the state of what the replica holds (`ReplicaState`)
///    is the replica's TXID, one file holds the pages that differ from it
///    (none when the replica holds the database as it is).
/// 4. Otherwise (another database's replica adopted, a restore under the
///    database, a state lost), the whole database follows as the next TXID.
struct ReplicationStart {
    let replica: Replica
    let session: ReplicationSession
    let state: ReplicaState
    /// The database's node ID: a file of the replica written by another
    /// database is never resumed from.
    let nodeID: UInt64

    /// What the start did, for the log.
    struct Outcome {
        /// The file the start wrote into the outbox, if any.
        var file: LTXFileName?
        /// The replica's last TXID at the start.
        var replicaTXID: UInt64
        var description: String
    }

    /// The largest catch-up of the state from the replica's own files: past
    /// it, reading the database is the cheaper way.
    static let catchUpLimit: Int64 = 256 << 20

    func run() throws -> Outcome {
        let last = try replica.lastTXID()
        guard last > 0 else {
            try state.reset()
            let file = try session.startWithImage(after: 0)
            return Outcome(file: file, replicaTXID: 0, description: "snapshot: TXID 1, the whole database")
        }
        let knowsReplica = try bringStateUp(to: last)
        if let end = try lastPosition(last), try session.resume(after: last, at: end) {
            if !knowsReplica { try session.record(into: state) }
            return Outcome(
                file: nil, replicaTXID: last,
                description: "resumed after the replica's TXID \(LTXFileName.hex(last)), at offset \(end.offset) of the same write-ahead log")
        }
        if knowsReplica {
            let file = try session.startWithChangedPages(after: last, state: state)
            let description =
                file == nil
                ? "resumed after the replica's TXID \(LTXFileName.hex(last)): it holds the database as it is"
                : "resumed: the pages changed since the replica's TXID \(LTXFileName.hex(last)) as TXID \(LTXFileName.hex(last + 1))"
            return Outcome(file: file, replicaTXID: last, description: description)
        }
        try state.reset()
        let file = try session.startWithImage(after: last)
        return Outcome(
            file: file, replicaTXID: last,
            description: "resumed: a full image as TXID \(LTXFileName.hex(last + 1)), after the replica's \(LTXFileName.hex(last)) (nothing tells what it holds)")
    }

    /// Brings the state to the replica's TXID `last` from the replica's own
    /// files after the state's (a kill between an upload and its record);
    /// returns whether it then describes the replica.
    private func bringStateUp(to last: UInt64) throws -> Bool {
        if state.txid == last && state.pageSize > 0 { return true }
        guard state.txid > 0, state.txid < last else { return false }
        let chain = try RestorePlan.chain(after: state.txid, in: try replica.files(after: state.txid))
        guard chain.last?.name.maxTXID == last, chain.reduce(0, { $0 + $1.size }) <= Self.catchUpLimit else { return false }
        for file in chain { try state.apply(try replica.open(file.name)) }
        return state.txid == last
    }

    /// Where the replica's last file ended the log it was read from: nil when
    /// that file is not a level-0 file read from a log by this database.
    private func lastPosition(_ last: UInt64) throws -> WALPosition? {
        guard let file = try replica.files(level: 0, firstTXIDs: last...last).first(where: { $0.name.maxTXID == last }) else { return nil }
        let header = try LTXDecoder(from: try replica.open(file.name)).header
        guard header.walOffset > 0, header.nodeID == 0 || header.nodeID == nodeID else { return nil }
        return WALPosition(offset: header.walOffset + header.walSize, checksum: .zero, salt1: header.walSalt1, salt2: header.walSalt2)
    }
}
