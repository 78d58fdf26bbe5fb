// `make demo`: DatabaseKit at work on a database in a dedicated directory
// (default ./demo). Running it again reuses the database: each run adds a
// round of scores.

import DatabaseKit
import Foundation

struct Player: FetchableRecord, Decodable {
    var id: Int64
    var name: String
    var score: Int
}

/// A round of play: inserting it gives it its id.
struct Round: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var playedAt: Date

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

let directory = CommandLine.arguments.dropFirst().first ?? "demo"
let path = directory + "/db.sqlite"

func step(_ title: String) { print("==> \(title)") }

do {
    step("Open \(path) (WAL mode)")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var config = Configuration()
    config.journalMode = .wal
    config.busyMode = .timeout(5)
    let dbQueue = try DatabaseQueue(path: path, configuration: config)

    step("Create the schema when missing (table definitions)")
    try dbQueue.write { db in
        try db.create(table: "player", options: .ifNotExists) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().unique()
            t.column("score", .integer).notNull().defaults(to: 0)
        }
        try db.create(table: "round", options: .ifNotExists) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("playedAt", .datetime).notNull()
        }
    }
    let columns = try dbQueue.read { db in try db.columns(in: "player") }
    print("    player: " + columns.map { "\($0.name) \($0.type)" }.joined(separator: ", "))

    step("Play a round in one transaction (a record insert, then named arguments)")
    let round = try dbQueue.write { db -> Int64 in
        var record = Round(id: nil, playedAt: Date())
        try record.insert(db)
        let round = record.id!
        for (name, points) in [("Arthur", 750), ("Barbara", 1000), ("Craig", 500)] {
            try db.execute(
                sql: """
                    INSERT INTO player (name, score) VALUES (:name, :points)
                    ON CONFLICT(name) DO UPDATE SET score = score + :points
                    """,
                arguments: ["name": name, "points": points * Int(round)])
        }
        return round
    }
    print("    round #\(round) recorded")

    step("Read the ranking as Decodable records")
    let players = try dbQueue.read { db in
        try Player.fetchAll(db, sql: "SELECT id, name, score FROM player ORDER BY score DESC")
    }
    for player in players {
        print("    \(player.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(player.score)")
    }

    step("Stream rows through a cursor")
    let total = try dbQueue.read { db in
        try Int.fetchCursor(db, sql: "SELECT score FROM player").reduce(0, +)
    }
    print("    total score: \(total)")

    step("A failing transaction leaves nothing behind")
    do {
        try dbQueue.write { db in
            try db.execute(sql: "UPDATE player SET score = 0")
            try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])  // UNIQUE violation
        }
    } catch let error as DatabaseError {
        print("    \(error)")
    }
    let totalAfter = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT SUM(score) FROM player") ?? 0 }
    print("    total score still \(totalAfter)")

    let rounds = try dbQueue.read { db in try Round.fetchCount(db) }
    step("Done: SQLite \(Database.sqliteLibVersion), \(rounds) round(s) in \(path)")
} catch {
    FileHandle.standardError.write(Data("demo failed: \(error)\n".utf8))
    exit(1)
}
