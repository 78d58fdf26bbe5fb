import DatabaseKit
import Foundation
import TestSupport
import Testing

/// `check`, `vacuum`, `optimize`, `stats` and `--metrics-file`, on real
/// databases, damaged ones and live ones, through the real binary.
@Suite("dbtool check, vacuum, optimize, stats, metrics")
struct DayTwoCommandTests {
    private func json(_ result: ToolResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    /// A database with a table, its index and a child table.
    private func makeLibrary(_ scratch: TemporaryDirectory, rows: Int = 5000, name: String = "db") throws -> String {
        let database = try scratch.makeDatabase(name)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE INDEX author_name ON author(name);
                    CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id));
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows))
                    INSERT INTO author(name) SELECT hex(randomblob(40)) FROM n;
                    INSERT INTO book(author_id) SELECT id FROM author;
                    """)
        }
        return database
    }

    @Test("check: a sound database is 0; a row referencing a missing row and a damaged page are 65, naming the table, row and page")
    func check() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch)
        let sound = try dbtool(["check", "--database", database, "--format", "json"])
        #expect(sound.status == 0, "\(sound.stderr)")
        #expect(try json(sound)["healthy"] as? Bool == true)

        // A violation written with foreign keys off, as an application might.
        try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF; INSERT INTO book(id, author_id) VALUES (99999, 424242)")
        }
        let orphan = try dbtool(["check", "--database", database, "--format", "json"])
        #expect(orphan.status == 65)
        let violations = try json(orphan)["foreignKeyViolations"] as? [[String: Any]]
        #expect(violations?.first?["table"] as? String == "book" && violations?.first?["rowid"] as? Int == 99999, "\(orphan.stdout)")
        #expect(orphan.stderr.contains("book rowid 99999 -> author"), "\(orphan.stderr)")

        // The root page of the index overwritten: the page is named.
        let (root, pageSize) = try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            _ = try db.checkpoint(.truncate)
            return (
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'author_name'") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            )
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: database + "/db.sqlite"))
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        try handle.write(contentsOf: Data([0x0D, 0x00, 0x07] + [UInt8](repeating: 0xEE, count: 1000)))
        try handle.close()
        for arguments in [[], ["--full"]] {
            let damaged = try dbtool(["check", "--database", database] + arguments)
            #expect(damaged.status == 65)
            #expect(damaged.stdout.contains("DAMAGED") && damaged.stdout.contains("Page \(root)"), "\(damaged.stdout)")
            #expect(damaged.stderr.contains("is damaged"), "\(damaged.stderr)")
        }
    }

    /// Overwrites page `page` of the database file with a b-tree header
    /// of `kind` followed by garbage.
    private func damagePage(_ database: String, _ page: Int, kind: UInt8) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: database + "/db.sqlite"))
        try handle.seek(toOffset: UInt64((page - 1) * 4096))
        try handle.write(contentsOf: Data([kind, 0x00, 0x07] + [UInt8](repeating: 0xEE, count: 1000)))
        try handle.close()
    }

    /// The library in rollback-journal mode, and a leaf page of `table`.
    private func leafPage(_ scratch: TemporaryDirectory, of table: String) throws -> (database: String, page: Int) {
        let database = try makeLibrary(scratch, name: "db-\(UUID().uuidString)")
        let page = try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            return try Int.fetchOne(
                db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' LIMIT 1 OFFSET 10", arguments: [table])
        }
        return (database, try #require(page))
    }

    @Test("check keeps every line SQLite produced when it stops on damage part-way; --full never says less than the quick check")
    func checkKeepsFindings() throws {
        let scratch = TemporaryDirectory()
        // Garbage in a table page: quick_check names the page, then foreign_key_check stops on it.
        let (table, tablePage) = try leafPage(scratch, of: "author")
        try damagePage(table, tablePage, kind: 0x0D)
        for arguments in [[], ["--full"]] {
            let damaged = try dbtool(["check", "--database", table, "--format", "json"] + arguments)
            #expect(damaged.status == 65)
            let problems = try json(damaged)["problems"] as? [String] ?? []
            #expect(problems.contains("Page \(tablePage): btreeInitPage() returns error code 11"), "\(arguments): \(problems)")
        }
        // Garbage in an index page: integrity_check stops at the index; what quick_check says stays.
        let (index, indexPage) = try leafPage(scratch, of: "author_name")
        try damagePage(index, indexPage, kind: 0x0A)
        let quick = try json(try dbtool(["check", "--database", index, "--format", "json"]))["problems"] as? [String] ?? []
        let full = try json(try dbtool(["check", "--database", index, "--format", "json", "--full"]))["problems"] as? [String] ?? []
        #expect(quick.contains { $0.contains("Page \(indexPage)") }, "\(quick)")
        #expect(Set(quick).isSubset(of: Set(full)), "quick: \(quick), full: \(full)")
    }

    @Test("check compares the header with the file before SQLite can fail on it: a truncated file, a wrong page count")
    func checkHeader() throws {
        let scratch = TemporaryDirectory()
        let (truncated, _) = try leafPage(scratch, of: "author")
        let truncatedPages = FileSystemInfo.size(truncated + "/db.sqlite") / 4096
        #expect(truncate(truncated + "/db.sqlite", 100 * 4096) == 0)
        let (miscounted, _) = try leafPage(scratch, of: "author")
        let pages = FileSystemInfo.size(miscounted + "/db.sqlite") / 4096
        let handle = try #require(FileHandle(forUpdatingAtPath: miscounted + "/db.sqlite"))
        try handle.seek(toOffset: 28)
        try handle.write(contentsOf: withUnsafeBytes(of: UInt32(pages + 100).bigEndian) { Data($0) })
        try handle.close()
        for (database, counted) in [(truncated, truncatedPages), (miscounted, pages + 100)] {
            for arguments in [[], ["--full"]] {
                let result = try dbtool(["check", "--database", database, "--format", "json"] + arguments)
                #expect(result.status == 65, "\(result.stderr)")
                let problems = try json(result)["problems"] as? [String] ?? []
                #expect(problems.first?.contains("header counts \(counted) pages of 4096 bytes: it was truncated") == true, "\(problems)")
                #expect(problems.contains("SQLite can not read it: database disk image is malformed"), "\(problems)")
            }
        }
    }

    @Test("check warns when the WAL is larger than the database (64 MiB at least) or --max-wal; metrics count problems and free pages")
    func checkWALAndMetrics() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch, rows: 100)
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0; INSERT INTO author(name) VALUES ('one more')")
            // A WAL of a few pages: no warning by default, one past --max-wal.
            let quiet = try json(try dbtool(["check", "--database", database, "--format", "json"]))
            #expect((quiet["warnings"] as? [String])?.isEmpty == true && (quiet["walSize"] as? Int ?? 0) > 1024, "\(quiet)")
            let limited = try dbtool(["check", "--database", database, "--max-wal", "1KiB"])
            #expect(limited.status == 0 && limited.stdout.contains("more than --max-wal (1.0 KiB)"), "\(limited.stdout)")

            // 70 MiB written and deleted while checkpoints are off: the WAL outgrows the file.
            try db.execute(
                sql: """
                    CREATE TABLE bulk(b BLOB);
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 70)
                    INSERT INTO bulk SELECT zeroblob(1048576) FROM n;
                    DROP TABLE bulk;
                    """)
            let metrics = scratch.file("dbtool.prom")
            let grown = try dbtool(["check", "--database", database, "--metrics-file", metrics])
            #expect(
                grown.status == 0 && grown.stdout.contains("warning: the WAL holds")
                    && grown.stdout.contains("more than the database itself"),
                "\(grown.stdout)")
            let sound = try parsedMetrics(metrics)
            #expect(sound["dbtool_check_problems|"] == 0 && sound["dbtool_database_free_pages|"] != nil, "\(sound)")
        }
        try dbQueue.close()

        let metrics = scratch.file("damaged.prom")
        let (damaged, page) = try leafPage(scratch, of: "author")
        try damagePage(damaged, page, kind: 0x0D)
        #expect(try dbtool(["check", "--database", damaged, "--metrics-file", metrics]).status == 65)
        let values = try parsedMetrics(metrics)
        #expect((values["dbtool_check_problems|"] ?? 0) >= 1 && values["dbtool_last_run_exit_status|check"] == 65, "\(values)")
    }

    @Test(
        "a crashed transaction's hot journal: check and stats roll it back and say so (never 77); where they may not write, 65 saying why")
    func hotJournal() throws {
        for command in ["check", "stats"] {
            let scratch = TemporaryDirectory()
            let database = try scratch.makeDatabase()
            let file = database + "/db.sqlite"
            let crash = try startWorkload(["crash-mid-transaction", file])
            crash.waitUntilExit()
            #expect(crash.terminationReason == .uncaughtSignal)
            #expect(FileSystemProbe.size(file + "-journal") > 0, "no journal left by the crash")

            if getuid() == 0 {
                // A user who may read but not write the directory: dbtool must
                // not read around the journal, nor call it a permission problem.
                chmod(scratch.path, 0o755)
                chmod(database, 0o755)
                chmod(file, 0o644)
                chmod(file + "-journal", 0o644)
                let refused = try dbtool(
                    ["--reuid=65534", "--regid=65534", "--clear-groups", toolURL.path, command, "--database", database],
                    executable: "/usr/bin/setpriv")
                #expect(refused.status == 65, "\(command): \(refused.stderr)")
                #expect(refused.stderr.contains("a transaction a crash left unfinished"), "\(refused.stderr)")
            }

            let result = try dbtool([command, "--database", database])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("notice: rolled back a transaction a crash left unfinished in \(file)"), "\(result.stderr)")
            #expect(FileSystemProbe.size(file + "-journal") == 0)
            let again = try dbtool([command, "--database", database])
            #expect(again.status == 0 && !again.stderr.contains("rolled back"), "\(again.stderr)")
        }
    }

    @Test("check reads while an application writes: it succeeds and never stalls the writer")
    func checkLive() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch, rows: 20000)
        let application = try Application(database: database + "/db.sqlite", scratch: scratch)
        for _ in 0..<3 {
            let result = try dbtool(["check", "--database", database, "--full"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        _ = try application.stop()
        let stall = try application.longestCommitMs()
        #expect(stall < 250, "the writer waited \(stall) ms for one commit")
    }

    @Test("vacuum: refused on a WAL database without --live, leaving it as it was; --live frees pages; --into writes a compacted copy")
    func vacuum() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch, rows: 20000)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(sql: "DELETE FROM book; DELETE FROM author WHERE id % 2 = 0")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: database + "/db.sqlite"))
        let refused = try dbtool(["vacuum", "--database", database])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--live") && refused.stderr.contains("write lock"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database + "/db.sqlite")) == before)

        let copy = scratch.file("compact.sqlite")
        let into = try dbtool(["vacuum", "--database", database, "--into", copy])
        #expect(into.status == 0, "\(into.stderr)")
        #expect(try DatabaseQueue(path: copy).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM author") } == 10000)
        #expect(FileSystemInfo.size(copy) < Int64(before.count))

        let live = try dbtool(["vacuum", "--database", database, "--live", "--format", "json"])
        #expect(live.status == 0, "\(live.stderr)")
        let report = try json(live)
        #expect((report["pagesFreed"] as? Int ?? 0) > 100, "\(live.stdout)")
        #expect((report["bytesFreed"] as? Int ?? 0) > 100 * 4096, "\(live.stdout)")
        #expect(report["freePagesAfter"] as? Int == 0)
        #expect(
            try DatabaseQueue(path: database + "/db.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM author") }
                == 10000)

        // With an application writing: it waits for the VACUUM, and loses nothing.
        let application = try Application(database: database + "/db.sqlite", scratch: scratch)
        let underLoad = try dbtool(["vacuum", "--database", database, "--live", "--timeout", "20"])
        let last = try application.stop()
        #expect(underLoad.status == 0, "\(underLoad.stderr)")
        let (check, lastRow) = try DatabaseQueue(path: database + "/db.sqlite").read { db in
            (try String.fetchOne(db, sql: "PRAGMA quick_check"), try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM event"))
        }
        #expect(check == "ok" && last > 0 && lastRow == last, "the application's commits: \(last), in the database: \(lastRow ?? 0)")

        #expect(try dbtool(["vacuum", "--database", database, "--into", copy]).status == 73, "an existing copy is kept without --force")
    }

    @Test("vacuum --incremental: frees pages of an auto_vacuum=incremental database; 65 for another")
    func incrementalVacuum() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch)
        let none = try dbtool(["vacuum", "--database", database, "--incremental", "0"])
        #expect(none.status == 65 && none.stderr.contains("auto_vacuum"), "\(none.stderr)")

        try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA auto_vacuum = incremental; VACUUM; DELETE FROM book; DELETE FROM author")
        }
        let freed = try dbtool(["vacuum", "--database", database, "--incremental", "10", "--format", "json"])
        #expect(freed.status == 0, "\(freed.stderr)")
        let report = try json(freed)
        #expect(report["mode"] as? String == "incremental")
        #expect(report["pagesFreed"] as? Int == 10, "\(freed.stdout)")
        #expect((report["freePagesBefore"] as? Int ?? 0) - (report["freePagesAfter"] as? Int ?? 0) == 10)
        #expect(report["bytesFreed"] as? Int == 10 * 4096, "\(freed.stdout)")

        // On a WAL database the pages go back once the WAL is checkpointed: the file shrinks all the same.
        try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        let walFreed = try dbtool(["vacuum", "--database", database, "--incremental", "10", "--format", "json"])
        let walReport = try json(walFreed)
        #expect(walReport["pagesFreed"] as? Int == 10 && walReport["bytesFreed"] as? Int == 10 * 4096, "\(walFreed.stdout)")
        #expect(
            (walReport["fileSizeBefore"] as? Int ?? 0) - (walReport["fileSizeAfter"] as? Int ?? 0) == 10 * 4096, "\(walFreed.stdout)")
        #expect((walReport["durationMs"] as? Int) != nil)
    }

    @Test("optimize: analyses a table without statistics, then nothing, then the table once it grew tenfold")
    func optimize() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch, rows: 100)
        let first = try json(try dbtool(["optimize", "--database", database, "--format", "json"]))
        #expect((first["analyzed"] as? [[String: Any]])?.map { $0["table"] as? String } == ["author"], "\(first)")
        let second = try json(try dbtool(["optimize", "--database", database, "--format", "json"]))
        #expect((second["analyzed"] as? [Any])?.isEmpty == true, "\(second)")
        #expect(second["current"] as? [String] == ["author"])
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(
                sql:
                    "INSERT INTO author(name) SELECT name || 'x' FROM author, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10)"
            )
        }
        let grown = try json(try dbtool(["optimize", "--database", database, "--format", "json"]))
        let reason = (grown["analyzed"] as? [[String: Any]])?.first?["reason"] as? String
        #expect(reason == "rows 100 -> 1100", "\(grown)")
        let all = try json(try dbtool(["optimize", "--database", database, "--analyze", "--analysis-limit", "0", "--format", "json"]))
        #expect((all["analyzed"] as? [[String: Any]])?.first?["reason"] as? String == "asked")
    }

    @Test("optimize gives the planner what a full ANALYZE gives: a key repeated 40,000 times is not counted as 1,000")
    func optimizeMatchesFullAnalyze() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let dbQueue = try DatabaseQueue(path: database + "/db.sqlite")
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE event(id INTEGER PRIMARY KEY, kind INT, user INT);
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200000)
                    INSERT INTO event SELECT x, x % 5, x % 20000 FROM n;
                    CREATE INDEX event_kind ON event(kind);
                    CREATE INDEX event_user ON event(user);
                    """)
        }
        func statistics() throws -> [String: String] {
            try dbQueue.read { db in
                var statistics: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT idx, stat FROM sqlite_stat1 WHERE idx IS NOT NULL") {
                    statistics[row["idx"] as String? ?? ""] = row["stat"] as String? ?? ""
                }
                return statistics
            }
        }
        let report = try json(try dbtool(["optimize", "--database", database, "--format", "json"]))
        #expect(report["analysisLimit"] as? Int == 0, "\(report)")
        let ours = try statistics()
        try dbQueue.write { db in try db.execute(sql: "PRAGMA analysis_limit = 0; ANALYZE") }
        #expect(ours == (try statistics()), "optimize: \(ours)")
        #expect(ours["event_kind"] == "200000 40000", "\(ours)")

        // A limit asked for is used, with what it costs the estimates.
        let limited = try json(
            try dbtool(["optimize", "--database", database, "--analyze", "--analysis-limit", "1000", "--format", "json"]))
        #expect(limited["analysisLimit"] as? Int == 1000)
        #expect(try statistics()["event_kind"]?.hasSuffix(" 1001") == true)
    }

    @Test("stats: space per table and index, row counts on request, settings and the last migration")
    func stats() throws {
        let scratch = TemporaryDirectory()
        let (database, migrations) = try makeMigrationProject(scratch)
        #expect(try dbtool(["migrate", "--database", database, "--migrations", migrations, "--quiet"]).status == 0)
        let result = try dbtool(["stats", "--database", database, "--rows", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result)
        let objects = try #require(report["objects"] as? [[String: Any]])
        let book = try #require(objects.first { $0["name"] as? String == "book" })
        #expect(book["type"] as? String == "table" && book["rows"] as? Int == 3 && (book["bytes"] as? Int ?? 0) > 0)
        #expect(objects.contains { $0["type"] as? String == "index" })
        #expect(report["journalMode"] as? String == "wal" && report["autoVacuum"] as? String == "none")
        #expect((report["lastMigration"] as? String)?.hasPrefix("5 ") == true, "\(report)")
        let text = try dbtool(["stats", "--database", database])
        #expect(text.stdout.contains("last migration: 5 ") && text.stdout.contains("book"), "\(text.stdout)")

        // The newest backup of this database where its backups go (another database's is not it).
        let backups = scratch.file("backups")
        let other = try scratch.makeDatabase("other")
        #expect(try dbtool(["backup", "--database", database, "--output-dir", backups, "--quiet"]).status == 0)
        Thread.sleep(forTimeInterval: 0.01)
        let newest = try dbtool(["backup", "--database", database, "--output-dir", backups, "--format", "json"])
        #expect(try dbtool(["backup", "--database", other, "--output-dir", backups, "--quiet"]).status == 0)
        let archive = try json(newest)["archive"] as? String
        let withBackups = try json(try dbtool(["stats", "--database", database, "--backups", backups, "--format", "json"]))
        #expect(archive != nil && withBackups["lastBackup"] as? String == archive, "\(withBackups)")
        #expect((withBackups["lastBackupAt"] as? String)?.hasPrefix("20") == true)
        let newestReport = try json(newest)
        #expect(newestReport["durationMs"] as? Int != nil && newestReport["writerStallMs"] as? Int != nil, "\(newest.stdout)")
        // Where none is, the report says so.
        let empty = scratch.file("no-backups")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let none = try dbtool(["stats", "--database", database, "--backups", empty])
        #expect(none.stdout.contains("last backup: none in \(empty)"), "\(none.stdout)")
        let noneJSON = try json(try dbtool(["stats", "--database", database, "--backups", empty, "--format", "json"]))
        #expect(noneJSON["lastBackup"] == nil && noneJSON["backupsSearched"] as? String == empty, "\(noneJSON)")
    }

    @Test("--metrics-file: Prometheus's parser reads it; a failure keeps the last success; other commands' samples stay")
    func metrics() throws {
        let scratch = TemporaryDirectory()
        let database = try makeLibrary(scratch)
        let metrics = scratch.file("dbtool.prom")
        #expect(try dbtool(["check", "--database", database, "--metrics-file", metrics]).status == 0)
        #expect(
            try dbtool(["backup", "--database", database, "--output-dir", scratch.file("backups"), "--metrics-file", metrics]).status == 0)
        let first = try parsedMetrics(metrics)
        let checkSuccess = try #require(first["dbtool_last_success_timestamp_seconds|check"])
        #expect(first["dbtool_last_run_exit_status|check"] == 0)
        #expect((first["dbtool_last_run_bytes|backup"] ?? 0) > 0)
        #expect((first["dbtool_database_size_bytes|"] ?? 0) > 0)

        try DatabaseQueue(path: database + "/db.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF; INSERT INTO book(id, author_id) VALUES (99999, 424242)")
        }
        usleep(10_000)
        #expect(try dbtool(["check", "--database", database, "--metrics-file", metrics]).status == 65)
        let second = try parsedMetrics(metrics)
        #expect(second["dbtool_last_run_exit_status|check"] == 65)
        #expect(second["dbtool_last_success_timestamp_seconds|check"] == checkSuccess)
        #expect((second["dbtool_last_run_timestamp_seconds|check"] ?? 0) > checkSuccess)
        #expect(second["dbtool_last_run_exit_status|backup"] == 0, "the backup's samples stay")
        var attributes = stat()
        #expect(stat(metrics, &attributes) == 0 && attributes.st_mode & 0o777 == 0o644)

        // The database directory gone: the samples keep their label, and the backup wrote nothing.
        try FileManager.default.moveItem(atPath: database, toPath: database + ".moved")
        #expect(
            try dbtool(["backup", "--database", database, "--output-dir", scratch.file("backups"), "--metrics-file", metrics]).status == 66)
        let gone = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(!gone.contains("database=\"\(database)\""), "a new label for the same database: \(gone)")
        let third = try parsedMetrics(metrics)
        #expect(third["dbtool_last_run_exit_status|backup"] == 66 && third["dbtool_last_run_bytes|backup"] == 0, "\(gone)")
    }

    @Test("replicate --metrics-file: the shipped TXID and the lag while it runs, the run's status once stopped")
    func replicateMetrics() throws {
        let scratch = TemporaryDirectory()
        let database = try scratch.makeDatabase()
        let metrics = scratch.file("replicate.prom")
        let replicate = try BackgroundTool(
            ["replicate", "--database", database, "--to", scratch.file("replica"), "--sync-interval", "0.1", "--metrics-file", metrics],
            scratch: scratch)
        #expect(waitUntil { ((try? String(contentsOfFile: metrics, encoding: .utf8)) ?? "").contains("dbtool_replicate_shipped_txid{") })
        #expect((try parsedMetrics(metrics)["dbtool_replicate_shipped_txid|"] ?? 0) >= 1)
        try DatabaseQueue(path: database + "/db.sqlite").write { db in try db.execute(sql: "INSERT INTO account VALUES (11, 1)") }
        Thread.sleep(forTimeInterval: 0.5)
        replicate.send(SIGTERM)
        #expect(replicate.wait().status == 0)
        let final = try parsedMetrics(metrics)
        #expect((final["dbtool_replicate_shipped_txid|"] ?? 0) >= 2, "\(final)")
        #expect(final["dbtool_replicate_lag_seconds|"] == 0 && final["dbtool_replicate_pending_bytes|"] == 0)
        #expect(final["dbtool_last_run_exit_status|replicate"] == 0)
        #expect((final["dbtool_replicate_updated_timestamp_seconds|"] ?? 0) > Date().timeIntervalSince1970 - 60)
    }

    /// `name|command` to value, as `prometheus_client`'s own text parser reads
    /// the file (it fails the test on anything it can not parse).
    private func parsedMetrics(_ path: String) throws -> [String: Double] {
        let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for sample in family.samples:
                    print(sample.name + "|" + sample.labels.get("command", ""), repr(sample.value))
            """
        let output = try runProgram(ObjectStorageServer.python, ["-c", script, path])
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }
}

/// File sizes for the assertions.
enum FileSystemInfo {
    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }
}

/// File sizes, for the tests (0 when absent).
enum FileSystemProbe {
    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
