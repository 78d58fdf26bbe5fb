import BenchSQLite
import Foundation

// `Benchmarks backup --dbtool PATH`: `dbtool backup` of a 1 GiB database
// directory against `tar` piping to `zstd` at the same level, whole processes
// timed from the outside; the peak RSS of each (wait4); and the longest
// commit a concurrent writer sees while dbtool backs up, against the
// longest it sees with no backup running.

/// Commits small transactions on its own thread until stopped, recording the
/// longest one (BEGIN IMMEDIATE to COMMIT, busy waits included).
private final class StallProbe: @unchecked Sendable {
    // Safe: `stop` and `longest` are read only after `done` is signalled,
    // and `stop` is only set once, before waiting on `done`.
    private var stop = false
    private(set) var longest: Double = 0
    private(set) var commits = 0
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()

    init(path: String) throws {
        try RawConnection(path: path).execute("CREATE TABLE IF NOT EXISTS probe(id INTEGER PRIMARY KEY, at REAL)")
        let thread = Thread { [self] in
            // The connection is opened and used on this thread only.
            guard let connection = try? RawConnection(path: path) else {
                self.done.signal()
                return
            }
            sqlite3_busy_timeout(connection.handle, 60_000)
            while !self.shouldStop {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    try connection.execute("BEGIN IMMEDIATE; INSERT INTO probe(at) VALUES (julianday('now')); COMMIT")
                } catch {
                    log("stall probe: \(error)")
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                self.record(seconds)
                usleep(1_000)
            }
            self.done.signal()
        }
        thread.start()
    }

    private var shouldStop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stop
    }

    private func record(_ seconds: Double) {
        lock.lock()
        longest = max(longest, seconds)
        commits += 1
        lock.unlock()
    }

    func finish() -> (longest: Double, commits: Int) {
        lock.lock()
        stop = true
        lock.unlock()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return (longest, commits)
    }
}

/// A real S3-API server on loopback: `PYTHON SCRIPT` (scripts/s3-test-server.py)
/// prints its endpoint and key as one JSON line, and serves until stdin closes.
private final class LoopbackObjectStore {
    let process = Process()
    let input = Pipe()
    var environment: [String: String] = [:]

    init(command: String) throws {
        let parts = command.split(separator: " ").map(String.init)
        process.executableURL = URL(fileURLWithPath: parts[0])
        process.arguments = Array(parts.dropFirst())
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("}") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("{") }),
            let values = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        else { throw BenchmarkError(description: "the S3 server \(command) did not start") }
        environment = [
            "AWS_ENDPOINT_URL": values["endpoint"] ?? "", "AWS_ACCESS_KEY_ID": values["accessKeyId"] ?? "",
            "AWS_SECRET_ACCESS_KEY": values["secretAccessKey"] ?? "", "AWS_REGION": "us-east-1",
        ]
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

func backupReport(dbtool: String, fixturesDirectory: String, repetitions: Int, s3Server: String? = nil) throws -> String {
    let scratch = fixturesDirectory + "/backup"
    try? FileManager.default.removeItem(atPath: scratch)
    let directory = scratch + "/db"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    for tool in ["/usr/bin/tar", "/usr/bin/zstd"] where !FileManager.default.isExecutableFile(atPath: tool) {
        throw BenchmarkError(description: "\(tool) not found: `make bench-deps` installs it")
    }

    log("backup: building a 1 GiB database (rows of hex text, about 2:1 compressible)")
    let database = directory + "/db.sqlite"
    do {
        let db = try RawConnection(path: database)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE b (id INTEGER PRIMARY KEY, x TEXT)")
        try db.execute(
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1300000) INSERT INTO b(x) SELECT hex(randomblob(400)) FROM c"
        )
    }
    let size = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)?.int64Value ?? 0

    let archive = scratch + "/backup.tar.zst"
    var dbtoolRuns: [Measured] = []
    var tarRuns: [Measured] = []
    for round in 0...repetitions {  // round 0 warms the page cache up
        for first in round % 2 == 0 ? [true, false] : [false, true] {
            try? FileManager.default.removeItem(atPath: archive)
            let run =
                first
                ? try measure(dbtool, ["backup", "--database", directory, "--output", archive, "--level", "3", "--quiet"])
                : try measure("/usr/bin/tar", ["-I", "zstd -3", "-cf", archive, "-C", scratch, "db"])
            if round > 0 { if first { dbtoolRuns.append(run) } else { tarRuns.append(run) } }
        }
    }
    let dbtoolTime = median(dbtoolRuns.map(\.seconds))
    let tarTime = median(tarRuns.map(\.seconds))
    let dbtoolRSS = dbtoolRuns.map(\.maxRSSKiB).max() ?? 0
    let tarRSS = tarRuns.map(\.maxRSSKiB).max() ?? 0

    log("backup: the longest commit of a concurrent writer, without then with a backup running")
    let idle = try StallProbe(path: database)
    Thread.sleep(forTimeInterval: 3)
    let baseline = idle.finish()
    var stalls: [Double] = []
    var commits = 0
    for _ in 0..<max(3, repetitions / 2) {
        try? FileManager.default.removeItem(atPath: archive)
        let probe = try StallProbe(path: database)
        _ = try measure(dbtool, ["backup", "--database", directory, "--output", archive, "--level", "3", "--quiet"])
        let result = probe.finish()
        stalls.append(result.longest)
        commits += result.commits
    }

    var objectStorage = ""
    if let s3Server {
        log("backup: the same backup streamed to object storage (moto on loopback), against a local file")
        let server = try LoopbackObjectStore(command: s3Server)
        defer { server.stop() }
        for (name, value) in server.environment { setenv(name, value, 1) }
        var uploads: [Measured] = []
        var files: [Measured] = []
        for round in 0...max(1, repetitions / 2) {
            try? FileManager.default.removeItem(atPath: archive)
            let file = try measure(dbtool, ["backup", "--database", directory, "--output", archive, "--level", "3", "--quiet"])
            let upload = try measure(
                dbtool, ["backup", "--database", directory, "--to", "s3://backups/bench/", "--level", "3", "--keep", "1", "--quiet"])
            if round > 0 {
                files.append(file)
                uploads.append(upload)
            }
        }
        let uploadTime = median(uploads.map(\.seconds))
        let fileTime = median(files.map(\.seconds))
        let uploadRSS = uploads.map(\.maxRSSKiB).max() ?? 0
        objectStorage = """


            #### To object storage: `dbtool backup --to s3://` against `--output FILE`, same run

            The same database to moto's S3 API server on loopback (HTTP, SigV4-signed by libcurl; moto keeps objects in \
            memory and is written in Python, so this measures dbtool's pipeline and a slow store, not the network), \
            16 MiB parts, 4 upload threads, median of \(uploads.count) runs each.

            | Measure | --to s3:// | --output FILE | ratio | target | met |
            | --- | ---: | ---: | ---: | ---: | :---: |
            | Wall time | \(String(format: "%.2f s", uploadTime)) | \(String(format: "%.2f s", fileTime)) | \(String(format: "%.2fx", uploadTime / fileTime)) | | |
            | Peak RSS | \(uploadRSS / 1024) MiB | \((files.map(\.maxRSSKiB).max() ?? 0) / 1024) MiB | | < 128 MiB | \(uploadRSS < 128 * 1024 ? "yes" : "no") |
            """
    }

    let gib = Double(size) / Double(1 << 30)
    return """
        ### dbtool backup against tar | zstd (whole processes, median of \(repetitions) interleaved runs)

        - Machine: \(machineDescription())
        - A \(String(format: "%.2f", gib)) GiB database directory in WAL mode; both at zstd level 3; tar is GNU tar piping to the zstd CLI (two processes); dbtool is one process whose threads read, hash, compress and write.

        | Measure | dbtool backup | tar -I 'zstd -3' | ratio | target | met |
        | --- | ---: | ---: | ---: | ---: | :---: |
        | Wall time | \(String(format: "%.2f s", dbtoolTime)) | \(String(format: "%.2f s", tarTime)) | \(String(format: "%.2fx", dbtoolTime / tarTime)) | <= 1.1x | \(dbtoolTime / tarTime <= 1.1 ? "yes" : "no") |
        | Peak RSS | \(dbtoolRSS / 1024) MiB | \(tarRSS / 1024) MiB (tar; zstd not counted) | | < 64 MiB | \(dbtoolRSS < 64 * 1024 ? "yes" : "no") |

        Longest commit of a concurrent writer (BEGIN IMMEDIATE to COMMIT, 1 ms apart): \
        \(String(format: "%.1f ms", baseline.longest * 1000)) with no backup (\(baseline.commits) commits in 3 s); \
        \(String(format: "%.1f ms", (stalls.max() ?? 0) * 1000)) at worst during \(stalls.count) backups (\(commits) commits in all; \
        per backup: \(stalls.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ")) ms). Target: under 1 s.

        The writer waits for the write lock only while dbtool copies the WAL and SHM (`lockSeconds` in its report); \
        the WAL it copies holds what the writer committed during the backup, and the writer's first commit after \
        the backup also checkpoints that WAL, which the backup's read transaction kept from being checkpointed. \
        Both are in the longest commit above.
        """ + objectStorage
}
