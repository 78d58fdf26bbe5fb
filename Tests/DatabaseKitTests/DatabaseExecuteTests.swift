import DatabaseKit
import DatabaseKitSQLite
import Foundation
import Testing
import TestSupport

@Suite("Database.execute and connection state")
struct DatabaseExecuteTests {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
        }
        return dbQueue
    }

    @Test("several statements consume positional arguments in order")
    func multipleStatementsConsumeArguments() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO player (name, score) VALUES (?, ?);
                    INSERT INTO player (name) VALUES (?);
                    UPDATE player SET score = ? WHERE name = ?
                    """, arguments: ["Arthur", 750, "Barbara", 1000, "Barbara"])
        }
        let rows = try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id") }
        #expect(rows == [["name": "Arthur", "score": 750], ["name": "Barbara", "score": 1000]])
    }

    @Test("named arguments are shared by all statements")
    func namedArgumentsShared() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO player (name, score) VALUES (:name, :score);
                    INSERT INTO player (name, score) VALUES (:name || '2', :score + 1)
                    """, arguments: ["name": "Arthur", "score": 10])
        }
        let rows = try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id") }
        #expect(rows == [["name": "Arthur", "score": 10], ["name": "Arthur2", "score": 11]])
    }

    @Test("left-over positional arguments are an error naming the count")
    func leftoverArguments() throws {
        let dbQueue = try makeDatabase()
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur", "extra"])
            }
        }
        #expect(error?.message == "wrong number of statement arguments: 2")
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") } == 0)
    }

    @Test("missing arguments are an error, never NULL")
    func missingArguments() throws {
        let dbQueue = try makeDatabase()
        let positional = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur"])
            }
        }
        #expect(positional?.message?.contains("wrong number of statement arguments") == true)
        let named = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Arthur"])
            }
        }
        #expect(named?.message == "missing statement argument: score")
        let none = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES (?)") }
        }
        #expect(none?.sql == "INSERT INTO player (name) VALUES (?)")
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") } == 0)
    }

    @Test("unused named arguments are accepted, as in GRDB; a missing one is an error naming it")
    func unusedNamedArgument() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES (:name)", arguments: ["name": "Arthur", "scroe": 1])
        }
        #expect(try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") } == ["Arthur"])
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player (name) VALUES (:name)", arguments: ["nmae": "Arthur"])
            }
        }
        #expect(error?.message == "missing statement argument: name")
    }

    @Test("a failing statement reports SQLite's message and the statement")
    func errorDescription() throws {
        let dbQueue = DatabaseQueue()
        let error = expectDatabaseError(.SQLITE_ERROR) {
            try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM t") }
        }
        #expect(error?.description == "SQLite error 1: no such table: t - while executing `SELECT * FROM t`")
        #expect(error?.sql == "SELECT * FROM t")
    }

    @Test("the failing statement of several is the one reported")
    func failingStatementOfSeveral() throws {
        let dbQueue = try makeDatabase()
        let error = expectDatabaseError(.SQLITE_ERROR) {
            try dbQueue.write { db in
                try db.execute(
                    sql: "INSERT INTO player (name) VALUES ('a'); INSERT INTO nope VALUES (1); INSERT INTO player (name) VALUES ('b')")
            }
        }
        // As in GRDB, the SQL of a compilation error runs to the end; the
        // description shows it trimmed.
        #expect(error?.sql == " INSERT INTO nope VALUES (1); INSERT INTO player (name) VALUES ('b')")
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") } == 0)
    }

    @Test("catch DatabaseError.SQLITE_CONSTRAINT matches extended codes")
    func catchPattern() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'a')") }
        var caught = ""
        do {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'b')") }
        } catch DatabaseError.SQLITE_CONSTRAINT {
            caught = "constraint"
        } catch {
            caught = "other"
        }
        #expect(caught == "constraint")

        do {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'b')") }
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_CONSTRAINT)
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            #expect(ResultCode.SQLITE_CONSTRAINT ~= error.extendedResultCode)
            #expect(!(ResultCode.SQLITE_CONSTRAINT_UNIQUE ~= error.extendedResultCode))
        }
    }

    @Test("lastInsertedRowID, changesCount, totalChangesCount, isInsideTransaction")
    func connectionState() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.inDatabase { db in
            let total = db.totalChangesCount
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (7, 'a')")
            #expect(db.lastInsertedRowID == 7)
            #expect(db.changesCount == 1)
            try db.execute(sql: "INSERT INTO player (name) VALUES ('b'), ('c')")
            #expect(db.changesCount == 2)
            try db.execute(sql: "UPDATE player SET score = 1")
            #expect(db.changesCount == 3)
            #expect(db.totalChangesCount == total + 6)
            #expect(!db.isInsideTransaction)
            try db.beginTransaction()
            #expect(db.isInsideTransaction)
            try db.rollback()
            #expect(!db.isInsideTransaction)
        }
    }

    @Test("empty SQL and comments do nothing")
    func emptySQL() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let total = db.totalChangesCount
            let schemaVersion = try Int.fetchOne(db, sql: "PRAGMA schema_version")
            try db.execute(sql: "")
            try db.execute(sql: "  -- a comment\n ; ; ")
            #expect(db.totalChangesCount == total)
            #expect(try Int.fetchOne(db, sql: "PRAGMA schema_version") == schemaVersion)
            #expect(!db.isInsideTransaction)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") == ["t"])
        }
    }

    @Test("raw SQLite handles are exposed")
    func rawHandles() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            #expect(db.sqliteConnection != nil)
            let statement = try db.makeStatement(sql: "SELECT 1")
            #expect(Int(bitPattern: statement.sqliteStatement) != 0)
        }
    }

    @Test("texts with NUL characters and empty blobs are stored as given")
    func nulAndEmpty() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(s, b)")
            try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: ["a\u{0}b", Data()])
            let row = try Row.fetchOne(db, sql: "SELECT s, length(CAST(s AS BLOB)) AS n, typeof(b) AS bt, length(b) AS bn FROM t")!
            #expect(row["s"] as String == "a\u{0}b")
            #expect(row["n"] as Int == 3)
            #expect(row["bt"] as String == "blob")
            #expect(row["bn"] as Int == 0)
        }
    }
}

@Suite("Statement")
struct StatementTests {
    @Test("makeStatement compiles one statement, executes it with arguments")
    func makeStatement() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?)")
            #expect(!insert.isReadonly)
            #expect(insert.sql == "INSERT INTO t VALUES (?, ?)")
            try insert.execute(arguments: [1, "one"])
            try insert.execute(arguments: [2, "two"])
            let select = try db.makeStatement(sql: "SELECT a, b FROM t ORDER BY a")
            #expect(select.isReadonly)
            #expect(select.columnNames == ["a", "b"])
            #expect(select.columnCount == 2)
            #expect(try Row.fetchAll(select) == [["a": 1, "b": "one"], ["a": 2, "b": "two"]])
        }
    }

    @Test("new arguments restart a statement that was stepped through its raw handle, run to its end, or left by a cursor")
    func rebindsAStatementThatIsNotReset() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a INTEGER)")
            for a in 1...5 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [a]) }
            let positional = try db.makeStatement(sql: "SELECT a FROM t WHERE a >= ? ORDER BY a")
            let named = try db.makeStatement(sql: "SELECT a FROM t WHERE a >= :min ORDER BY a")
            #expect(try Int.fetchAll(positional, arguments: [1]) == [1, 2, 3, 4, 5])
            #expect(try Int.fetchAll(named, arguments: ["min": 2]) == [2, 3, 4, 5])

            // Stepped outside DatabaseKit, in the middle of its rows.
            #expect(sqlite3_step(positional.sqliteStatement) == SQLITE_ROW)
            #expect(sqlite3_step(named.sqliteStatement) == SQLITE_ROW)
            #expect(try Int.fetchAll(positional, arguments: [3]) == [3, 4, 5])
            #expect(try Int.fetchAll(named, arguments: ["min": 4]) == [4, 5])
            #expect(positional.arguments == [3])
            #expect(named.arguments == ["min": 4])

            // Stepped outside DatabaseKit to its end, without a reset.
            while sqlite3_step(positional.sqliteStatement) == SQLITE_ROW {}
            while sqlite3_step(named.sqliteStatement) == SQLITE_ROW {}
            #expect(try Int.fetchAll(positional, arguments: [5]) == [5])
            #expect(try Int.fetchAll(named, arguments: ["min": 1]) == [1, 2, 3, 4, 5])

            // A cursor dropped after its first row.
            do {
                let cursor = try Int.fetchCursor(named, arguments: ["min": 1])
                #expect(try cursor.next() == 1)
            }
            #expect(try Int.fetchAll(named, arguments: ["min": 3]) == [3, 4, 5])
            do {
                let cursor = try Int.fetchCursor(positional, arguments: [1])
                #expect(try cursor.next() == 1)
            }
            #expect(try Int.fetchAll(positional, arguments: [4]) == [4, 5])

            // Arguments bound to a statement stepped outside DatabaseKit
            // also run it from the start.
            #expect(sqlite3_step(positional.sqliteStatement) == SQLITE_ROW)
            try positional.setArguments([2])
            #expect(try Int.fetchAll(positional) == [2, 3, 4, 5])
        }
    }

    @Test("a statement executed again with its own arguments starts over after steps outside DatabaseKit")
    func reexecutesAStatementThatIsNotReset() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a INTEGER)")
            for a in 1...5 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [a]) }
            let select = try db.makeStatement(sql: "SELECT a FROM t WHERE a >= ? ORDER BY a")
            try select.setArguments([2])
            #expect(try Int.fetchAll(select) == [2, 3, 4, 5])
            #expect(try Int.fetchAll(select) == [2, 3, 4, 5])

            // Stepped outside DatabaseKit, in the middle of its rows.
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_ROW)
            #expect(try Int.fetchAll(select) == [2, 3, 4, 5])
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_ROW)
            #expect(try Int.fetchOne(select) == 2)
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_ROW)
            #expect(try Array(Int.fetchCursor(select)) == [2, 3, 4, 5])

            // Stepped outside DatabaseKit to its end, without a reset.
            while sqlite3_step(select.sqliteStatement) == SQLITE_ROW {}
            #expect(try Int.fetchAll(select) == [2, 3, 4, 5])

            // A cursor dropped after its first row.
            do {
                let cursor = try Int.fetchCursor(select)
                #expect(try cursor.next() == 2)
            }
            #expect(try Int.fetchAll(select) == [2, 3, 4, 5])

            // A write stepped to its end outside DatabaseKit runs again.
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
            try insert.setArguments([6])
            #expect(sqlite3_step(insert.sqliteStatement) == SQLITE_DONE)
            try insert.execute()
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t WHERE a = 6") == [6, 6])
        }
    }

    @Test("makeStatement refuses several statements and empty SQL")
    func makeStatementRefusesSeveral() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            let several = expectDatabaseError(.SQLITE_MISUSE) { try db.makeStatement(sql: "SELECT 1; SELECT 2") }
            #expect(several?.message?.hasPrefix("Multiple statements found.") == true)
            // A second statement that does not compile is still a second statement.
            expectDatabaseError(.SQLITE_MISUSE) { try db.makeStatement(sql: "SELECT 1; SELEC 2") }
            let empty = expectDatabaseError(.SQLITE_ERROR) { try db.makeStatement(sql: "  ") }
            #expect(empty?.message == "empty statement")
            // A trailing comment is fine.
            _ = try db.makeStatement(sql: "SELECT 1; -- done")
            expectDatabaseError(.SQLITE_ERROR) { try db.makeStatement(sql: "SELEC 1") }
            // A trailing semicolon is fine.
            _ = try db.makeStatement(sql: "SELECT 1;")
        }
    }

    @Test("setArguments validates and binds; execute() reuses them")
    func setArguments() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (:a)")
            try statement.setArguments(["a": 5])
            #expect(statement.arguments == ["a": 5])
            try statement.execute()
            try statement.execute()
            #expect(throws: DatabaseError.self) { try statement.setArguments([1, 2]) }
            #expect(throws: DatabaseError.self) { try statement.validateArguments(["b": 1]) }
            try statement.validateArguments([1])
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t") == [5, 5])
        }
    }

    @Test("cachedStatement returns the same statement for the same SQL")
    func cachedStatement() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            let a = try db.cachedStatement(sql: "SELECT ?")
            let b = try db.cachedStatement(sql: "SELECT ?")
            let c = try db.cachedStatement(sql: "SELECT ? + 1")
            #expect(a === b)
            #expect(a !== c)
            #expect(try Int.fetchOne(a, arguments: [3]) == 3)
        }
    }

    @Test("nested fetches of the same SQL do not disturb each other")
    func nestedSameSQL() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
            let sql = "SELECT a FROM t WHERE a >= ? ORDER BY a"
            var pairs: [[Int]] = []
            let outer = try Int.fetchCursor(db, sql: sql, arguments: [1])
            while let a = try outer.next() {
                let inner = try Int.fetchAll(db, sql: sql, arguments: [a])
                pairs.append([a] + inner)
            }
            #expect(pairs == [[1, 1, 2, 3], [2, 2, 3], [3, 3]])
            // Two cursors of the same SQL created before iterating keep their own arguments.
            let c1 = try Int.fetchCursor(db, sql: sql, arguments: [2])
            let c2 = try Int.fetchCursor(db, sql: sql, arguments: [3])
            #expect(try c1.next() == 2)
            #expect(try c2.next() == 3)
        }
    }

    @Test("the statement cache stays bounded")
    func boundedCache() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.inDatabase { db in
            for i in 0..<1000 {
                _ = try Int.fetchOne(db, sql: "SELECT \(i)")
            }
            var count: Int32 = 0
            var statement = sqlite3NextStatement(db.sqliteConnection!, nil)
            while let current = statement {
                count += 1
                statement = sqlite3NextStatement(db.sqliteConnection!, current)
            }
            #expect(count <= 300)
        }
    }
}
