import FoundationEssentials

/// A database rebuilt from a replica's LTX files (``RestorePlan``) into a
/// staging directory: each file read once, its checksum verified as it is
/// applied, the result synced. The caller checks it and puts it in place.
struct ReplicaRestore {
    let store: Replica
    let target: RestorePlan.Target

    /// What was rebuilt.
    struct Result: Codable, Sendable, Equatable {
        /// The TXID the database is at.
        var txid: String
        /// When its last file was written.
        var time: Date
        /// The files applied.
        var files: Int
    }

    /// Whether the replica holds anything to restore at all.
    static func isReplica(_ store: Replica) throws -> Bool {
        try store.lastTXID() > 0
    }

    /// Builds the database as `fileName` in `staging`.
    ///
    /// - throws: ``DBToolError`` 66 when nothing is restorable at the target,
    ///   65 when a file is damaged or the chain has a gap (naming the file).
    func build(into staging: DirectoryDescriptor, fileName: String) throws -> Result {
        let (found, listed) = try RestorePlan.load(from: store, target: target) { file in try store.exactTimestamp(of: file) }
        guard let plan = found else {
            throw DBToolError(
                .noInput, "\(store.description) holds no state at or before \(describe(target)) (\(listed) files)",
                hint: "List what it holds with `dbtool replicate status \(store.description)`.")
        }
        if case .txid(let wanted) = target, plan.txid != wanted {
            throw DBToolError(
                .noInput, "\(store.description) can not restore TXID \(LTXFileName.hex(wanted)): the chain stops at \(LTXFileName.hex(plan.txid))",
                hint: "Restore an earlier TXID, or the latest state.")
        }
        let database: FileDescriptor
        do {
            database = try staging.createFile(fileName)
        } catch {
            throw error.reported(.cantCreate)
        }
        defer { database.close() }
        var applier = LTXApplier(database: database)
        for file in plan.files {
            try Interruption.check()
            do {
                try applier.apply(from: try store.open(file.name), name: file.name.path)
            } catch let error as LTXError {
                throw DBToolError(
                    .dataError, "\(store.description): \(file.name.path) can not be applied: \(error.reason)",
                    hint: "Check the replica with `dbtool replicate verify`; restore an earlier state with --txid or --at.")
            }
        }
        do {
            try database.sync()
        } catch {
            throw error.reported(.ioError)
        }
        let last = plan.files.last!
        return Result(txid: LTXFileName.hex(plan.txid), time: try store.exactTimestamp(of: last), files: plan.files.count)
    }

    private func describe(_ target: RestorePlan.Target) -> String {
        switch target {
        case .latest: "now"
        case .txid(let txid): "TXID \(LTXFileName.hex(txid))"
        case .time(let time): ISOTime.seconds(time)
        }
    }
}
