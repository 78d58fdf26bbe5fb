import DatabaseKit
import Dispatch
import Foundation
import Testing

/// The spare buffer of argument slots: a statement leaves the buffer of its
/// previous arguments to the next argument literal. Arguments that someone
/// kept must never change, each execution must bind exactly its own values,
/// and threads must never share a buffer they write.
@Suite("Argument literals: the spare buffer of slots")
struct ArgumentSlotsReuseTests {
    @Test("arguments kept by the caller and by the statement stay as they were while literals reuse buffers")
    func keptArgumentsStayIntact() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?)")
            let kept: StatementArguments = [1, 2, 3]
            try insert.execute(arguments: kept)
            try insert.execute(arguments: kept)
            let seenByStatement = insert.arguments
            // Compared with arrays of values: a literal on the right of `==`
            // would take the spare buffer itself.
            let oneTwoThree = [1, 2, 3].map(\.databaseValue)
            for row in 0..<50 {
                try insert.execute(arguments: [row, row * 2, row * 3])
                #expect(insert.arguments.values == [row, row * 2, row * 3].map(\.databaseValue))
                #expect(kept.values == oneTwoThree)
            }
            #expect(kept.values == oneTwoThree)
            #expect(seenByStatement.values == oneTwoThree)
            // The kept arguments, executed again after the literals, bind
            // their own values.
            try insert.execute(arguments: kept)
            let rows = try Row.fetchAll(db, sql: "SELECT a, b, c FROM t ORDER BY rowid")
            #expect(rows.count == 53)
            #expect(rows[0] == ["a": 1, "b": 2, "c": 3])
            #expect(rows[1] == ["a": 1, "b": 2, "c": 3])
            for row in 0..<50 {
                #expect(rows[row + 2] == ["a": row, "b": row * 2, "c": row * 3])
            }
            #expect(rows[52] == ["a": 1, "b": 2, "c": 3])
        }
    }

    @Test("literals of varying lengths and kinds, one statement after another, each bind their own values")
    func varyingLiterals() throws {
        let dbQueue = DatabaseQueue()
        try dbQueue.read { db in
            let blob = Data([0, 1, 2])
            for round in 0..<20 {
                #expect(try Int.fetchOne(db, sql: "SELECT ?", arguments: [round]) == round)
                let three = try Row.fetchOne(db, sql: "SELECT ?, ?, ?", arguments: [round, "text \(round)", nil])
                #expect(three?.databaseValues == [round.databaseValue, "text \(round)".databaseValue, .null])
                let mixed = try Row.fetchOne(db, sql: "SELECT ?, ?, ?, ?", arguments: [blob, 2.5, "a", round])
                #expect(mixed?.databaseValues == [blob.databaseValue, 2.5.databaseValue, "a".databaseValue, round.databaseValue])
                // More values than the spare buffer keeps.
                let many = try Row.fetchOne(
                    db, sql: "SELECT " + Array(repeating: "?", count: 100).joined(separator: ", "),
                    arguments: StatementArguments(Array(0..<100).map { $0 + round }))
                #expect(many?.databaseValues == Array(0..<100).map { ($0 + round).databaseValue })
                let hundred: StatementArguments = [
                    round, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                    29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,
                    56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70,
                ]
                let wide = try Row.fetchOne(db, sql: "SELECT " + Array(repeating: "?", count: 71).joined(separator: ", "), arguments: hundred)
                #expect(wide?.databaseValues == [round.databaseValue] + (1...70).map(\.databaseValue))
                #expect(try Int.fetchOne(db, sql: "SELECT 42", arguments: []) == 42)
            }
        }
    }

    /// Reads the value of another literal while it is converted: the
    /// literal being converted holds its buffer, the nested one gets another.
    struct Nesting: DatabaseValueConvertible {
        var value: Int
        var databaseValue: DatabaseValue {
            let nested: StatementArguments = [value * 10, value * 100]
            return (nested.values[0].storage, nested.values[1].storage) == (.int64(Int64(value * 10)), .int64(Int64(value * 100)))
                ? value.databaseValue : .null
        }
        static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Nesting? { nil }
    }

    @Test("a value that builds a literal while it is converted leaves the outer literal intact")
    func nestedLiterals() throws {
        let arguments: StatementArguments = [1, Nesting(value: 2), 3, Nesting(value: 4)]
        #expect(arguments == [1, 2, 3, 4])
        let dbQueue = DatabaseQueue()
        let row = try dbQueue.read { db in try Row.fetchOne(db, sql: "SELECT ?, ?, ?, ?", arguments: [Nesting(value: 5), 6, Nesting(value: 7), 8]) }
        #expect(row?.databaseValues == [5, 6, 7, 8].map(\.databaseValue))
    }

    @Test("threads executing literals at once each insert their own values")
    func concurrentLiterals() throws {
        let directory = try FileManager.default.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: URL(fileURLWithPath: NSTemporaryDirectory()), create: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let threadCount = 6
        let rowCount = 300
        let queues = try (0..<threadCount).map { try DatabaseQueue(path: directory.appendingPathComponent("db\($0).sqlite").path) }
        DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
            try? queues[thread].write { db in
                try db.execute(sql: "CREATE TABLE t (a, b, c, d)")
                let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?)")
                for row in 0..<rowCount {
                    try insert.execute(arguments: [thread, row, "t\(thread)r\(row)", row % 3 == 0 ? nil : Double(row) / 2])
                    #expect(try Int.fetchOne(db, sql: "SELECT ? + ?", arguments: [thread, row]) == thread + row)
                }
            }
        }
        for (thread, queue) in queues.enumerated() {
            let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT a, b, c, d FROM t ORDER BY rowid") }
            #expect(rows.count == rowCount)
            for (row, fetched) in rows.enumerated() {
                let expected: [DatabaseValue] = [
                    thread.databaseValue, row.databaseValue, "t\(thread)r\(row)".databaseValue,
                    row % 3 == 0 ? .null : (Double(row) / 2).databaseValue,
                ]
                #expect(fetched.databaseValues == expected)
            }
        }
    }
}
