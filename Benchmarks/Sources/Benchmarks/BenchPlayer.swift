import DatabaseKit
import GRDB

// The records of the record workloads: the same table, once with Codable
// conformances, once with hand-written ones. Each library has its own types
// with the same code: both libraries declare the same record requirements
// (GRDB's, on purpose), so one type can not adopt both without choosing.

/// A player record with Codable conformances, for DatabaseKit.
struct CodablePlayer: Codable, Sendable, DatabaseKit.FetchableRecord, DatabaseKit.MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    mutating func didInsert(_ inserted: DatabaseKit.InsertionSuccess) { id = inserted.rowID }
}

/// The same, for GRDB.
struct GRDBCodablePlayer: Codable, Sendable, GRDB.FetchableRecord, GRDB.MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    mutating func didInsert(_ inserted: GRDB.InsertionSuccess) { id = inserted.rowID }
}

/// A player record with hand-written conformances, for DatabaseKit (and the
/// values of the raw C workloads).
struct Player: Sendable, DatabaseKit.FetchableRecord, DatabaseKit.MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    init(id: Int64?, name: String, score: Int, bonus: Double) {
        (self.id, self.name, self.score, self.bonus) = (id, name, score, bonus)
    }

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

/// The same, for GRDB.
struct GRDBPlayer: Sendable, GRDB.FetchableRecord, GRDB.MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double

    init(id: Int64?, name: String, score: Int, bonus: Double) {
        (self.id, self.name, self.score, self.bonus) = (id, name, score, bonus)
    }

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

func grdbPlayersToInsert() -> [GRDBPlayer] {
    playersToInsert().map { GRDBPlayer(id: $0.id, name: $0.name, score: $0.score, bonus: $0.bonus) }
}

func codablePlayersToInsert() -> [CodablePlayer] {
    playersToInsert().map { CodablePlayer(id: $0.id, name: $0.name, score: $0.score, bonus: $0.bonus) }
}

func grdbCodablePlayersToInsert() -> [GRDBCodablePlayer] {
    playersToInsert().map { GRDBCodablePlayer(id: $0.id, name: $0.name, score: $0.score, bonus: $0.bonus) }
}
