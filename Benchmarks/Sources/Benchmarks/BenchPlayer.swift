import DatabaseKit
import GRDB

// The records of the record workloads: the same table, once with Codable
// conformances, once with hand-written ones, each for DatabaseKit and GRDB
// (the user code is the same on purpose: only the library differs).

/// A player record with Codable conformances.
struct CodablePlayer: Codable, Sendable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    // Both libraries declare this callback with the same signature and a
    // default: a type that adopts both must pick one.
    func didDelete(deleted: Bool) {}
}

/// A player record with hand-written conformances.
struct Player: Sendable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    func didDelete(deleted: Bool) {}  // see CodablePlayer
}

extension CodablePlayer: DatabaseKit.FetchableRecord, DatabaseKit.MutablePersistableRecord {
    mutating func didInsert(_ inserted: DatabaseKit.InsertionSuccess) { id = inserted.rowID }
}

extension CodablePlayer: GRDB.FetchableRecord, GRDB.MutablePersistableRecord {
    mutating func didInsert(_ inserted: GRDB.InsertionSuccess) { id = inserted.rowID }
}

extension Player: DatabaseKit.FetchableRecord, DatabaseKit.MutablePersistableRecord {
    init(row: DatabaseKit.Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        bonus = row["bonus"]
    }

    func encode(to container: inout DatabaseKit.PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = score
        container["bonus"] = bonus
    }

    mutating func didInsert(_ inserted: DatabaseKit.InsertionSuccess) { id = inserted.rowID }
}

extension Player: GRDB.FetchableRecord, GRDB.MutablePersistableRecord {
    init(row: GRDB.Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        bonus = row["bonus"]
    }

    func encode(to container: inout GRDB.PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = score
        container["bonus"] = bonus
    }

    mutating func didInsert(_ inserted: GRDB.InsertionSuccess) { id = inserted.rowID }
}

/// The records inserted by the record-insert workloads, built outside the
/// measured region.
func playersToInsert() -> [Player] {
    (0..<Fixtures.insertRowCount).map { Player(id: nil, name: playerName($0), score: $0, bonus: Double($0) / 4) }
}

func codablePlayersToInsert() -> [CodablePlayer] {
    playersToInsert().map { CodablePlayer(id: $0.id, name: $0.name, score: $0.score, bonus: $0.bonus) }
}
