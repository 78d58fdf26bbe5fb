import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Records")
struct RecordTests {
    struct Player: FetchableRecord, Equatable, Hashable {
        var id: Int64
        var name: String
        var score: Int?
        init(id: Int64, name: String, score: Int?) {
            self.id = id
            self.name = name
            self.score = score
        }
        init(row: Row) {
            id = row["id"]
            name = row["name"]
            score = row["score"]
        }
    }

    struct DecodedPlayer: FetchableRecord, Decodable, Equatable {
        enum Level: String, Decodable, DatabaseValueConvertible { case beginner, expert }
        struct Address: Decodable, Equatable { var city: String }
        var id: Int64
        var name: String
        var score: Int?
        var level: Level
        var joined: Date
        var uuid: UUID
        var tags: [String]
        var address: Address?
        var ratio: Double
        var active: Bool
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT,
                        level TEXT, joined TEXT, uuid BLOB, tags TEXT, address TEXT, ratio REAL, active INT);
                    """)
            try db.execute(
                sql: "INSERT INTO player VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    1, "Arthur", 750, "expert", Date(timeIntervalSince1970: 0), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                    #"["a","b"]"#, #"{"city":"Paris"}"#, 0.5, true,
                ])
            try db.execute(
                sql: "INSERT INTO player VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    2, "Barbara", nil, "beginner", "2020-01-01", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "[]", nil, 1,
                    false,
                ])
        }
        return dbQueue
    }

    @Test("FetchableRecord from SQL, statements and requests")
    func fetchableRecord() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let players = try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
            #expect(players == [Player(id: 1, name: "Arthur", score: 750), Player(id: 2, name: "Barbara", score: nil)])
            #expect(try Player.fetchOne(db, sql: "SELECT * FROM player WHERE id = ?", arguments: [2])?.name == "Barbara")
            #expect(try Player.fetchSet(db, sql: "SELECT * FROM player").count == 2)
            let cursor = try Player.fetchCursor(db, sql: "SELECT * FROM player ORDER BY id")
            #expect(try cursor.next()?.name == "Arthur")
            let statement = try db.makeStatement(sql: "SELECT * FROM player WHERE id = ?")
            #expect(try Player.fetchOne(statement, arguments: [1])?.score == 750)
            #expect(try Player.fetchAll(statement, arguments: [1]).count == 1)
            #expect(try Player.fetchSet(statement, arguments: [1]).count == 1)
            #expect(try Player.fetchCursor(statement, arguments: [2]).next()?.id == 2)
            let request: SQLRequest<Player> = "SELECT * FROM player WHERE name = \("Arthur")"
            #expect(try request.fetchOne(db)?.id == 1)
            #expect(try request.fetchAll(db).count == 1)
            #expect(try Player.fetchCursor(db, request).next()?.id == 1)
            #expect(try Player.fetchSet(db, request).count == 1)
        }
    }

    @Test("Decodable records: values, optionals, enums, dates, UUIDs, JSON columns")
    func decodable() throws {
        let dbQueue = try makeDatabase()
        let players = try dbQueue.read { db in try DecodedPlayer.fetchAll(db, sql: "SELECT * FROM player ORDER BY id") }
        #expect(players.count == 2)
        #expect(players[0].name == "Arthur")
        #expect(players[0].score == 750)
        #expect(players[0].level == .expert)
        #expect(players[0].joined == Date(timeIntervalSince1970: 0))
        #expect(players[0].uuid.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(players[0].tags == ["a", "b"])
        #expect(players[0].address == DecodedPlayer.Address(city: "Paris"))
        #expect(players[0].ratio == 0.5)
        #expect(players[0].active)
        #expect(players[1].score == nil)
        #expect(players[1].address == nil)
        #expect(players[1].tags == [])
        #expect(players[1].ratio == 1)
        #expect(!players[1].active)
    }

    @Test("Decodable errors name the column")
    func decodableErrors() throws {
        struct Strict: FetchableRecord, Decodable {
            var id: Int
            var missing: String
        }
        struct Mismatch: FetchableRecord, Decodable { var name: Date }
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let missing = #expect(throws: (any Error).self) { try Strict.fetchAll(db, sql: "SELECT id FROM player") }
            #expect("\(missing!)".contains("missing"))
            let mismatch = #expect(throws: RowDecodingError.self) { try Mismatch.fetchAll(db, sql: "SELECT name FROM player") }
            #expect(mismatch?.description.contains("column: \"name\"") == true)
        }
    }

    @Test("a record's init(row:) can throw")
    func throwingInit() throws {
        struct Failure: Error {}
        struct Picky: FetchableRecord {
            init(row: Row) throws { throw Failure() }
        }
        let dbQueue = DatabaseQueue()
        #expect(throws: Failure.self) { try dbQueue.read { db in try Picky.fetchAll(db, sql: "SELECT 1") } }
        // The statement was reset: the connection is usable.
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }
}
