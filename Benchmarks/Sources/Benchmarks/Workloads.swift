/// The workloads, in the order of the report.
let allWorkloads: [Workload] = coreWorkloads + recordWorkloads + queryInterfaceWorkloads + associationWorkloads

/// The statement, fetch, transaction and memory workloads.
let coreWorkloads: [Workload] = [
    Workload(
        id: "insert-positional", title: "1. insert 50,000 rows x 10 INTEGER, positional arguments",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.insertChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.insert(named: false, fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.insert(named: false, fixtures)
            case .grdb: return try GRDBWorkloads.insert(named: false, fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.insert(fixtures)
            }
        }),
    Workload(
        id: "insert-named", title: "2. insert 50,000 rows x 10 INTEGER, named arguments",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.insertChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.insert(named: true, fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.insert(named: true, fixtures)
            case .grdb: return try GRDBWorkloads.insert(named: true, fixtures)
            case .sqliteNIO: return nil  // no named parameters
            }
        }),
    Workload(
        id: "insert-sql", title: "2b. insert 50,000 rows x 10 INTEGER, db.execute(sql:arguments:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.insertChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.insert(named: false, fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.insertThroughSQL(fixtures)
            case .grdb: return try GRDBWorkloads.insertThroughSQL(fixtures)
            case .sqliteNIO: return nil  // the same call as insert-positional
            }
        }),
    Workload(
        id: "fetch-index", title: "3. cursor over 200,000 rows x 10 integers, by column index",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.fetchChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetch(byName: false, fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetch(byName: false, fixtures)
            case .grdb: return try GRDBWorkloads.fetch(byName: false, fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.fetch(byName: false, fixtures)
            }
        }),
    Workload(
        id: "fetch-name", title: "4. cursor over 200,000 rows x 10 integers, by column name",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.fetchChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetch(byName: true, fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetch(byName: true, fixtures)
            case .grdb: return try GRDBWorkloads.fetch(byName: true, fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.fetch(byName: true, fixtures)
            }
        }),
    Workload(
        id: "fetch-struct", title: "5. fetchAll 200,000 structs, init(row:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.fetchChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetchStructs(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetchStructs(fixtures)
            case .grdb: return try GRDBWorkloads.fetchStructs(fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.fetchStructs(fixtures)
            }
        }),
    Workload(
        id: "fetch-decodable", title: "6. fetchAll 200,000 structs, Decodable",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.fetchChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.fetchStructs(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.fetchDecodables(fixtures)
            case .grdb: return try GRDBWorkloads.fetchDecodables(fixtures)
            case .sqliteNIO: return nil  // no row decoder (SQLiteKit has one)
            }
        }),
    Workload(
        id: "transactions", title: "7. 5,000 write transactions of one INSERT (WAL, synchronous=NORMAL)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.transactionChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.smallTransactions(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.smallTransactions(fixtures)
            case .grdb: return try GRDBWorkloads.smallTransactions(fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.smallTransactions(fixtures)
            }
        }),
    Workload(
        id: "point-queries", title: "8. 20,000 point queries, Int.fetchOne(db, sql:arguments:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.pointQueries(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.pointQueries(fixtures)
            case .grdb: return try GRDBWorkloads.pointQueries(fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.pointQueries(fixtures)
            }
        }),
    Workload(
        id: "point-queries-statement", title: "8b. 20,000 point queries, Int.fetchOne(db.cachedStatement(sql:), arguments:)",
        countsInstructions: true, expectedChecksum: { _ in Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.pointQueries(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.pointQueriesThroughStatement(fixtures)
            case .grdb: return try GRDBWorkloads.pointQueriesThroughStatement(fixtures)
            case .sqliteNIO: return nil  // no prepared statements in its API
            }
        }),
    Workload(
        id: "pool-reads", title: "9. DatabasePool: 2 threads x 20,000 point queries, one read {} each, writer committing",
        countsInstructions: false, expectedChecksum: { _ in Int64(Fixtures.poolReaderCount) * Fixtures.pointChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.poolReads(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.poolReads(fixtures)
            case .grdb: return try GRDBWorkloads.poolReads(fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.poolReads(fixtures)
            }
        }),
    Workload(
        id: "cursor-memory", title: "10. cursor over 1,000,000 rows: RSS growth",
        countsInstructions: false, expectedChecksum: { _ in Fixtures.bigChecksum },
        run: { implementation, fixtures in
            switch implementation {
            case .raw: return try RawWorkloads.cursorMemory(fixtures)
            case .databaseKit: return try DatabaseKitWorkloads.cursorMemory(fixtures)
            case .grdb: return try GRDBWorkloads.cursorMemory(fixtures)
            case .sqliteNIO: return try SQLiteNIOWorkloads.cursorMemory(fixtures)
            }
        }),
]
