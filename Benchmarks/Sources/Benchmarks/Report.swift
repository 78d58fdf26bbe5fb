import BenchSQLite
import Foundation

/// The targets of the performance issues: DatabaseKit / raw C at most this
/// ratio, in instructions (for pool reads, in time: 1 / 0.6 is at least 60%
/// of raw C's reads per second).
let targets: [String: Double] = [
    "insert-positional": 1.3, "insert-named": 1.6,
    "fetch-index": 1.15, "fetch-name": 1.35,
    "fetch-struct": 1.45, "fetch-decodable": 2.0,
    "transactions": 1.2, "point-queries": 1.5, "pool-reads": 1 / 0.6,
    // The explicit statement and the implicit SQL paths: 1.45x raw C each.
    "insert-sql": 1.45, "point-queries-statement": 1.45,
    // The C baseline binds and reads the columns by hand; a record also
    // encodes or decodes itself.
    "record-insert-codable": 2.2, "record-insert-manual": 2.2,
    "record-fetch-codable": 1.6, "record-fetch-manual": 1.6,
    // The query interface: at most 1.3x the same fetch written in SQL
    // (record-fetch-manual measures 1.29x raw C; the C filter decodes too).
    "qi-fetch-id": 1.7, "qi-filter-all": 1.3,
    // Associations: the join or prefetch query and decoding, by hand.
    "assoc-prefetch": 1.3, "assoc-join": 1.3,
    // Observation: a write no observation tracks. (A tracked write costs
    // the fetch it asks for: no target but GRDB.)
    "observed-elsewhere": 1.5,
]
/// Cursor memory: the RSS growth must stay under this many MiB.
let memoryTargetMiB = 16.0

func timingReport(_ results: [TimingResult], repetitions: Int, loadBefore: String, loadAfter: String) -> String {
    var lines: [String] = []
    lines.append("### Timings (median of \(repetitions) interleaved runs, release build)")
    lines.append("")
    lines.append("- Date: \(ISO8601DateFormatter().string(from: Date()))")
    lines.append("- Machine: \(machineDescription())")
    lines.append("- SQLite: \(String(cString: sqlite3_libversion())) (the system library) for raw C, DatabaseKit and GRDB; SQLiteNIO builds its own 3.53")
    lines.append("- Load average before: \(loadBefore); after: \(loadAfter)")
    lines.append("")
    lines.append(
        "| Workload | raw C | DatabaseKit | GRDB 7.10 | SQLiteNIO 1.13.2 | DatabaseKit / raw | DatabaseKit / GRDB | target | met |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
    for result in results {
        let raw = result.seconds[.raw]!
        let dk = result.seconds[.databaseKit]!
        let grdb = result.seconds[.grdb]!
        if result.workload.id == "cursor-memory" {
            let dkMiB = result.rssGrowthMiB[.databaseKit] ?? 0
            let cells = Implementation.allCases.map { implementation in
                result.seconds[implementation].map { "\(mib(result.rssGrowthMiB[implementation] ?? 0)) (\(secs($0)))" } ?? "-"
            }
            lines.append(
                "| \(result.workload.title) | \(cells.joined(separator: " | ")) "
                    + "| \(ratio(dk / raw)) time | \(ratio(dk / grdb)) time | < \(Int(memoryTargetMiB)) MiB | \(dkMiB < memoryTargetMiB && dk < grdb ? "yes" : "no") |"
            )
            continue
        }
        let target = targets[result.workload.id] ?? .nan
        let met = dk / raw <= target && dk < grdb
        let cells = Implementation.allCases.map { implementation -> String in
            guard let seconds = result.seconds[implementation] else { return "-" }
            guard result.workload.id == "pool-reads" else { return secs(seconds) }
            let reads = Double(Fixtures.poolReaderCount * Fixtures.pointQueryCount)
            return "\(secs(seconds)) (\(Int(reads / seconds / 1000))k reads/s)"
        }
        let targetCell = result.workload.id == "pool-reads" ? ">= \(Int((100 / target).rounded()))% of raw reads/s" : "<= \(ratio(target))"
        lines.append(
            "| \(result.workload.title) | \(cells.joined(separator: " | ")) | \(ratio(dk / raw)) | \(ratio(dk / grdb)) | \(targetCell) | \(met ? "yes" : "no") |"
        )
    }
    lines.append("")
    lines.append("\"met\": DatabaseKit / raw C within the target, and DatabaseKit faster than GRDB in the same run. \"-\": no API for the workload.")
    return lines.joined(separator: "\n")
}

/// Runs each workload once per implementation under callgrind, counting the
/// instructions of the timed region only, and reports the counts and ratios
/// (for RESULTS.md) and each implementation's ratio to raw C (for the README).
func instructionReport(_ workloads: [Workload], fixturesDirectory: String) throws -> (report: String, summary: String) {
    let executable = try executableWithoutDebugInfo()
    defer { try? FileManager.default.removeItem(atPath: executable) }
    var lines: [String] = []
    lines.append("### Instructions (callgrind, timed region only, one run each)")
    lines.append("")
    lines.append("- Machine: \(machineDescription()); SQLite \(String(cString: sqlite3_libversion()))")
    lines.append(
        "- Command: `valgrind --tool=callgrind --instr-atstart=no Benchmarks once WORKLOAD IMPLEMENTATION` (instrumentation on inside the timed region only)"
    )
    lines.append(
        "- SQLiteNIO runs its own SQLite 3.53 (other compile options) through a thread pool: its counts include that SQLite and NIO's threads")
    lines.append("")
    var summary: [String] = []
    summary.append("| Workload (instructions / raw C's) | DatabaseKit | GRDB 7.10 | SQLiteNIO 1.13.2 | target |")
    summary.append("| --- | ---: | ---: | ---: | ---: |")
    lines.append(
        "| Workload | raw C | DatabaseKit | GRDB 7.10 | SQLiteNIO 1.13.2 | DatabaseKit / raw | DatabaseKit / GRDB | target | met |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
    var floorLines: [String] = []
    for workload in workloads {
        log(workload.title)
        var counts: [Implementation: Double] = [:]
        for implementation in Implementation.allCases {
            guard let count = try callgrindInstructions(executable, ["once", workload.id, implementation.rawValue], fixturesDirectory)
            else { continue }
            counts[implementation] = count
            log("    \(implementation.title): \(Int(count)) instructions")
        }
        let raw = counts[.raw]!
        let dk = counts[.databaseKit]!
        let grdb = counts[.grdb]!
        // Without a target (the cost is the fetch the workload asks for):
        // met when ahead of GRDB.
        let target = targets[workload.id] ?? .infinity
        let targetCell = target.isFinite ? "<= \(ratio(target))" : "-"
        let met = dk / raw <= target && dk < grdb
        lines.append(
            "| \(workload.title) | \(Implementation.allCases.map { counts[$0].map(millions) ?? "-" }.joined(separator: " | ")) "
                + "| \(ratio(dk / raw)) | \(ratio(dk / grdb)) | \(targetCell) | \(met ? "yes" : "no") |"
        )
        let ratios = [Implementation.databaseKit, .grdb, .sqliteNIO].map { counts[$0].map { ratio($0 / raw) } ?? "-" }
        summary.append("| \(workload.title) | \(ratios.joined(separator: " | ")) | \(targetCell) |")
        if floors[workload.id] != nil, let floor = try callgrindInstructions(executable, ["floor", workload.id], fixturesDirectory) {
            log("    floor: \(Int(floor)) instructions")
            let rows = Double(Fixtures.rowsPerRun[workload.id] ?? 1)
            floorLines.append(
                "| \(workload.title) | \(millions(raw)) | \(millions(floor)) | \(millions(dk)) | \(ratio(floor / raw)) | \(ratio(dk / raw)) "
                    + "| <= \(ratio(target)) | \(Int(((raw * target - floor) / rows).rounded())) | \(Int(((dk - floor) / rows).rounded())) |")
        }
    }
    if !floorLines.isEmpty {
        lines.append("")
        lines.append("#### Floors: what the API costs by itself")
        lines.append("")
        lines.append(
            "The raw C workload with what GRDB's API imposes on any implementation, and nothing else (`Benchmarks floor WORKLOAD`): "
                + "for the `Codable` workloads, each record going through its synthesized `init(from:)` or `encode(to:)` and the cheapest "
                + "coder those allow (property n reads column n or binds parameter n; the keyed container is reused; `CodableFloors.swift`); "
                + "for positional inserts, each row's values given as the argument literal `[v0, ..., v9]`, an array of "
                + "`(any DatabaseValueConvertible)?`, and bound as they are read (`ArgumentFloors.swift`). \"Left by the target\" is what the "
                + "target leaves, per row or record, for all the work beyond the floor; \"DatabaseKit over the floor\" is what DatabaseKit "
                + "spends there.")
        lines.append("")
        lines.append(
            "| Workload | raw C | floor | DatabaseKit | floor / raw | DatabaseKit / raw | target | left by the target, per row | DatabaseKit over the floor, per row |"
        )
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        lines.append(contentsOf: floorLines)
    }
    return (lines.joined(separator: "\n"), summary.joined(separator: "\n"))
}

/// A copy of this executable without its DWARF sections: valgrind 3.19 gives
/// up on the DWARF 5 forms that clang writes for SQLiteNIO's C target, and
/// counting instructions needs only the symbol table.
private func executableWithoutDebugInfo() throws -> String {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    let copy = NSTemporaryDirectory() + "Benchmarks-\(UUID().uuidString)"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
    process.arguments = ["--strip-debug", executable, copy]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError(description: "objcopy --strip-debug \(executable) failed (status \(process.terminationStatus))")
    }
    return copy
}

/// The instructions of one run of this executable with `runArguments`
/// (`once WORKLOAD IMPLEMENTATION`, `floor WORKLOAD`), timed region only;
/// nil when the implementation has no API for the workload.
private func callgrindInstructions(_ executable: String, _ runArguments: [String], _ fixturesDirectory: String) throws -> Double? {
    let output = NSTemporaryDirectory() + "callgrind-\(runArguments.joined(separator: "-"))-\(UUID().uuidString).out"
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/valgrind")
    process.arguments = [
        "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=\(output)",
        executable,
    ] + runArguments
    var environment = ProcessInfo.processInfo.environment
    environment["BENCH_FIXTURES"] = fixturesDirectory
    process.environment = environment
    process.standardError = FileHandle.nullDevice
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let stdout = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    if process.terminationStatus == 0 && stdout.hasPrefix("n/a") { return nil }
    guard process.terminationStatus == 0, stdout.hasPrefix("ok") else {
        throw BenchmarkError(description: "callgrind run of \(runArguments.joined(separator: " ")) failed: \(stdout)")
    }
    let profile = try String(contentsOfFile: output, encoding: .utf8)
    // With --instr-atstart=no, "summary:" stays 0: the count is on "totals:".
    for line in profile.split(separator: "\n") where line.hasPrefix("totals:") {
        if let count = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) { return count }
    }
    throw BenchmarkError(description: "no instruction total in \(output)")
}

/// Replaces the section of RESULTS.md between its markers, keeping the rest.
func updateResults(at path: String, section: String, with report: String) throws {
    let begin = "<!-- \(section):begin -->"
    let end = "<!-- \(section):end -->"
    var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmark results\n"
    let block = "\(begin)\n\(report)\n\(end)"
    if let start = text.range(of: begin), let stop = text.range(of: end), start.lowerBound < stop.upperBound {
        text.replaceSubrange(start.lowerBound..<stop.upperBound, with: block)
    } else {
        text += "\n\(block)\n"
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

private func secs(_ seconds: Double) -> String { String(format: "%.4f s", seconds) }
private func mib(_ value: Double) -> String { String(format: "%.1f MiB", value) }
private func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }
private func millions(_ value: Double) -> String { String(format: "%.1f M", value / 1e6) }
