import DatabaseKit
import Foundation
import Testing

@Suite("SQL interpolation")
struct SQLInterpolationTests {
    @Test("values become bound arguments; nil is written NULL")
    func values() throws {
        let name = "O'Brien"
        let score: Int? = nil
        let sql: SQL = "INSERT INTO player (name, score) VALUES (\(name), \(score))"
        let (text, arguments) = try DatabaseQueue().read { try sql.build($0) }
        #expect(text == "INSERT INTO player (name, score) VALUES (?, NULL)")
        #expect(arguments == ["O'Brien"])
    }

    @Test("\\(sql:) inserts raw SQL, SQL values compose")
    func composition() throws {
        let db = DatabaseQueue()
        let table = "player"
        let condition: SQL = "score > \(100)"
        var query: SQL = "SELECT * FROM \(sql: table) WHERE \(condition)"
        query += " AND name = \("Arthur")"
        query.append(sql: " LIMIT ?", arguments: [10])
        query.append(literal: " -- \(sql: "end")")
        let (text, arguments) = try db.read { try query.build($0) }
        #expect(text == "SELECT * FROM player WHERE score > ? AND name = ? LIMIT ? -- end")
        #expect(arguments == [100, "Arthur", 10])
        // `SQL("a")` is a literal (raw SQL): a value is interpolated.
        let a = "a"
        let joined = ["\(a)", SQL(sql: "b"), "c = \(1)"].joined(separator: ", ")
        let built = try db.read { try joined.build($0) }
        #expect(built.sql == "?, b, c = ?")
        #expect(built.arguments == ["a", 1])
        #expect(SQL(sql: "").isEmpty)
        #expect(!SQL("\(1)").isEmpty)
    }

    @Test("execute(literal:) and SQLRequest fetches")
    func execution() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(literal: "CREATE TABLE player (name TEXT, score INT)")
            for (name, score) in [("Arthur", 750), ("Barbara", 1000)] {
                try db.execute(literal: "INSERT INTO player VALUES (\(name), \(score))")
            }
        }
        try dbQueue.read { (db: Database) throws in
            let minScore = 800
            let request: SQLRequest<String> = "SELECT name FROM player WHERE score > \(minScore)"
            #expect(try request.fetchAll(db) == ["Barbara"])
            #expect(try request.fetchOne(db) == "Barbara")
            #expect(try String.fetchAll(db, SQLRequest<String>(literal: "SELECT name FROM player ORDER BY name")) == ["Arthur", "Barbara"])
            let rows = try Row.fetchAll(db, SQLRequest<Row>(sql: "SELECT * FROM player WHERE name = ?", arguments: ["Arthur"]))
            #expect(rows == [["name": "Arthur", "score": 750]])
            let rowRequest: SQLRequest<Row> = "SELECT score FROM player WHERE name = \("Arthur")"
            #expect(try rowRequest.fetchOne(db) == ["score": 750])
            #expect(try Int.fetchSet(db, SQLRequest<Int>(literal: "SELECT score FROM player")) == [750, 1000])
        }
    }

    @Test("injection attempts stay values")
    func injection() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let evil = "x'); DROP TABLE t; --"
            try db.execute(literal: "INSERT INTO t VALUES (\(evil))")
            #expect(try String.fetchOne(db, sql: "SELECT a FROM t") == evil)
        }
    }
}
