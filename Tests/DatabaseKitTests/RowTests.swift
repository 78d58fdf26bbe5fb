import DatabaseKit
import Foundation
import Testing

@Suite("Row")
struct RowTests {
    @Test("subscripts by index and by case-insensitive column name")
    func subscripts() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let row = try Row.fetchOne(db, sql: "SELECT 1 AS id, 'Arthur' AS Name, NULL AS score, 2.5 AS ratio, x'00ff' AS data")!
            let id: Int64 = row[0]
            let name: String = row["name"]
            let upper: String = row["NAME"]
            let score: Int? = row["score"]
            let missing: Int? = row["missing"]
            let ratio: Double = row["ratio"]
            let data: Data = row["data"]
            #expect(id == 1)
            #expect(name == "Arthur" && upper == "Arthur")
            #expect(score == nil)
            #expect(missing == nil)
            #expect(ratio == 2.5)
            #expect(data == Data([0, 255]))
            #expect(row[0] as? Int64 == 1)
            #expect(row["Name"] as? String == "Arthur")
            #expect(row["score"] == nil)
            #expect(row.count == 5)
            #expect(row.columnNames == ["id", "Name", "score", "ratio", "data"])
            #expect(row.hasColumn("RATIO"))
            #expect(!row.hasColumn("nope"))
            #expect(row.hasNull(atIndex: 2))
            #expect(row.containsNonNullValue)
            #expect(row.databaseValues[1] == "Arthur".databaseValue)
        }
    }

    @Test("lookups by name on a cursor row stay right in any order, across rows")
    func namedLookupsAcrossRows() throws {
        // A statement row remembers where the last name was found, and tries
        // the next column first: reading in order, out of order, the same
        // column twice, with another case, or a missing column must all
        // find the same columns as a fresh lookup.
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT column1 AS a, column2 AS b, column3 AS c FROM (VALUES (1, 2, 3), (4, 5, 6), (7, 8, 9))")
            var seen: [[Int]] = []
            while let row = try rows.next() {
                let inOrder = [row["a"], row["b"], row["c"]] as [Int]
                let reversed = [row["c"], row["b"], row["a"]] as [Int]
                let repeated = [row["b"], row["b"], row["C"], row["A"]] as [Int]
                let missing = row["d"] as Int?
                #expect(reversed == inOrder.reversed())
                #expect(repeated == [inOrder[1], inOrder[1], inOrder[2], inOrder[0]])
                #expect(missing == nil)
                #expect(row.index(forColumn: "B") == 1)
                seen.append(inOrder)
            }
            #expect(seen == [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
            // With repeated names, the leftmost column always wins, even
            // right after the other one was read by index.
            let duplicates = try Row.fetchCursor(db, sql: "SELECT 1 AS x, 2 AS y, 3 AS x")
            while let row = try duplicates.next() {
                #expect(row["x"] as Int == 1)
                #expect(row["y"] as Int == 2)
                #expect(row["x"] as Int == 1)
                #expect(row[2] as Int == 3)
                #expect(row["X"] as Int == 1)
            }
        }
    }

    @Test("the leftmost column wins when names repeat")
    func duplicateColumns() throws {
        let dbQueue = DatabaseQueue()
        let row = try dbQueue.read { db in try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS A")! }
        #expect(row["a"] as Int == 1)
        #expect(row["A"] as Int == 1)
        // SQLite folds ASCII case only.
        let unicode: Row = ["É": 1]
        #expect(unicode.hasColumn("É"))
        #expect(!unicode.hasColumn("é"))
    }

    @Test("decode throws where subscripts would stop the program")
    func decode() throws {
        let row: Row = ["a": "x", "b": nil]
        #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "a") }
        #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "missing") }
        #expect(throws: RowDecodingError.self) { try row.decode(Int.self, atIndex: 1) }
        #expect(try row.decode(Int?.self, forColumn: "b") == nil)
        #expect(try row.decode(Int?.self, forColumn: "missing") == nil)
        #expect(try row.decode(String.self, atIndex: 0) == "x")
    }

    @Test("a failed typed subscript stops the program with a clear message")
    func subscriptFailure() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let row: Row = ["name": "Arthur"]
            let value: Int = row["name"]
            _ = value
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("could not decode Int from database value \"Arthur\""))
    }

    @Test("cursor rows are reused; copy() keeps the values")
    func copy() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let cursor = try Row.fetchCursor(db, sql: "SELECT 1 AS a UNION ALL SELECT 2")
            let first = try cursor.next()!
            let copied = first.copy()
            let second = try cursor.next()!
            #expect(first === second)
            #expect(second["a"] as Int == 2)
            #expect(copied["a"] as Int == 1)
            #expect(copied == ["a": 1])
        }
    }

    @Test("equality, hashing, description, dictionary literal, collection")
    func valueSemantics() {
        let row: Row = ["id": 1, "name": "Arthur", "score": nil]
        #expect(row == ["id": 1, "name": "Arthur", "score": nil])
        #expect(row != ["id": 1, "name": "Arthur"])
        #expect(row != ["name": "Arthur", "id": 1, "score": nil])
        #expect(Set([row, row.copy()]).count == 1)
        #expect(row.description == "[id:1 name:\"Arthur\" score:NULL]")
        #expect(Array(row.map(\.0)) == ["id", "name", "score"])
        #expect(Row().isEmpty)
        #expect(Row(["a": 1])["a"] as Int == 1)
        let fromDictionary = Row(["x": "y"])
        #expect(fromDictionary.count == 1)
    }
}
