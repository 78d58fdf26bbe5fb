import Foundation

// `Benchmarks fleet --dbtool PATH`: 1,000 small tenant databases
// (`tenants/tNNNN/db`, made by one `dbtool init DIR...`), migrated (five
// migrations) and backed up, by a shell loop calling dbtool once per
// database and by one dbtool over the glob with `--jobs 1` and `--jobs 2`.
// Each run starts from a fresh copy of the tenants. The target: the fleet
// run at least 3x faster than the loop.

func fleetReport(dbtool: String, fixturesDirectory: String, repetitions: Int, tenants count: Int = 1000) throws -> String {
    let scratch = fixturesDirectory + "/fleet"
    try? FileManager.default.removeItem(atPath: scratch)
    let template = scratch + "/template"
    let migrations = scratch + "/migrations"
    try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }

    log("fleet: \(count) tenant databases")
    let tenants = (0..<count).map { template + "/t\(String(format: "%04d", $0))/db" }
    for tenant in tenants { try FileManager.default.createDirectory(atPath: (tenant as NSString).deletingLastPathComponent, withIntermediateDirectories: true) }
    _ = try measure(dbtool, ["init"] + tenants + ["--quiet"])
    let steps = [
        "CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);",
        "CREATE TABLE invoice (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES account(id), total INTEGER NOT NULL);",
        "CREATE INDEX invoice_account ON invoice(account_id);",
        "ALTER TABLE account ADD COLUMN email TEXT;",
        "INSERT INTO account (name, created_at) VALUES ('owner', '2026-01-01');",
    ]
    for (index, sql) in steps.enumerated() {
        try "-- migrate:up\n\(sql)\n".write(toFile: migrations + "/000\(index + 1)_step\(index + 1).sql", atomically: true, encoding: .utf8)
    }

    func fresh(_ name: String) throws -> String {
        let copy = scratch + "/" + name
        try? FileManager.default.removeItem(atPath: copy)
        _ = try measure("/bin/cp", ["-a", template, copy])
        return copy
    }
    func loop(_ command: String) -> String {
        "for d in \"$1\"/*/db; do \"$0\" \(command) || exit 1; done"
    }

    var results: [String: [Double]] = [:]
    for round in 0..<repetitions {
        log("fleet: round \(round + 1) of \(repetitions)")
        for variant in ["loop", "jobs 1", "jobs 2"] {
            let tenantsCopy = try fresh("tenants")
            let backups = scratch + "/backups"
            try? FileManager.default.removeItem(atPath: backups)
            try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
            let migrate: Measured
            let backup: Measured
            if variant == "loop" {
                migrate = try measure("/bin/sh", ["-c", loop("migrate --database \"$d\" --migrations \(migrations) --quiet"), dbtool, tenantsCopy])
                backup = try measure(
                    "/bin/sh", ["-c", loop("backup --database \"$d\" --output-dir \(backups)/$(echo \"$d\" | tr / -) --quiet"), dbtool, tenantsCopy])
            } else {
                let jobs = variant == "jobs 1" ? "1" : "2"
                migrate = try measure(dbtool, ["migrate", "--database", tenantsCopy + "/*/db", "--migrations", migrations, "--jobs", jobs, "--quiet"])
                backup = try measure(dbtool, ["backup", "--database", tenantsCopy + "/*/db", "--output-dir", backups, "--jobs", jobs, "--quiet"])
            }
            results["migrate " + variant, default: []].append(migrate.seconds)
            results["backup " + variant, default: []].append(backup.seconds)
        }
    }
    func row(_ command: String) -> String {
        let loop = median(results[command + " loop"] ?? [])
        let one = median(results[command + " jobs 1"] ?? [])
        let two = median(results[command + " jobs 2"] ?? [])
        let speedup = loop / min(one, two)
        return "| \(command) | \(String(format: "%.2f s", loop)) | \(String(format: "%.2f s", one)) | \(String(format: "%.2f s", two)) | "
            + "\(String(format: "%.1fx", speedup)) | >= 3x | \(speedup >= 3 ? "yes" : "no") |"
    }
    return """
        ### A fleet of \(count) tenant databases: one dbtool against a shell loop (whole processes, median of \(repetitions) rounds)

        - Machine: \(machineDescription())
        - \(count) databases made by `dbtool init`, five migrations (tables, an index, a column, a row), then a backup of \
        each to a folder of its own; every variant starts from a fresh copy. The loop runs \
        `for d in tenants/*/db; do dbtool migrate --database "$d" ...; done`; the fleet runs \
        `dbtool migrate --database 'tenants/*/db' --jobs N` (and the same for `backup --output-dir`).

        | Command | shell loop | --jobs 1 | --jobs 2 | loop / fleet | target | met |
        | --- | ---: | ---: | ---: | ---: | ---: | :---: |
        \(row("migrate"))
        \(row("backup"))
        """
}
