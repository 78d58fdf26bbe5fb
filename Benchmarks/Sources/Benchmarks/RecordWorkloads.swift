import BenchSQLite
import DatabaseKit
import GRDB

// The record workloads: `insert(db)` with the id set by didInsert, and
// `fetchOne(db, key:)`, for Codable and hand-written records, against the C
// API doing the same work.

extension RawWorkloads {
    static let createPlayer =
        "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, bonus REAL NOT NULL)"

    static func insertRecords(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("raw-records")
        defer { Fixtures.removeDatabase(path) }
        let db = try RawConnection(path: path)
        try db.execute(createPlayer)
        var players = playersToInsert()
        let (_, seconds) = try measuredRegion {
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO player (id, name, score, bonus) VALUES (?, ?, ?, ?)")
            for index in players.indices {
                try insert.bindNull(at: 1)
                try insert.bind(players[index].name, at: 2)
                try insert.bind(Int64(players[index].score), at: 3)
                try insert.bind(players[index].bonus, at: 4)
                try insert.run()
                players[index].id = sqlite3_last_insert_rowid(db.handle)
            }
            try db.execute("COMMIT")
        }
        return Outcome(seconds: seconds, checksum: players.reduce(0) { $0 + $1.id! + Int64($1.score) })
    }

    static func fetchRecords(_ fixtures: Fixtures) throws -> Outcome {
        let db = try RawConnection(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion { () throws -> Int64 in
            let query = try db.prepare("SELECT * FROM player WHERE id = ?")
            let s = query.handle
            var sum: Int64 = 0
            for id in Fixtures.pointIds {
                try query.bind(Int64(id), at: 1)
                guard try query.step() else { throw BenchmarkError(description: "no row") }
                let player = Player(
                    id: sqlite3_column_int64(s, 0), name: String(cString: sqlite3_column_text(s, 1)),
                    score: Int(sqlite3_column_int64(s, 2)), bonus: sqlite3_column_double(s, 3))
                sum &+= Int64(player.score)
                try query.reset()
            }
            return sum
        }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

extension DatabaseKitWorkloads {
    static func insertRecords<Record: DatabaseKit.MutablePersistableRecord>(
        _ records: [Record], id: (Record) -> Int64?, score: (Record) -> Int, _ fixtures: Fixtures
    ) throws -> Outcome {
        let path = fixtures.scratchPath("dk-records")
        defer { Fixtures.removeDatabase(path) }
        let dbQueue = try DatabaseKit.DatabaseQueue(path: path)
        try dbQueue.write { db in try db.execute(sql: RawWorkloads.createPlayer) }
        var records = records
        let (_, seconds) = try measuredRegion {
            try dbQueue.write { db in
                for index in records.indices { try records[index].insert(db) }
            }
        }
        return Outcome(seconds: seconds, checksum: records.reduce(0) { $0 + id($1)! + Int64(score($1)) })
    }

    static func fetchRecords<Record: DatabaseKit.FetchableRecord & DatabaseKit.TableRecord>(
        _ type: Record.Type, score: (Record) -> Int, _ fixtures: Fixtures
    ) throws -> Outcome {
        let dbQueue = try DatabaseKit.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in Fixtures.pointIds { sum &+= Int64(score(try Record.fetchOne(db, key: id)!)) }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

extension GRDBWorkloads {
    static func insertRecords<Record: GRDB.MutablePersistableRecord>(
        _ records: [Record], id: (Record) -> Int64?, score: (Record) -> Int, _ fixtures: Fixtures
    ) throws -> Outcome {
        let path = fixtures.scratchPath("grdb-records")
        defer { Fixtures.removeDatabase(path) }
        let dbQueue = try GRDB.DatabaseQueue(path: path)
        try dbQueue.write { db in try db.execute(sql: RawWorkloads.createPlayer) }
        var records = records
        let (_, seconds) = try measuredRegion {
            try dbQueue.write { db in
                for index in records.indices { try records[index].insert(db) }
            }
        }
        return Outcome(seconds: seconds, checksum: records.reduce(0) { $0 + id($1)! + Int64(score($1)) })
    }

    static func fetchRecords<Record: GRDB.FetchableRecord & GRDB.TableRecord>(
        _ type: Record.Type, score: (Record) -> Int, _ fixtures: Fixtures
    ) throws -> Outcome {
        let dbQueue = try GRDB.DatabaseQueue(path: fixtures.playerPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in Fixtures.pointIds { sum &+= Int64(score(try Record.fetchOne(db, key: id)!)) }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }
}

/// The record workloads, appended to the report after the others.
let recordWorkloads: [Workload] = [
    Workload(
        id: "record-insert-codable", title: "11. insert 50,000 Codable records, insert(db), id set by didInsert",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.recordInsertChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.insertRecords(fixtures)
            case .databaseKit:
                return try DatabaseKitWorkloads.insertRecords(codablePlayersToInsert(), id: \.id, score: \.score, fixtures)
            case .grdb:
                return try GRDBWorkloads.insertRecords(grdbCodablePlayersToInsert(), id: \.id, score: \.score, fixtures)
            case .sqliteNIO: return nil  // no record layer
            }
        }),
    Workload(
        id: "record-insert-manual", title: "12. insert 50,000 records with a hand-written encode(to:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.recordInsertChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.insertRecords(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.insertRecords(playersToInsert(), id: \.id, score: \.score, fixtures)
            case .grdb: return try GRDBWorkloads.insertRecords(grdbPlayersToInsert(), id: \.id, score: \.score, fixtures)
            case .sqliteNIO: return nil  // no record layer
            }
        }),
    Workload(
        id: "record-fetch-codable", title: "13. 20,000 Codable records by primary key, fetchOne(db, key:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetchRecords(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetchRecords(CodablePlayer.self, score: \.score, fixtures)
            case .grdb: return try GRDBWorkloads.fetchRecords(GRDBCodablePlayer.self, score: \.score, fixtures)
            case .sqliteNIO: return nil  // no record layer
            }
        }),
    Workload(
        id: "record-fetch-manual", title: "14. 20,000 records with a hand-written init(row:) by primary key, fetchOne(db, key:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetchRecords(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetchRecords(Player.self, score: \.score, fixtures)
            case .grdb: return try GRDBWorkloads.fetchRecords(GRDBPlayer.self, score: \.score, fixtures)
            case .sqliteNIO: return nil  // no record layer
            }
        }),
]
