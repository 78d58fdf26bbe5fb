import FoundationEssentials

/// Which database a replica belongs to: `dbtool-replica.json` beside its
/// `ltx/` levels (or under its prefix), written once by the first
/// `replicate` that writes there.
///
/// A replica has one owner: two databases writing one replica overwrite
/// each other's TXID files and leave a history no restore can rebuild. So
/// a `replicate` of another database onto it is refused (73, naming both),
/// whatever the timing: the record is created exclusively (a link in a
/// directory, `If-None-Match: *` on S3), and the loser of a race reads the
/// winner's. A replica that Litestream wrote has no record: the first
/// `dbtool replicate` adopts it, and any other database is then refused.
/// Litestream ignores the file.
struct ReplicaRecord: Codable, Equatable {
    /// The record's own format.
    var format = 1
    /// The database that writes the replica.
    var database: SeriesIdentity
    /// When the replica was claimed, ISO 8601 UTC.
    var created: String
    var dbtoolVersion: String

    /// Its name in the replica.
    static let name = "dbtool-replica.json"
    /// The largest record read.
    static let sizeLimit = 64 * 1024

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The record of `store`; nil when it has none.
    ///
    /// - throws: ``DBToolError`` 65 when a file of that name is not a record dbtool wrote.
    static func read(from store: Replica) throws -> ReplicaRecord? {
        guard let data = try store.readRecord() else { return nil }
        guard let record = try? JSONDecoder().decode(ReplicaRecord.self, from: data) else {
            throw DBToolError(
                .dataError, "\(store.description)/\(name) is not a replica record dbtool wrote; nothing was written",
                hint: "Check what wrote it; remove it only if this replica belongs to the database you replicate.")
        }
        return record
    }

    /// Makes `store` the replica of `database`: claims it when it has no
    /// owner, checks the owner otherwise. Returns true when it was claimed now.
    ///
    /// - throws: ``DBToolError`` 73 when the replica belongs to another
    ///   database, naming both.
    @discardableResult
    static func claim(_ store: Replica, for database: SeriesIdentity, now: Date = Date()) throws -> Bool {
        if let existing = try read(from: store) {
            try check(existing, store: store, database: database)
            return false
        }
        let record = ReplicaRecord(database: database, created: ISOTime.text(now), dbtoolVersion: DBToolVersion.current)
        if try store.createRecord(try record.encoded()) { return true }
        // Another run claimed it between the read and the write: its record decides.
        guard let winner = try read(from: store) else {
            throw DBToolError(.tempFail, "\(store.description): its record changed while it was being claimed", hint: "Run replicate again.")
        }
        try check(winner, store: store, database: database)
        return false
    }

    private static func check(_ record: ReplicaRecord, store: Replica, database: SeriesIdentity) throws {
        guard !record.database.names(database) else { return }
        throw DBToolError(
            .cantCreate,
            "the replica \(store.description) belongs to the database \(record.database.summary), not to \(database.summary): writing there would mix two histories; nothing was written",
            hint:
                "Give each database a replica of its own (--to). To hand this replica to this database, stop the other's replicate and remove \(store.description)/\(name)."
        )
    }
}
