import BenchSQLite
import DatabaseKit
import Dispatch
import Foundation
import GRDB
import Synchronization

// The query interface and observation workloads: requests built with
// filter/Column against the hand-written SQL of the raw C API, and writes
// beside a running ValueObservation.

/// A player identified by a non-optional id, for `filter(id:)`.
struct IdentifiedPlayer: Sendable, Identifiable, DatabaseKit.FetchableRecord, DatabaseKit.TableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var score: Int
    var bonus: Double

    init(row: DatabaseKit.Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        bonus = row["bonus"]
    }
}

/// The same, for GRDB.
struct GRDBIdentifiedPlayer: Sendable, Identifiable, GRDB.FetchableRecord, GRDB.TableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var score: Int
    var bonus: Double

    init(row: GRDB.Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        bonus = row["bonus"]
    }
}

extension Fixtures {
    /// The players of `qi-filter-all`: score above this.
    static let filterScore = 15_000
    static let filterRuns = 40

    /// The sum of the scores `qi-filter-all` fetches.
    static var filterChecksum: Int64 {
        let ids = (1...pointRowCount).filter { $0 * 3 > filterScore }
        return Int64(filterRuns) * ids.reduce(0) { $0 + Int64($1 * 3) }
    }
}

extension RawWorkloads {
    static func filterAll(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            var sum: Int64 = 0
            for _ in 0..<Fixtures.filterRuns {
                let query = try db.prepare("SELECT * FROM player WHERE score > ?")
                let s = query.handle
                try query.bind(Int64(Fixtures.filterScore), at: 1)
                var players: [Player] = []
                while try query.step() {
                    players.append(
                        Player(
                            id: sqlite3_column_int64(s, 0), name: String(cString: sqlite3_column_text(s, 1)),
                            score: Int(sqlite3_column_int64(s, 2)), bonus: sqlite3_column_double(s, 3)))
                }
                sum &+= players.reduce(0) { $0 + Int64($1.score) }
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// The transactions of `smallTransactions`, for the observation
    /// workloads (an observation costs nothing in C).
    static func observedTransactions(_ fixtures: Fixtures) throws -> Outcome { try smallTransactions(fixtures) }
}

extension DatabaseKitWorkloads {
    static func fetchByID(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseKit.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in Fixtures.pointIds { sum &+= Int64(try IdentifiedPlayer.filter(id: Int64(id)).fetchOne(db)!.score) }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func filterAll(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseKit.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.filterRuns {
                    let players = try Player.filter(DatabaseKit.Column("score") > Fixtures.filterScore).fetchAll(db)
                    sum &+= players.reduce(0) { $0 + Int64($1.score) }
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// Transactions into `t` while a ValueObservation tracks `observed`
    /// (`t` itself, or another table).
    static func observedTransactions(tracking observed: String, _ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("dk-observed")
        defer { Fixtures.removeDatabase(path) }
        var config = DatabaseKit.Configuration()
        config.journalMode = .wal
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let dbQueue = try DatabaseKit.DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); CREATE TABLE other (v INTEGER)")
        }
        let seen = Atomic(-1)
        let observation = DatabaseKit.ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(observed)") ?? 0 }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: DispatchQueue(label: "observer")), onError: { _ in },
            onChange: { seen.store($0, ordering: .releasing) })
        defer { cancellable.cancel() }
        while seen.load(ordering: .acquiring) < 0 { usleep(100) }
        let (_, seconds) = try measuredRegion {
            for i in 0..<Fixtures.transactionCount {
                try dbQueue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [i]) }
            }
            // The last value is part of the cost.
            if observed == "t" { while seen.load(ordering: .acquiring) < Fixtures.transactionCount { usleep(50) } }
        }
        let sum = try dbQueue.read { db in try Int64.fetchOne(db, sql: "SELECT SUM(v) FROM t")! }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

extension GRDBWorkloads {
    static func fetchByID(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try GRDB.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in Fixtures.pointIds { sum &+= Int64(try GRDBIdentifiedPlayer.filter(id: Int64(id)).fetchOne(db)!.score) }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func filterAll(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try GRDB.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for _ in 0..<Fixtures.filterRuns {
                    let players = try GRDBPlayer.filter(GRDB.Column("score") > Fixtures.filterScore).fetchAll(db)
                    sum &+= players.reduce(0) { $0 + Int64($1.score) }
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func observedTransactions(tracking observed: String, _ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("grdb-observed")
        defer { Fixtures.removeDatabase(path) }
        var config = GRDB.Configuration()
        config.journalMode = .wal
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let dbQueue = try GRDB.DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); CREATE TABLE other (v INTEGER)")
        }
        let seen = Atomic(-1)
        let observation = GRDB.ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(observed)") ?? 0 }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: DispatchQueue(label: "observer")), onError: { _ in },
            onChange: { seen.store($0, ordering: .releasing) })
        defer { cancellable.cancel() }
        while seen.load(ordering: .acquiring) < 0 { usleep(100) }
        let (_, seconds) = try measuredRegion {
            for i in 0..<Fixtures.transactionCount {
                try dbQueue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [i]) }
            }
            if observed == "t" { while seen.load(ordering: .acquiring) < Fixtures.transactionCount { usleep(50) } }
        }
        let sum = try dbQueue.read { db in try Int64.fetchOne(db, sql: "SELECT SUM(v) FROM t")! }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

/// The query interface and observation workloads, appended to the report.
let queryInterfaceWorkloads: [Workload] = [
    Workload(
        id: "qi-fetch-id", title: "15. 20,000 records by primary key, Player.filter(id:).fetchOne(db)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetchRecords(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetchByID(fixtures)
            case .grdb: return try GRDBWorkloads.fetchByID(fixtures)
            case .sqliteNIO: return nil  // no query interface
            }
        }),
    Workload(
        id: "qi-filter-all", title: "16. 40 x Player.filter(Column(\"score\") > 15000).fetchAll(db), 5,000 records each",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.filterChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.filterAll(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.filterAll(fixtures)
            case .grdb: return try GRDBWorkloads.filterAll(fixtures)
            case .sqliteNIO: return nil  // no query interface
            }
        }),
    Workload(
        id: "observed-elsewhere", title: "17. 5,000 write transactions while a ValueObservation tracks another table",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.transactionChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.observedTransactions(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.observedTransactions(tracking: "other", fixtures)
            case .grdb: return try GRDBWorkloads.observedTransactions(tracking: "other", fixtures)
            case .sqliteNIO: return nil  // no observation
            }
        }),
    Workload(
        id: "observed-writes", title: "18. 5,000 write transactions into the table a ValueObservation of COUNT(*) tracks",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.transactionChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.observedTransactions(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.observedTransactions(tracking: "t", fixtures)
            case .grdb: return try GRDBWorkloads.observedTransactions(tracking: "t", fixtures)
            case .sqliteNIO: return nil  // no observation
            }
        }),
]
