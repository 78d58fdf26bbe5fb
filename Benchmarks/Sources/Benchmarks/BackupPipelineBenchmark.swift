import BenchSQLite
import Foundation

// `Benchmarks pipeline --dbtool PATH`: `dbtool backup` against the same work
// done by standard tools, `tar -cf - DIR | tee FIFO | zstd -3` with
// `sha256sum < FIFO` (the manifest's SHA-256 of every byte) and `sync FILE`
// (dbtool makes the archive durable before it reports), on a database
// of compressible text and random blobs; quiet, then with a CPU-bound
// process competing for the cores. Wall time, CPU time (user + system of
// the whole process tree, from wait4) and peak RSS; interleaved runs.

func pipelineReport(dbtool: String, fixturesDirectory: String, repetitions: Int) throws -> String {
    let scratch = fixturesDirectory + "/pipeline"
    try? FileManager.default.removeItem(atPath: scratch)
    let directory = scratch + "/db"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    for tool in ["/usr/bin/tar", "/usr/bin/zstd", "/usr/bin/sha256sum", "/usr/bin/tee"] where !FileManager.default.isExecutableFile(atPath: tool) {
        throw BenchmarkError(description: "\(tool) not found: `make bench-deps` installs it")
    }
    log("pipeline: building a database of 500,000 rows (hex text and random blobs)")
    let database = directory + "/db.sqlite"
    do {
        let db = try RawConnection(path: database)
        try db.execute(
            """
            PRAGMA journal_mode = WAL; CREATE TABLE b (id INTEGER PRIMARY KEY, x TEXT, y BLOB);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500000)
            INSERT INTO b(x, y) SELECT hex(randomblob(150)), randomblob(200) FROM c
            """)
    }
    let size = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)?.int64Value ?? 0
    let archive = scratch + "/backup.tar.zst"
    let fifo = scratch + "/hash.fifo"
    let pipeline =
        "mkfifo \(fifo) && { sha256sum < \(fifo) > /dev/null & } && tar -cf - -C \(scratch) db | tee \(fifo) | zstd -3 -q > \(archive); "
        + "status=$?; wait; rm -f \(fifo); sync \(archive); exit $status"

    var rows: [String] = []
    for loaded in [false, true] {
        // A CPU-bound process competing for the cores (a shell loop).
        var competitor: pid_t = 0
        if loaded {
            let command: [String] = ["/bin/sh", "-c", "while :; do :; done"]
            let argv = command.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            guard posix_spawn(&competitor, "/bin/sh", nil, nil, argv, environ) == 0 else {
                throw BenchmarkError(description: "can not start the competing process")
            }
        }
        defer {
            if competitor > 0 {
                kill(competitor, SIGKILL)
                var status: Int32 = 0
                waitpid(competitor, &status, 0)
            }
        }
        var dbtoolRuns: [Measured] = []
        var pipelineRuns: [Measured] = []
        for round in 0...repetitions {  // round 0 warms the page cache up
            for first in round % 2 == 0 ? [true, false] : [false, true] {
                try? FileManager.default.removeItem(atPath: archive)
                let measured =
                    first
                    ? try measure(dbtool, ["backup", "--database", directory, "--output", archive, "--level", "3", "--quiet"])
                    : try measure("/bin/bash", ["-c", pipeline])
                if round > 0 { if first { dbtoolRuns.append(measured) } else { pipelineRuns.append(measured) } }
            }
        }
        let wall = median(dbtoolRuns.map(\.seconds)) / median(pipelineRuns.map(\.seconds))
        let cpu = median(dbtoolRuns.map(\.cpuSeconds)) / median(pipelineRuns.map(\.cpuSeconds))
        let label = loaded ? "with a CPU-bound process" : "quiet"
        rows.append(
            "| \(label) | wall | \(String(format: "%.2f s", median(dbtoolRuns.map(\.seconds)))) | "
                + "\(String(format: "%.2f s", median(pipelineRuns.map(\.seconds)))) | \(String(format: "%.2fx", wall)) | <= 1.1x | \(wall <= 1.1 ? "yes" : "no") |")
        rows.append(
            "| \(label) | CPU | \(String(format: "%.2f s", median(dbtoolRuns.map(\.cpuSeconds)))) | "
                + "\(String(format: "%.2f s", median(pipelineRuns.map(\.cpuSeconds)))) | \(String(format: "%.2fx", cpu)) | <= 1.15x | \(cpu <= 1.15 ? "yes" : "no") |")
        if !loaded {
            rows.append("| quiet | peak RSS | \((dbtoolRuns.map(\.maxRSSKiB).max() ?? 0) / 1024) MiB | | | < 64 MiB | "
                + "\((dbtoolRuns.map(\.maxRSSKiB).max() ?? 0) < 64 * 1024 ? "yes" : "no") |")
        }
    }
    return """
        ### dbtool backup against the same work by standard tools (whole processes, median of \(repetitions) interleaved runs)

        - Machine: \(machineDescription())
        - A \(size >> 20) MiB database (500,000 rows of 300 hex characters and a 200-byte random blob). dbtool: \
        `backup --output FILE --level 3`, which also writes the manifest with the SHA-256 of every file. Standard tools: \
        `tar -cf - DIR | tee FIFO | zstd -3`, with `sha256sum < FIFO` hashing the same bytes, then `sync FILE` (dbtool \
        syncs the archive before it reports success). CPU is user + system \
        time of each process tree. Loaded: a shell loop spinning on one core for the whole measurement.

        | Machine | Measure | dbtool | tar, sha256sum, zstd | ratio | target | met |
        | --- | --- | ---: | ---: | ---: | ---: | :---: |
        \(rows.joined(separator: "\n"))
        """
}
