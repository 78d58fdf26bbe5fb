import DatabaseKit
import Foundation
import TestSupport
import Testing

/// The number of trials of a fault-injection test: `fast` in `make test`,
/// multiplied by `DBTOOL_STRESS` in `make stress`.
func trials(_ fast: Int) -> Int {
    fast * max(1, Int(ProcessInfo.processInfo.environment["DBTOOL_STRESS"] ?? "") ?? 1)
}

/// Starts dbtool without waiting for it; stdout and stderr are discarded.
private func launch(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = toolURL
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// The CPU time a process has used, in seconds (user and system, from
/// /proc); 0 when it is gone.
private func cpuSeconds(of pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let afterName = stat.range(of: ") ")
    else { return 0 }
    // Fields after the command name: state is the first; utime and stime
    // are the 12th and 13th.
    let fields = stat[afterName.upperBound...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Whether `PRAGMA quick_check` passes on a database file.
private func isSound(_ path: String) throws -> Bool {
    let dbQueue = try DatabaseQueue(path: path)
    defer { try? dbQueue.close() }
    return try dbQueue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") } == ["ok"]
}

/// Fault injection with real processes and real signals: the promises of
/// docs/guarantees.md. `make stress` runs more trials.
@Suite("Reliability: crashes, signals and concurrency")
struct ReliabilityTests {

    @Test("SIGKILL at random moments of a long migration: all or nothing, the record agrees with the schema, the next run completes")
    func migrateKilled() throws {
        let bigMigration = """
            -- migrate:up
            CREATE TABLE big (a);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 600000) INSERT INTO big SELECT i FROM c;
            CREATE INDEX big_a ON big(a);
            UPDATE book SET title = title || ' (migrated)';
            """
        // The kills land anywhere from the start to a little after the end of
        // an uninterrupted run, however fast this machine is.
        let window: UInt32
        do {
            let scratch = TemporaryDirectory()
            let (database, migrations) = try makeMigrationProject(scratch)
            #expect(try migrate(database, migrations).status == 0)
            try write(bigMigration, to: migrations + "/0006_big.sql")
            let start = Date()
            #expect(try migrate(database, migrations).status == 0)
            window = UInt32(Date().timeIntervalSince(start) * 1.3 * 1_000_000)
        }
        var outcomes: [Bool] = []
        for trial in 0..<trials(30) {
            let scratch = TemporaryDirectory()
            let (database, migrations) = try makeMigrationProject(scratch)
            #expect(try migrate(database, migrations).status == 0)
            try write(bigMigration, to: migrations + "/0006_big.sql")
            let process = try launch(["migrate", "--database", database, "--migrations", migrations])
            usleep(UInt32.random(in: 0...window))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let (applied, tables, migrated) = try DatabaseQueue(path: database + "/db.sqlite").read { db in
                (
                    try Int.fetchAll(db, sql: "SELECT version FROM dbtool_migrations ORDER BY version"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('big', 'big_a')") ?? -1,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book WHERE title LIKE '% (migrated)'") ?? -1
                )
            }
            let none = applied == [1, 2, 3, 4, 5] && tables == 0 && migrated == 0
            let all = applied == [1, 2, 3, 4, 5, 6] && tables == 2 && migrated == 3
            #expect(none || all, "trial \(trial): applied \(applied), tables \(tables), migrated rows \(migrated)")
            outcomes.append(all)
            #expect(try isSound(database + "/db.sqlite"), "trial \(trial)")
            let next = try migrate(database, migrations)
            #expect(next.status == 0, "trial \(trial): \(next.stderr)")
            #expect(try appliedVersions(database) == [1, 2, 3, 4, 5, 6], "trial \(trial)")
        }
        // Kills landed both before and after the commit.
        #expect(outcomes.contains(true) && outcomes.contains(false), "\(outcomes)")
    }

    @Test(
        "SIGINT or SIGTERM during a migration statement: 130, the migration named as not applied, the database as it was",
        arguments: [SIGINT, SIGTERM])
    func migrateInterrupted(signal: Int32) throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try migrate(database, migrations).status == 0)
        // One statement that runs for a minute unless interrupted.
        try write(
            """
            -- migrate:up
            CREATE TABLE slow AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000000) SELECT COUNT(*) AS n FROM c;
            """, to: migrations + "/0006_slow.sql")
        let tool = try BackgroundTool(["migrate", "--database", database, "--migrations", migrations], scratch: scratch)
        // Running the statement: a second of CPU spent (start-up takes far less).
        #expect(waitUntil { cpuSeconds(of: tool.process.processIdentifier) >= 1 })
        tool.send(signal)
        let result = tool.wait()
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted by \(name): nothing of 0006_slow.sql was applied"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fix the migration"))
        #expect(try appliedVersions(database) == [1, 2, 3, 4, 5])
        #expect(try isSound(database + "/db.sqlite"))
    }

    @Test("concurrent dbtool migrate from 2, 4 and 8 processes: each migration applied exactly once", arguments: [2, 4, 8])
    func concurrentMigrate(processes: Int) throws {
        for trial in 0..<trials(processes == 8 ? 10 : 5) {
            let scratch = TemporaryDirectory()
            let (database, migrations) = try makeMigrationProject(scratch)
            // Fails if applied twice; takes a little while.
            try write(
                """
                -- migrate:up
                CREATE TABLE once (a);
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000) INSERT INTO once SELECT i FROM c;
                """, to: migrations + "/0006_once.sql")
            let results = Locked<[ToolResult]>([])
            let group = DispatchGroup()
            for _ in 0..<processes {
                DispatchQueue.global().async(group: group) {
                    if let result = recordingErrors({
                        try dbtool(["migrate", "--database", database, "--migrations", migrations, "--timeout", "60"])
                    }) {
                        results.withLock { $0.append(result) }
                    }
                }
            }
            group.wait()
            let all = results.current
            #expect(all.count == processes)
            #expect(all.allSatisfy { $0.status == 0 }, "trial \(trial): \(all.map(\.stderr))")
            // Every migration is applied by exactly one process.
            for name in ["0001_create_author.sql", "0006_once.sql"] {
                #expect(all.filter { $0.stdout.contains("applied \(name)") }.count == 1, "trial \(trial): \(name)")
            }
            #expect(try appliedVersions(database) == [1, 2, 3, 4, 5, 6], "trial \(trial)")
        }
    }

    @Test(
        "SIGKILL and SIGINT at random moments of backup and snapshot: no partial file under a final name, the database unharmed, the next run succeeds",
        arguments: ["backup", "snapshot"])
    func backupAndSnapshotKilled(command: String) throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeLargeDatabase()
        let output = scratch.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        let final = output + (command == "backup" ? "/db.tar.zst" : "/db.sqlite")
        let arguments =
            command == "backup"
            ? ["backup", "--database", database, "--output", final, "--level", "19"]
            : ["snapshot", "--database", database, final]
        let longest: UInt32 = command == "backup" ? 1_500_000 : 150_000
        for trial in 0..<trials(20) {
            let signal = trial % 2 == 0 ? SIGKILL : SIGINT
            let process = try launch(arguments)
            usleep(UInt32.random(in: 0...longest))
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
            if FileManager.default.fileExists(atPath: final) {
                // Published by rename once complete: whole, even when the signal
                // came after the rename (status 0, or killed just before exiting).
                let check = command == "backup" ? try dbtool(["backup", "verify", final, "-q"]).status == 0 : try isSound(final)
                #expect(check, "trial \(trial)")
                try FileManager.default.removeItem(atPath: final)
            } else if signal == SIGINT {
                // Interrupted: exit 130 after cleaning up, or killed before the handler was installed.
                #expect(status == 130 || status == -SIGINT, "trial \(trial): status \(status)")
                if status == 130 { #expect(dbtoolTempFiles(output).isEmpty, "trial \(trial)") }
            }
            #expect(try isSound(database + "/db.sqlite"), "trial \(trial)")
        }
        let next = try dbtool(arguments.map { $0 == "19" ? "1" : $0 })
        #expect(next.status == 0, "\(next.stderr)")
        #expect(dbtoolTempFiles(output).isEmpty)
        #expect(try accountTotals(database).total == 1000)
    }

    @Test("SIGKILL in the middle of a DatabasePool write transaction: the next open and other processes see the last committed state")
    func poolWriterKilled() async throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let path = database + "/db.sqlite"
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE ledger(seq INTEGER PRIMARY KEY, payload BLOB)")
        }
        for trial in 0..<trials(5) {
            let committedBefore = try await DatabaseQueue(path: path).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ledger") ?? 0
            }
            // The child commits 20 transfers, then dies by SIGKILL inside a
            // transaction large enough to spill uncommitted pages into the WAL.
            await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
                let pool = try DatabasePool(path: path)
                for _ in 0..<20 {
                    try pool.write { db in
                        try db.execute(sql: "UPDATE account SET balance = balance - 1 WHERE id = 1")
                        try db.execute(sql: "UPDATE account SET balance = balance + 1 WHERE id = 2")
                        try db.execute(sql: "INSERT INTO ledger(payload) VALUES (randomblob(100))")
                    }
                }
                try pool.write { db in
                    try db.execute(sql: "PRAGMA cache_size = 10")
                    try db.execute(sql: "UPDATE account SET balance = balance - 500 WHERE id = 3")
                    try db.execute(
                        sql:
                            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO ledger(payload) SELECT randomblob(1000) FROM c"
                    )
                    kill(getpid(), SIGKILL)
                }
            }
            // Another process (dbtool) and this one, opening afresh, see the last commit.
            let seen = try dbtool([
                "exec", "--database", database, "SELECT SUM(balance) AS total, (SELECT COUNT(*) FROM ledger) AS ledger FROM account",
                "--format", "json",
            ])
            #expect(seen.status == 0, "trial \(trial): \(seen.stderr)")
            #expect(seen.stdout.contains("\"total\" : 1000") || seen.stdout.contains("\"total\":1000"), "trial \(trial): \(seen.stdout)")
            let (total, ledger) = try await DatabaseQueue(path: path).read { db in
                (try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ledger"))
            }
            #expect(total == 1000, "trial \(trial)")
            #expect(ledger == committedBefore + 20, "trial \(trial)")
            #expect(try isSound(path), "trial \(trial)")
        }
    }
}
