import DatabaseKit
import Foundation

// DatabaseKit through its public API, as a user writes it.

extension Item: DatabaseKit.FetchableRecord {
    init(row: DatabaseKit.Row) {
        i0 = row["i0"]
        i1 = row["i1"]
        i2 = row["i2"]
        i3 = row["i3"]
        i4 = row["i4"]
        i5 = row["i5"]
        i6 = row["i6"]
        i7 = row["i7"]
        i8 = row["i8"]
        i9 = row["i9"]
    }
}

extension DecodableItem: DatabaseKit.FetchableRecord {}

enum DatabaseKitWorkloads {
    static func insert(named: Bool, _ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("dk-insert")
        defer { Fixtures.removeDatabase(path) }
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.write { db in try db.execute(sql: RawWorkloads.createItem) }
        let (_, seconds) = try measuredRegion {
            try dbQueue.write { db in
                if named {
                    let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)")
                    for row in 0..<Fixtures.insertRowCount {
                        let base = row * 10
                        try statement.execute(arguments: [
                            "i0": base, "i1": base + 1, "i2": base + 2, "i3": base + 3, "i4": base + 4,
                            "i5": base + 5, "i6": base + 6, "i7": base + 7, "i8": base + 8, "i9": base + 9,
                        ])
                    }
                } else {
                    let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    for row in 0..<Fixtures.insertRowCount {
                        let base = row * 10
                        try statement.execute(arguments: [
                            base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9,
                        ])
                    }
                }
            }
        }
        let sum = try dbQueue.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9) FROM item")!
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func fetch(byName: Bool, _ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.fetchPath)
        let (sum, seconds) = try measuredRegion {
            try dbQueue.read { db -> Int64 in
                var sum: Int64 = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM item")
                if byName {
                    while let row = try rows.next() {
                        let a: Int = row["i0"]
                        let b: Int = row["i1"]
                        let c: Int = row["i2"]
                        let d: Int = row["i3"]
                        let e: Int = row["i4"]
                        let f: Int = row["i5"]
                        let g: Int = row["i6"]
                        let h: Int = row["i7"]
                        let i: Int = row["i8"]
                        let j: Int = row["i9"]
                        sum &+= Int64(a + b + c + d + e + f + g + h + i + j)
                    }
                } else {
                    while let row = try rows.next() {
                        let a: Int = row[0]
                        let b: Int = row[1]
                        let c: Int = row[2]
                        let d: Int = row[3]
                        let e: Int = row[4]
                        let f: Int = row[5]
                        let g: Int = row[6]
                        let h: Int = row[7]
                        let i: Int = row[8]
                        let j: Int = row[9]
                        sum &+= Int64(a + b + c + d + e + f + g + h + i + j)
                    }
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func fetchStructs(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.fetchPath)
        let (items, seconds) = try measuredRegion {
            try dbQueue.read { db in try Item.fetchAll(db, sql: "SELECT * FROM item") }
        }
        return Outcome(seconds: seconds, checksum: Item.checksum(items))
    }

    static func fetchDecodables(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.fetchPath)
        let (items, seconds) = try measuredRegion {
            try dbQueue.read { db in try DecodableItem.fetchAll(db, sql: "SELECT * FROM item") }
        }
        return Outcome(seconds: seconds, checksum: DecodableItem.checksum(items))
    }

    static func smallTransactions(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("dk-transactions")
        defer { Fixtures.removeDatabase(path) }
        var config = Configuration()
        config.journalMode = .wal
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)") }
        let (_, seconds) = try measuredRegion {
            for i in 0..<Fixtures.transactionCount {
                try dbQueue.write { db in
                    try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [i])
                }
            }
        }
        let sum = try dbQueue.read { db in try Int64.fetchOne(db, sql: "SELECT SUM(v) FROM t")! }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// The implicit path of `insert(named: false)`: the SQL each time,
    /// which the connection's statement cache resolves.
    static func insertThroughSQL(_ fixtures: Fixtures) throws -> Outcome {
        let path = fixtures.scratchPath("dk-insert-sql")
        defer { Fixtures.removeDatabase(path) }
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.write { db in try db.execute(sql: RawWorkloads.createItem) }
        let (_, seconds) = try measuredRegion {
            try dbQueue.write { db in
                for row in 0..<Fixtures.insertRowCount {
                    let base = row * 10
                    try db.execute(
                        sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        arguments: [base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9])
                }
            }
        }
        let sum = try dbQueue.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9) FROM item")!
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    /// The explicit path of `pointQueries`, as GRDB's documentation advises
    /// for hot statements: the cached statement, then a fetch from it.
    static func pointQueriesThroughStatement(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.pointPath)
        let ids = Fixtures.pointIds
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in ids {
                    let statement = try db.cachedStatement(sql: "SELECT v FROM point WHERE id = ?")
                    sum &+= Int64(try Int.fetchOne(statement, arguments: [id])!)
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func pointQueries(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.pointPath)
        let ids = Fixtures.pointIds
        let (sum, seconds) = try measuredRegion {
            try dbQueue.inDatabase { db -> Int64 in
                var sum: Int64 = 0
                for id in ids {
                    sum &+= Int64(try Int.fetchOne(db, sql: "SELECT v FROM point WHERE id = ?", arguments: [id])!)
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum)
    }

    static func poolReads(_ fixtures: Fixtures) throws -> Outcome {
        var config = Configuration()
        config.busyMode = .timeout(5)
        let dbPool = try DatabasePool(path: fixtures.pointPath, configuration: config)
        return try concurrentReads(fixtures) { _ in
            return { id in
                try dbPool.read { db in
                    Int64(try Int.fetchOne(db, sql: "SELECT v FROM point WHERE id = ?", arguments: [id])!)
                }
            }
        } write: {
            return {
                try dbPool.write { db in try db.execute(sql: "INSERT INTO w (v) VALUES (1)") }
            }
        }
    }

    static func cursorMemory(_ fixtures: Fixtures) throws -> Outcome {
        let dbQueue = try DatabaseQueue(path: fixtures.bigPath)
        var growth = 0.0
        let (sum, seconds) = try measuredRegion {
            try dbQueue.read { db -> Int64 in
                let start = currentRSSMiB()
                var sum: Int64 = 0
                var count = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT v, s FROM big")
                while let row = try rows.next() {
                    let v: Int64 = row[0]
                    let s: String = row[1]
                    sum &+= v
                    count += s.utf8.count > 0 ? 1 : 0
                    if count % 50_000 == 0 { growth = max(growth, currentRSSMiB() - start) }
                }
                return sum
            }
        }
        return Outcome(seconds: seconds, checksum: sum, rssGrowthMiB: growth)
    }
}
