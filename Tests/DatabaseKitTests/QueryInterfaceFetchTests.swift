import DatabaseKit
import Foundation
import Testing

/// What query interface requests fetch, count, delete and update, on a
/// real database; and the misuses they report instead of trapping.
@Suite("Query interface: fetching, counting, deleting, updating")
struct QueryInterfaceFetchTests {
    typealias Player = QueryInterfaceSQLTests.Player

    static func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try QueryInterfaceSQLTests.makeDatabase()
        try dbQueue.write { (db: Database) throws in
            for (id, name, score, team) in [(1, "Arthur", 100, "red"), (2, "Barbara", 250, "blue"), (3, "Craig", 150, "red"), (4, "Diane", 90, nil)] {
                try Player(id: Int64(id), name: name, score: score, teamId: team).insert(db)
            }
        }
        return dbQueue
    }

    @Test("records, rows and values; one, all, set and cursor")
    func fetches() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            let best = Player.filter(Column("score") > 95).order(Column("score").desc)
            #expect(try best.fetchAll(db).map(\.name) == ["Barbara", "Craig", "Arthur"])
            #expect(try best.fetchOne(db)?.name == "Barbara")
            #expect(try best.fetchSet(db).count == 3)
            #expect(try Array(best.fetchCursor(db)).map(\.id) == [2, 3, 1])
            #expect(try best.fetchCount(db) == 3)
            #expect(try best.reversed().limit(1).fetchOne(db)?.name == "Arthur")
            #expect(try Player.find(db, id: 3).name == "Craig")
            #expect(try Player.filter(id: 3).fetchOne(db)?.name == "Craig")
            #expect(try Player.filter(id: 99).fetchOne(db) == nil)
            #expect(try Player.filter(ids: [1, 4]).order(Column("id")).fetchAll(db).map(\.name) == ["Arthur", "Diane"])
            #expect(try Player.filter(key: ["name": "Diane"]).fetchOne(db)?.id == 4)
            #expect(try Player.select(Column("name"), as: String.self).order(Column("name")).fetchAll(db) == ["Arthur", "Barbara", "Craig", "Diane"])
            #expect(try Player.select(max(Column("score")), as: Int.self).fetchOne(db) == 250)
            #expect(try Player.select(Column("teamId"), as: String?.self).order(Column("id")).fetchAll(db) == ["red", "blue", "red", nil])
            #expect(try Player.selectID().order(Column("id").desc).fetchAll(db) == [4, 3, 2, 1])
            let rows = try Table("player").select(Column("teamId"), count(Column("id")).forKey("n")).group(Column("teamId"))
                .having(count(Column("id")) > 1).fetchAll(db)
            #expect(rows == [["teamId": "red", "n": 2]])
            #expect(try Player.all().isEmpty(db) == false)
            #expect(try Player.none().isEmpty(db))
            #expect(try Player.none().fetchAll(db).isEmpty)
            #expect(try Table<Player>("player").filter(Column("teamId") == nil).fetchOne(db)?.name == "Diane")
            #expect(try Table("player").fetchCount(db) == 4)
            #expect(try Table("player").exists(db, key: 2))
            #expect(try Player.select(Column("teamId")).distinct().fetchCount(db) == 2)
            #expect(try Player.limit(2, offset: 3).fetchCount(db) == 1)
        }
    }

    @Test("a request is a value: derived requests leave the original as it was, and it crosses threads")
    func values() async throws {
        let dbQueue = try Self.makeDatabase()
        let base = Player.filter(Column("score") > 95)
        let ordered = base.order(Column("name"))
        _ = base.limit(1)
        let task = Task.detached { try await dbQueue.read { db in try ordered.fetchAll(db).map(\.name) } }
        #expect(try await task.value == ["Arthur", "Barbara", "Craig"])
        #expect(try await dbQueue.read { db in try base.fetchCount(db) } == 3)
    }

    @Test("deleteAll and updateAll return the rows they changed")
    func batches() throws {
        try Self.makeDatabase().write { (db: Database) throws in
            #expect(try Player.filter(Column("teamId") == "red").updateAll(db, Column("score") += 10) == 2)
            #expect(try Player.filter(id: 1).fetchOne(db)?.score == 110)
            #expect(try Player.filter(Column("score") < 100).deleteAll(db) == 1)
            #expect(try Player.fetchCount(db) == 3)
            #expect(try Table("player").deleteAll(db, keys: [2, 3]) == 2)
            #expect(try Player.deleteAll(db) == 1)
        }
    }

    @Test("misuses throw a DatabaseError: a key that is not unique, a raw ordering reversed, a missing column")
    func misuses() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            #expect {
                try Player.filter(key: ["score": 100]).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_MISUSE && "\(error)".contains("no unique key on column(s) score")
            }
            #expect {
                try Player.order(sql: "score").reversed().fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_MISUSE && "\(error)".contains("can not be reversed")
            }
            #expect {
                try Player.filter(Column("nope") == 1).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_ERROR && "\(error)".contains("no such column: nope")
            }
            #expect {
                try Player.select([]).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_MISUSE
            }
            // A composite primary key has no single column to filter on.
            #expect(throws: DatabaseError.self) { try Table("citizenship").filter(key: 1).fetchAll(db) }
        }
        try Self.makeDatabase().write { (db: Database) throws in
            #expect(throws: DatabaseError.self) { _ = try Player.all().group(Column("teamId")).deleteAll(db) }
            #expect(try Player.fetchCount(db) == 4, "nothing was deleted")
        }
    }

    @Test("a request's region is the tables and columns it reads")
    func region() throws {
        try Self.makeDatabase().read { (db: Database) throws in
            let region = try Player.select(Column("name")).filter(Column("score") > 1).databaseRegion(db)
            #expect(region.description == "player(name,score)")
        }
    }
}
