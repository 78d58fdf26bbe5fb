import DatabaseKit
import Foundation
import Testing
import TestSupport

@Suite("Fetching rows and values")
struct FetchingTests {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT);
                    INSERT INTO player VALUES (1, 'Arthur', 750), (2, 'Barbara', 1000), (3, 'Craig', NULL);
                    """)
        }
        return dbQueue
    }

    @Test("rows from SQL: cursor, all, set, one")
    func rowsFromSQL() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let cursor = try Row.fetchCursor(db, sql: "SELECT name FROM player WHERE id <= ? ORDER BY id", arguments: [2])
            var names: [String] = []
            while let row = try cursor.next() { names.append(row["name"]) }
            #expect(names == ["Arthur", "Barbara"])
            #expect(try cursor.next() == nil)

            let all = try Row.fetchAll(db, sql: "SELECT id, name FROM player ORDER BY id")
            #expect(all.count == 3)
            #expect(all[2] == ["id": 3, "name": "Craig"])

            let set = try Row.fetchSet(db, sql: "SELECT score IS NULL AS n FROM player")
            #expect(set == [["n": 0], ["n": 1]])

            #expect(try Row.fetchOne(db, sql: "SELECT * FROM player WHERE id = :id", arguments: ["id": 2])?["name"] == "Barbara")
            #expect(try Row.fetchOne(db, sql: "SELECT * FROM player WHERE id = 42") == nil)
        }
    }

    @Test("rows from a prepared statement and from a request")
    func rowsFromStatementAndRequest() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let statement = try db.makeStatement(sql: "SELECT name FROM player WHERE id = ?")
            #expect(try Row.fetchOne(statement, arguments: [1]) == ["name": "Arthur"])
            #expect(try Row.fetchAll(statement, arguments: [2]) == [["name": "Barbara"]])
            #expect(try Row.fetchSet(statement, arguments: [3]) == [["name": "Craig"]])
            let cursor = try Row.fetchCursor(statement, arguments: [1])
            #expect(try cursor.next()?["name"] == "Arthur")

            let request = SQLRequest<Row>(literal: "SELECT name FROM player WHERE score > \(800)")
            #expect(try Row.fetchAll(db, request) == [["name": "Barbara"]])
            #expect(try Row.fetchOne(db, request) == ["name": "Barbara"])
            #expect(try Row.fetchSet(db, request).count == 1)
            #expect(try Row.fetchCursor(db, request).next() != nil)
        }
    }

    @Test("values from SQL, statements and requests")
    func values() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["Arthur", "Barbara", "Craig"])
            #expect(try Int.fetchSet(db, sql: "SELECT id % 2 FROM player") == [0, 1])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") == 3)
            let names = try String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY id")
            #expect(try names.next() == "Arthur")

            let statement = try db.makeStatement(sql: "SELECT score FROM player WHERE id = ?")
            #expect(try Int.fetchOne(statement, arguments: [1]) == 750)
            #expect(try Int.fetchAll(statement, arguments: [2]) == [1000])
            #expect(try Int.fetchSet(statement, arguments: [2]) == [1000])
            #expect(try Int.fetchCursor(statement, arguments: [1]).next() == 750)

            // Types without the statement fast path go through DatabaseValue.
            let dates = try Date.fetchAll(db, sql: "SELECT '2020-01-01 00:00:00'")
            #expect(dates.first?.timeIntervalSince1970 == 1_577_836_800)
            #expect(throws: RowDecodingError.self) { try Date.fetchCursor(db, sql: "SELECT NULL").next() }
            #expect(try Date?.fetchCursor(db, sql: "SELECT NULL").next() == .some(nil))
            #expect(try UUID.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Decimal.fetchSet(db, sql: "SELECT '1.5' UNION ALL SELECT '1.5'") == [Decimal(string: "1.5")!])
        }
    }

    @Test("fetchOne is nil for no row and for NULL; Optional fetchOne tells them apart")
    func fetchOneSemantics() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE id = 3") == nil)
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE id = 42") == nil)
            let nullValue = try Int?.fetchOne(db, sql: "SELECT score FROM player WHERE id = 3")
            #expect(nullValue == .some(nil))
            let noRow = try Int?.fetchOne(db, sql: "SELECT score FROM player WHERE id = 42")
            #expect(noRow == .none)
            #expect(try Date.fetchOne(db, sql: "SELECT NULL") == nil)
        }
    }

    @Test("fetchAll of a non-optional type fails on NULL, naming the column")
    func nullInFetchAll() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { (db: Database) throws in
            let error = #expect(throws: RowDecodingError.self) {
                try Int.fetchAll(db, sql: "SELECT score FROM player ORDER BY id")
            }
            #expect(error?.description.contains("could not decode Int from database value NULL - column: \"score\"") == true)
            #expect(throws: RowDecodingError.self) {
                try Date.fetchAll(db, sql: "SELECT score FROM player WHERE score IS NULL")
            }
        }
    }

    @Test("cursors are lazy: a cursor stopped early leaves the database usable")
    func lazyCursor() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
            for i in 0..<1000 { try insert.execute(arguments: [i]) }
        }
        try dbQueue.inDatabase { (db: Database) throws in
            var stepped = 0
            db.trace { _ in stepped += 1 }
            let cursor = try Int.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a")
            #expect(try cursor.next() == 0)
            #expect(try cursor.next() == 1)
            // The statement runs once, whatever the number of rows fetched.
            #expect(stepped == 1)
            db.trace(nil)
        }
        // The cursor was released at the end of its block: writes are possible.
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM t") }
    }

    @Test("cursor helpers: map, filter, compactMap, reduce, contains, first, forEach, Array, Set")
    func cursorHelpers() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT x FROM c"
            #expect(try Array(Int.fetchCursor(db, sql: sql).map { $0 * 2 }.filter { $0 > 15 }) == [16, 18, 20])
            #expect(try Array(Int.fetchCursor(db, sql: sql).compactMap { $0 % 3 == 0 ? $0 : nil }) == [3, 6, 9])
            #expect(try Int.fetchCursor(db, sql: sql).reduce(0, +) == 55)
            #expect(try Int.fetchCursor(db, sql: sql).reduce(into: [Int]()) { $0.append($1) }.count == 10)
            #expect(try Int.fetchCursor(db, sql: sql).contains(7))
            #expect(try !Int.fetchCursor(db, sql: sql).contains(where: { $0 > 10 }))
            #expect(try Int.fetchCursor(db, sql: sql).first(where: { $0 > 4 }) == 5)
            #expect(try Set(Int.fetchCursor(db, sql: sql)).count == 10)
            var seen = 0
            try Int.fetchCursor(db, sql: sql).forEach { seen += $0 }
            #expect(seen == 55)
        }
    }

    @Test("errors while stepping are thrown and leave the statement reusable")
    func stepError() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { (db: Database) throws in
            // abs(INT64_MIN) overflows at run time, not at compile time.
            let sql = "SELECT abs(?)"
            expectDatabaseError(.SQLITE_ERROR) { try Int.fetchAll(db, sql: sql, arguments: [Int64.min]) }
            #expect(try Int.fetchOne(db, sql: sql, arguments: [-3]) == 3)
        }
    }

    @Test("a fetch on a closed connection throws")
    func closed() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.close()
        expectDatabaseError(.SQLITE_MISUSE) { try dbQueue.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT 1") } }
    }

    @Test("fetchOne from a cached statement gives what fetchOne from its SQL gives: values, NULL, no row, errors, adapters")
    func fetchOneFromStatementMatchesSQL() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v); INSERT INTO t VALUES (1, 42), (2, NULL), (3, 'x'), (4, 2.5)")
            let sql = "SELECT v, id FROM t WHERE id = ?"
            let statement = try db.cachedStatement(sql: sql)
            for id in 1...5 {
                let arguments: StatementArguments = [id]
                #expect(try Int.fetchOne(statement, arguments: arguments) == Int.fetchOne(db, sql: sql, arguments: arguments), "Int, id \(id)")
                #expect(try Int?.fetchOne(statement, arguments: arguments) == Int?.fetchOne(db, sql: sql, arguments: arguments), "Int?, id \(id)")
                #expect(try String.fetchOne(statement, arguments: arguments) == String.fetchOne(db, sql: sql, arguments: arguments), "String, id \(id)")
                let adapter = SuffixRowAdapter(fromIndex: 1)
                #expect(try Int.fetchOne(statement, arguments: arguments, adapter: adapter) == (id <= 4 ? id : nil), "adapter, id \(id)")
            }
            // The statement keeps its last arguments for a fetch without any.
            #expect(try Int.fetchOne(statement, arguments: [1]) == 42)
            #expect(try Int.fetchOne(statement) == 42)
            // A value that does not convert: the same error, naming the column and the SQL.
            let blob = try db.cachedStatement(sql: "SELECT x'00'")
            let fromStatement = #expect(throws: RowDecodingError.self) { try UUID.fetchOne(blob) }
            let fromSQL = #expect(throws: RowDecodingError.self) { try UUID.fetchOne(db, sql: "SELECT x'00'") }
            #expect(fromStatement.map(String.init(describing:)) == fromSQL.map(String.init(describing:)))
        }
    }
}
