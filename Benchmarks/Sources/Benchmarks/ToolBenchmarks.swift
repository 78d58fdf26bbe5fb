import Foundation

// `Benchmarks tools --dbtool PATH`: dbtool against the sqlite3 shell on the
// same work, whole processes timed from the outside (median of N runs).

/// Runs a command and returns its wall time; throws when it fails.
@discardableResult
private func timeCommand(_ executable: String, _ arguments: [String], stdinFile: String? = nil) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    if let stdinFile { process.standardInput = FileHandle(forReadingAtPath: stdinFile) }
    let start = DispatchTime.now().uptimeNanoseconds
    try process.run()
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let end = DispatchTime.now().uptimeNanoseconds
    guard process.terminationStatus == 0 else {
        throw BenchmarkError(
            description: "\(executable) \(arguments.joined(separator: " ")) failed: \(String(decoding: stderr, as: UTF8.self))")
    }
    return Double(end - start) / 1e9
}

private func sqlite3Path() throws -> String {
    for path in ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"] where FileManager.default.isExecutableFile(atPath: path) {
        return path
    }
    throw BenchmarkError(description: "sqlite3 not found: `make bench-deps` installs it")
}

/// Medians of interleaved runs of two commands.
private func compare(
    repetitions: Int, prepare: () throws -> Void,
    _ a: () throws -> Double, _ b: () throws -> Double
) throws -> (Double, Double) {
    var aTimes: [Double] = []
    var bTimes: [Double] = []
    for round in 0...repetitions {  // round 0 warms up
        try prepare()
        let first = round % 2 == 0
        let x = try first ? a() : b()
        try prepare()
        let y = try first ? b() : a()
        if round > 0 {
            aTimes.append(first ? x : y)
            bTimes.append(first ? y : x)
        }
    }
    return (median(aTimes), median(bTimes))
}

func toolReport(dbtool: String, fixturesDirectory: String, repetitions: Int) throws -> String {
    let sqlite3 = try sqlite3Path()
    let scratch = fixturesDirectory + "/tools"
    try? FileManager.default.removeItem(atPath: scratch)
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    var rows: [String] = []

    // 1. exec --file with 100,000 INSERTs, in one transaction for both.
    log("dbtool exec --file: 100,000 INSERTs")
    let inserts = (0..<100_000).map { "INSERT INTO t VALUES (\($0), 'row \($0)');\n" }.joined()
    try inserts.write(toFile: scratch + "/inserts.sql", atomically: true, encoding: .utf8)
    try ("BEGIN;\n" + inserts + "COMMIT;\n").write(toFile: scratch + "/inserts-tx.sql", atomically: true, encoding: .utf8)
    let execDb = scratch + "/exec.sqlite"
    let (dbtoolExec, sqliteExec) = try compare(
        repetitions: repetitions,
        prepare: {
            Fixtures.removeDatabase(execDb)
            let db = try RawConnection(path: execDb)
            try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
        },
        { try timeCommand(dbtool, ["exec", "--database", execDb, "--file", scratch + "/inserts.sql"]) },
        { try timeCommand(sqlite3, [execDb], stdinFile: scratch + "/inserts-tx.sql") })
    rows.append(row("exec --file, 100,000 INSERTs in one transaction", dbtoolExec, sqliteExec, target: 1.1))

    // 2. snapshot of a 1 GiB database vs .backup.
    log("dbtool snapshot: 1 GiB database")
    let big = scratch + "/big.sqlite"
    do {
        let db = try RawConnection(path: big)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE b (x BLOB)")
        try db.execute(
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1048576) INSERT INTO b SELECT randomblob(1000) FROM c"
        )
    }
    let copy = scratch + "/copy.sqlite"
    let (dbtoolSnapshot, sqliteBackup) = try compare(
        repetitions: max(3, repetitions / 2),
        prepare: { Fixtures.removeDatabase(copy) },
        { try timeCommand(dbtool, ["snapshot", "--database", big, copy, "--quiet"]) },
        { try timeCommand(sqlite3, [big, ".backup '\(copy)'"]) })
    rows.append(row("snapshot of a 1.1 GB database (dbtool also runs quick_check and fsync)", dbtoolSnapshot, sqliteBackup, target: 1.1))

    // 3. Start-up.
    log("--version start-up")
    let (dbtoolVersion, sqliteVersion) = try compare(
        repetitions: 20, prepare: {},
        { try timeCommand(dbtool, ["--version"]) },
        { try timeCommand(sqlite3, ["--version"]) })
    rows.append(row("`--version` start-up", dbtoolVersion, sqliteVersion, target: nil))

    return """
        ### dbtool against the sqlite3 shell (whole processes, median of \(repetitions) interleaved runs)

        - Machine: \(machineDescription())
        - dbtool: release build; sqlite3: \(sqlite3) (the same system SQLite)

        | Work | dbtool | sqlite3 | dbtool / sqlite3 | target | met |
        | --- | ---: | ---: | ---: | ---: | :---: |
        \(rows.joined(separator: "\n"))
        """
}

private func row(_ title: String, _ dbtool: Double, _ sqlite3: Double, target: Double?) -> String {
    let ratio = dbtool / sqlite3
    let targetText = target.map { String(format: "<= %.2fx", $0) } ?? "-"
    let met = target.map { ratio <= $0 ? "yes" : "no" } ?? "-"
    return String(format: "| %@ | %.3f s | %.3f s | %.2fx | %@ | %@ |", title, dbtool, sqlite3, ratio, targetText, met)
}
