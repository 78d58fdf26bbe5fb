import Foundation

// `Benchmarks large-migration --dbtool PATH`: one migration file of ~300 MB
// (one-line INSERTs, as a data migration or a generated seed is written),
// `migrate status` and `migrate` on it, whole processes timed from the
// outside with their peak RSS. The targets: status under 5 s, migrate with
// an RSS under 100 MB.

func largeMigrationReport(dbtool: String, fixturesDirectory: String, repetitions: Int, megabytes: Int = 300) throws -> String {
    let scratch = fixturesDirectory + "/large-migration"
    try? FileManager.default.removeItem(atPath: scratch)
    let migrations = scratch + "/migrations"
    try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }

    log("large-migration: a \(megabytes) MB migration file")
    let path = migrations + "/0001_seed.sql"
    guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
        throw BenchmarkError(description: "can not write \(path)")
    }
    output.write(Data("-- migrate:up\nCREATE TABLE seed (id INTEGER PRIMARY KEY, name TEXT, note TEXT);\n".utf8))
    var written = 0
    var id = 0
    let filler = String(repeating: "lorem ipsum ", count: 8)
    while written < megabytes << 20 {
        var block = ""
        for _ in 0..<1000 {
            id += 1
            block += "INSERT INTO seed VALUES (\(id), 'name \(id)', '\(filler)\(id)');\n"
        }
        output.write(Data(block.utf8))
        written += block.utf8.count
    }
    output.write(Data("-- migrate:down\nDROP TABLE seed;\n".utf8))
    try output.close()

    var statuses: [Measured] = []
    var migrates: [Measured] = []
    for round in 0..<repetitions {
        let database = scratch + "/db\(round)"
        _ = try measure(dbtool, ["init", database, "--quiet"])
        statuses.append(try measure(dbtool, ["migrate", "status", "--database", database, "--migrations", migrations]))
        migrates.append(try measure(dbtool, ["migrate", "--database", database, "--migrations", migrations, "--quiet"]))
        try? FileManager.default.removeItem(atPath: database)
    }
    func row(_ name: String, _ runs: [Measured], target: String, met: Bool) -> String {
        let seconds = median(runs.map(\.seconds))
        let rss = Double(runs.map(\.maxRSSKiB).max() ?? 0) / 1024
        return "| \(name) | \(String(format: "%.2f s", seconds)) | \(String(format: "%.0f MiB", rss)) | \(target) | \(met ? "yes" : "no") |"
    }
    let statusSeconds = median(statuses.map(\.seconds))
    let migrateRSS = Double(migrates.map(\.maxRSSKiB).max() ?? 0) / 1024
    return """
        ### A large migration: `migrate status` and `migrate` of one \(megabytes) MB file (whole processes, median of \(repetitions), largest RSS)

        - Machine: \(machineDescription())
        - One file of \(id) one-line INSERTs with up and down markers. `status` reads the file once in chunks for its \
        checksum; `migrate` reads it again, in chunks, and feeds SQLite batches of whole statements of about 256 KiB, \
        all in one transaction.

        | Command | time | peak RSS | target | met |
        | --- | ---: | ---: | --- | :---: |
        \(row("migrate status", statuses, target: "< 5 s", met: statusSeconds < 5))
        \(row("migrate", migrates, target: "RSS < 100 MB", met: migrateRSS * 1.048576 < 100))
        """
}
