import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The Cursor protocol and its extension methods, as GRDB documents them.
@Suite("Cursors")
struct CursorTests {
    /// A cursor over an array that counts its calls to next().
    final class CountingCursor<Element>: Cursor {
        private var elements: [Element]
        private(set) var nextCount = 0

        init(_ elements: [Element]) { self.elements = elements }

        func next() throws -> Element? {
            nextCount += 1
            return elements.isEmpty ? nil : elements.removeFirst()
        }
    }

    /// A cursor that refuses to be called from inside its own iteration, as
    /// a statement cursor stepping SQLite would: the library must not re-enter it.
    final class NonReentrantCursor: Cursor {
        struct Reentrance: Error {}
        private var value = 0
        private var isIterating = false

        func next() throws -> Int? {
            if isIterating { throw Reentrance() }
            value += 1
            return value <= 3 ? value : nil
        }

        func forEach(_ body: (Int) throws -> Void) throws {
            isIterating = true
            defer { isIterating = false }
            while value < 3 {
                value += 1
                try body(value)
            }
        }
    }

    struct Failure: Error {}

    @Test("transforming cursors: map, compactMap, filter, enumerated, prefix, drop, flatMap, joined")
    func transformations() throws {
        #expect(try Array(CountingCursor([1, 2, 3]).map { $0 * 2 }) == [2, 4, 6])
        #expect(try Array(CountingCursor(["1", "x", "3"]).compactMap { Int($0) }) == [1, 3])
        #expect(try Array(CountingCursor([1, 2, 3, 4]).filter { $0 % 2 == 0 }) == [2, 4])
        #expect(try Array(CountingCursor(["a", "b"]).enumerated().map { "\($0)\($1)" }) == ["0a", "1b"])
        #expect(try Array(CountingCursor([1, 2, 3]).prefix(2)) == [1, 2])
        #expect(try Array(CountingCursor([1, 2, 3, 1]).prefix(while: { $0 < 3 })) == [1, 2])
        #expect(try Array(CountingCursor([1, 2, 3]).dropFirst()) == [2, 3])
        #expect(try Array(CountingCursor([1, 2, 3]).dropFirst(2)) == [3])
        #expect(try Array(CountingCursor([1, 2, 3, 1]).drop(while: { $0 < 3 })) == [3, 1])
        #expect(try CountingCursor([1, 2, 3]).dropLast() == [1, 2])
        #expect(try CountingCursor([1, 2, 3]).suffix(2) == [2, 3])
        #expect(try Array(CountingCursor([1, 2]).flatMap { [$0, $0 * 10] }) == [1, 10, 2, 20])
        #expect(try Array(CountingCursor([1, 2]).flatMap { (n: Int) in CountingCursor([n, 0 - n]) }) == [1, -1, 2, -2])
        #expect(try Array(CountingCursor([[1], [2, 3]]).joined()) == [1, 2, 3])
        #expect(try Array(CountingCursor([CountingCursor([1]), CountingCursor([2])]).joined()) == [1, 2])
        #expect(try CountingCursor(["a", "b"]).joined(separator: ", ") == "a, b")
        #expect(try Array([1, 2].flatMap { CountingCursor([$0]) }) == [1, 2])
    }

    @Test("reducing cursors: contains, first(where:), reduce, max, min, isEmpty, forEach")
    func reductions() throws {
        #expect(try CountingCursor([1, 2, 3]).contains(2))
        #expect(try !CountingCursor([1, 2, 3]).contains(where: { $0 > 5 }))
        #expect(try CountingCursor([1, 2, 3]).first(where: { $0 > 1 }) == 2)
        #expect(try CountingCursor([1, 2, 3]).reduce(0, +) == 6)
        #expect(try CountingCursor([1, 2, 3]).reduce(into: [Int]()) { $0.insert($1, at: 0) } == [3, 2, 1])
        #expect(try CountingCursor([3, 1, 2]).max() == 3)
        #expect(try CountingCursor([3, 1, 2]).min() == 1)
        #expect(try CountingCursor(["bb", "a"]).max(by: { $0.count < $1.count }) == "bb")
        #expect(try CountingCursor([Int]()).isEmpty)
        #expect(try !CountingCursor([1]).isEmpty)
        var seen: [Int] = []
        try CountingCursor([1, 2]).forEach { seen.append($0) }
        #expect(seen == [1, 2])
        // An error thrown by the body stops the iteration and is rethrown.
        let cursor = CountingCursor([1, 2, 3])
        #expect(throws: Failure.self) { try cursor.forEach { if $0 == 2 { throw Failure() } } }
        #expect(try cursor.next() == 3)
    }

    @Test("collections from cursors: Array, Set, Dictionary grouping and unique keys")
    func collections() throws {
        #expect(try Array(CountingCursor([1, 2]), minimumCapacity: 10) == [1, 2])
        #expect(try Set(CountingCursor([1, 2, 2])) == [1, 2])
        #expect(try Set([1]).union(CountingCursor([2])) == [1, 2])
        #expect(try Set([1, 2]).intersection(CountingCursor([2, 3])) == [2])
        #expect(try Dictionary(grouping: CountingCursor(["apple", "avocado", "banana"]), by: { $0.first! }) == ["a": ["apple", "avocado"], "b": ["banana"]])
        #expect(try Dictionary(uniqueKeysWithValues: CountingCursor([("a", 1), ("b", 2)])) == ["a": 1, "b": 2])
        // Duplicate keys are an error, not a crash.
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try Dictionary(uniqueKeysWithValues: CountingCursor([("a", 1), ("a", 2)]))
        }
        #expect(error?.message?.contains("Duplicate") == true || error?.message?.contains("duplicate") == true)
    }

    @Test("Array(cursor) and forEach go through the cursor's forEach, never re-entering next()")
    func nonReentrantCursor() throws {
        #expect(try Array(NonReentrantCursor()) == [1, 2, 3])
        #expect(try Set(NonReentrantCursor()) == [1, 2, 3])
        var seen: [Int] = []
        try NonReentrantCursor().forEach { seen.append($0) }
        #expect(seen == [1, 2, 3])
        #expect(try NonReentrantCursor().reduce(0, +) == 6)
        #expect(try NonReentrantCursor().map { $0 * 2 }.reduce(0, +) == 12)
    }

    @Test("a cursor is done after nil: next() is not called again by Array")
    func exhaustion() throws {
        let cursor = CountingCursor([1, 2])
        #expect(try Array(cursor) == [1, 2])
        #expect(cursor.nextCount == 3)
        #expect(try cursor.next() == nil)
    }

    @Test("AnyCursor erases a cursor, or wraps a closure")
    func anyCursor() throws {
        let erased: AnyCursor<Int> = AnyCursor(CountingCursor([1, 2]))
        #expect(try Array(erased) == [1, 2])
        var count = 0
        let counter = AnyCursor<Int> {
            count += 1
            return count <= 2 ? count : nil
        }
        #expect(try Array(counter) == [1, 2])
        let throwing = AnyCursor<Int> { throw Failure() }
        #expect(throws: Failure.self) { try throwing.next() }
    }

    @Test("database cursors: sql, arguments, columns, region, and the cursor methods on rows", arguments: WriterKind.allCases)
    func databaseCursors(kind: WriterKind) throws {
        let directory = TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE t (a INT, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')")
        }
        try writer.read { (db: Database) throws in
            let rows = try Row.fetchCursor(db, sql: "SELECT a, b FROM t WHERE a >= ? ORDER BY a;  ", arguments: [2])
            #expect(rows.sql == "SELECT a, b FROM t WHERE a >= ? ORDER BY a")
            #expect(rows.arguments == [2])
            #expect(rows.columnNames == ["a", "b"])
            #expect(rows.columnCount == 2)
            #expect(rows.databaseRegion.description == "t(a,b)")
            #expect(try rows.map { $0["b"] as String }.joined(separator: "") == "yz")
            let ints = try Int.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a")
            #expect(try ints.filter { $0 != 2 }.reduce(0, +) == 4)
            let strings = try String.fetchCursor(db, sql: "SELECT b FROM t ORDER BY a")
            #expect(try Array(strings.enumerated().map { "\($0)\($1)" }) == ["0x", "1y", "2z"])
            let values = try DatabaseValue.fetchCursor(db, sql: "SELECT NULL UNION ALL SELECT 1")
            #expect(try Array(values) == [.null, 1.databaseValue])
            let statements = try db.allStatements(sql: "SELECT 1; SELECT 2")
            #expect(try statements.map { try Int.fetchOne($0) }.reduce(0) { $0 + ($1 ?? 0) } == 3)
        }
    }
}
