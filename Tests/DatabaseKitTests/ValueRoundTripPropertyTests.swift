import DatabaseKit
import Foundation
import PropertyBased
import Testing

/// Every value round-trips exactly through binding and fetching, and
/// through `execute(literal:)`: properties over random inputs, with the
/// edge cases SQLite defines (NaN becomes NULL; `-0.0` is kept).
@Suite("Value round-trips (property-based)")
struct ValueRoundTripPropertyTests {
    /// A connection with a table whose column has no type affinity, so that
    /// SQLite stores every value as given.
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE v(x)") }
        return dbQueue
    }

    /// Stores `value` by binding and by literal interpolation, and fetches both back.
    private func roundTrip<T: DatabaseValueConvertible & StatementBinding & Sendable>(
        _ value: T, in dbQueue: DatabaseQueue
    ) throws -> (bound: T?, literal: T?) {
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM v")
            try db.execute(sql: "INSERT INTO v VALUES (?)", arguments: [value])
            let bound = try T.fetchOne(db, sql: "SELECT x FROM v")
            try db.execute(sql: "DELETE FROM v")
            try db.execute(literal: "INSERT INTO v VALUES (\(value))")
            let literal = try T.fetchOne(db, sql: "SELECT x FROM v")
            return (bound, literal)
        }
    }

    @Test("every Int64")
    func int64() async throws {
        let dbQueue = try makeQueue()
        await propertyCheck(count: 500, input: Gen.int64()) { value in
            let (bound, literal) = try roundTrip(value, in: dbQueue)
            #expect(bound == value)
            #expect(literal == value)
        }
        for edge in [Int64.min, -1, 0, 1, Int64.max] {
            #expect(try roundTrip(edge, in: dbQueue) == (edge, edge))
        }
    }

    @Test("every Double bit pattern: signed zero and infinities exact, NaN stored as NULL")
    func double() async throws {
        let dbQueue = try makeQueue()
        await propertyCheck(count: 500, input: Gen.uint64().map { Double(bitPattern: $0) }) { value in
            let (bound, literal) = try roundTrip(value, in: dbQueue)
            if value.isNaN {
                // SQLite turns NaN into NULL (sqlite3_bind_double documents it).
                #expect(bound == nil)
                #expect(literal == nil)
            } else {
                #expect(bound?.bitPattern == value.bitPattern)
                #expect(literal?.bitPattern == value.bitPattern)
            }
        }
        for edge in [0.0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .ulpOfOne] {
            let (bound, literal) = try roundTrip(edge, in: dbQueue)
            #expect(bound?.bitPattern == edge.bitPattern, "\(edge)")
            #expect(literal?.bitPattern == edge.bitPattern, "\(edge)")
        }
    }

    @Test("arbitrary Unicode strings, NUL characters included")
    func strings() async throws {
        let dbQueue = try makeQueue()
        // Every scalar value: the surrogate range D800-DFFF is skipped (no Unicode scalar lives there).
        let scalars = Gen<UInt32>.value(in: 0...(0x10FFFF - 0x800)).map { Unicode.Scalar($0 < 0xD800 ? $0 : $0 + 0x800)! }
        await propertyCheck(count: 300, input: scalars.array(of: 0...40).map { String(String.UnicodeScalarView($0)) }) { value in
            let (bound, literal) = try roundTrip(value, in: dbQueue)
            #expect(bound == value)
            #expect(literal == value)
            #expect(Array(bound?.utf8 ?? "".utf8) == Array(value.utf8))
        }
        for edge in ["", "\u{0}", "a\u{0}b", "\u{0}\u{0}", "é", "👩‍👩‍👧", "\u{FFFD}", "'; DROP TABLE v; --"] {
            #expect(try roundTrip(edge, in: dbQueue) == (edge, edge), "\(edge.debugDescription)")
        }
    }

    @Test("invalid UTF-8 in a TEXT value reads as replacement characters, never a crash")
    func invalidUTF8() throws {
        let dbQueue = try makeQueue()
        // Lone surrogates (ED A0 80) and truncated sequences can only arrive as bytes cast to TEXT.
        let text = try dbQueue.read { db in try String.fetchOne(db, sql: "SELECT CAST(x'61EDA080FF62' AS TEXT)") }
        // Each invalid byte becomes U+FFFD, as Swift's own UTF-8 decoding does.
        #expect(text == "a\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}b")
    }

    @Test("arbitrary blobs, the empty one included (stored as an empty blob, not NULL)")
    func blobs() async throws {
        let dbQueue = try makeQueue()
        await propertyCheck(count: 300, input: Gen<UInt8>.value(in: 0...255).array(of: 0...300).map { Data($0) }) { value in
            let (bound, literal) = try roundTrip(value, in: dbQueue)
            #expect(bound == value)
            #expect(literal == value)
        }
        try await dbQueue.write { db in
            try db.execute(sql: "DELETE FROM v")
            try db.execute(sql: "INSERT INTO v VALUES (?)", arguments: [Data()])
            #expect(try String.fetchOne(db, sql: "SELECT typeof(x) FROM v") == "blob")
        }
    }

    @Test("dates round-trip to the millisecond (GRDB's UTC text format)")
    func dates() async throws {
        let dbQueue = try makeQueue()
        let milliseconds = Gen.int64(in: -62_135_596_800_000...253_402_300_799_000)  // years 1 to 9999
        await propertyCheck(count: 300, input: milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }) { value in
            let (bound, literal) = try roundTrip(value, in: dbQueue)
            let expected = (value.timeIntervalSince1970 * 1000).rounded()
            #expect(bound.map { ($0.timeIntervalSince1970 * 1000).rounded() } == expected)
            #expect(literal.map { ($0.timeIntervalSince1970 * 1000).rounded() } == expected)
        }
    }
}
