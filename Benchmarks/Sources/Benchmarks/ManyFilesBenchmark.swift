import BenchSQLite
import Foundation

// `Benchmarks many-files --dbtool PATH`: a database directory of 30,000 small
// files (1 KiB each, 300 folders) beside a small database, backed up,
// verified and restored by dbtool, whole processes timed from the outside,
// interleaved. The target: verify and restore within 2x the backup's time.

func manyFilesReport(dbtool: String, fixturesDirectory: String, repetitions: Int, files: Int = 30_000) throws -> String {
    let scratch = fixturesDirectory + "/many-files"
    try? FileManager.default.removeItem(atPath: scratch)
    let directory = scratch + "/db"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }

    log("many-files: a database directory with \(files) files of 1 KiB")
    do {
        let db = try RawConnection(path: directory + "/db.sqlite")
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT); INSERT INTO t(x) VALUES ('a')")
    }
    var generator = SystemRandomNumberGenerator()
    for index in 0..<files {
        let folder = directory + "/files/\(index / 100)"
        if index % 100 == 0 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let bytes = (0..<1024).map { _ in UInt8.random(in: 32...126, using: &generator) }
        guard FileManager.default.createFile(atPath: folder + "/\(index).txt", contents: Data(bytes)) else {
            throw BenchmarkError(description: "can not write \(folder)/\(index).txt")
        }
    }

    let archive = scratch + "/backup.tar.zst"
    var backups: [Double] = []
    var verifies: [Double] = []
    var restores: [Double] = []
    for round in 0...repetitions {  // round 0 warms the page cache up
        try? FileManager.default.removeItem(atPath: archive)
        let restored = scratch + "/restored"
        try? FileManager.default.removeItem(atPath: restored)
        let backup = try measure(dbtool, ["backup", "--database", directory, "--output", archive, "--quiet"]).seconds
        let verify = try measure(dbtool, ["backup", "verify", archive, "--quiet"]).seconds
        let restore = try measure(dbtool, ["restore", archive, restored, "--quiet"]).seconds
        if round > 0 {
            backups.append(backup)
            verifies.append(verify)
            restores.append(restore)
        }
    }
    let backup = median(backups)
    let verify = median(verifies)
    let restore = median(restores)
    func row(_ name: String, _ seconds: Double) -> String {
        let ratio = seconds / backup
        return "| \(name) | \(String(format: "%.2f s", seconds)) | \(String(format: "%.2fx", ratio)) | <= 2x | \(ratio <= 2 ? "yes" : "no") |"
    }
    return """
        ### Many small files: backup, verify and restore of \(files) files (whole processes, median of \(repetitions) runs)

        - Machine: \(machineDescription())
        - A database directory holding a small database and \(files) files of 1 KiB (text) in \(files / 100) folders; \
        tar.zst at the default level. A restore writes the files into a private staging directory and makes them \
        durable with one `syncfs` of its file system before the swap; a verify's scratch copy is never synced.

        | Command | time | vs backup | target | met |
        | --- | ---: | ---: | ---: | :---: |
        | backup --output | \(String(format: "%.2f s", backup)) | 1.00x | | |
        \(row("backup verify", verify))
        \(row("restore", restore))
        """
}
