import Foundation

// Usage:
//   Benchmarks timings [--repetitions N] [--only id,id] [--results FILE]
//   Benchmarks instructions [--only id,id] [--results FILE] [--readme docs/performance.md]
//   Benchmarks tools --dbtool PATH [--repetitions N] [--results FILE]
//   Benchmarks backup --dbtool PATH [--repetitions N] [--results FILE] [--s3-server COMMAND]
//   Benchmarks pipeline --dbtool PATH [--repetitions N] [--results FILE]
//   Benchmarks many-files --dbtool PATH [--repetitions N] [--results FILE]
//   Benchmarks large-migration --dbtool PATH [--repetitions N] [--results FILE]
//   Benchmarks fleet --dbtool PATH [--repetitions N] [--results FILE]
//   Benchmarks once WORKLOAD IMPLEMENTATION   (one checked run, for callgrind; prints the checksum and the seconds)
//   Benchmarks floor WORKLOAD                 (the same, for the floor of a workload: CodableFloors.swift, ArgumentFloors.swift)
// Fixtures live in $BENCH_FIXTURES (default: a directory under /tmp).

let mode = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "timings"
let arguments = Array(CommandLine.arguments.dropFirst(2))

func option(_ name: String) -> String? {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// A report of the modes that time the dbtool at `--dbtool` (`--repetitions`
/// runs, `repetitions` by default): printed, and written to the section of
/// `--results` when given.
func dbtoolReport(section: String, repetitions: Int, _ report: (String, Int) throws -> String) throws {
    guard let dbtool = option("--dbtool") else { throw BenchmarkError(description: "usage: Benchmarks \(section) --dbtool PATH") }
    let text = try report(dbtool, option("--repetitions").flatMap(Int.init) ?? repetitions)
    print(text)
    if let path = option("--results") { try updateResults(at: path, section: section, with: text) }
}

let fixturesDirectory = ProcessInfo.processInfo.environment["BENCH_FIXTURES"] ?? NSTemporaryDirectory() + "databasekit-bench-fixtures"
let selected: [Workload] = {
    guard let only = option("--only") else { return allWorkloads }
    let ids = Set(only.split(separator: ",").map(String.init))
    return allWorkloads.filter { ids.contains($0.id) }
}()

do {
    let fixtures = try Fixtures.prepare(in: fixturesDirectory)
    switch mode {
    case "timings":
        let repetitions = option("--repetitions").flatMap(Int.init) ?? 5
        let loadBefore = loadAverage()
        let results = try runTimings(selected, fixtures: fixtures, repetitions: repetitions)
        let loadAfter = loadAverage()
        let report = timingReport(results, repetitions: repetitions, loadBefore: loadBefore, loadAfter: loadAfter)
        print(report)
        if let path = option("--results") { try updateResults(at: path, section: "timings", with: report) }
    case "instructions":
        let (report, summary) = try instructionReport(selected.filter(\.countsInstructions), fixturesDirectory: fixturesDirectory)
        print(report)
        if let path = option("--results") { try updateResults(at: path, section: "instructions", with: report) }
        if let path = option("--readme") { try updateResults(at: path, section: "bench-instructions", with: summary) }
    case "tools":
        try dbtoolReport(section: "tools", repetitions: 5) { try toolReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1) }
    case "backup":
        try dbtoolReport(section: "backup", repetitions: 3) {
            try backupReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1, s3Server: option("--s3-server"))
        }
    case "pipeline":
        try dbtoolReport(section: "pipeline", repetitions: 3) {
            try pipelineReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1)
        }
    case "many-files":
        try dbtoolReport(section: "many-files", repetitions: 3) {
            try manyFilesReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1)
        }
    case "large-migration":
        try dbtoolReport(section: "large-migration", repetitions: 3) {
            try largeMigrationReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1)
        }
    case "fleet":
        try dbtoolReport(section: "fleet", repetitions: 3) {
            try fleetReport(dbtool: $0, fixturesDirectory: fixturesDirectory, repetitions: $1)
        }
    case "once":
        guard arguments.count >= 2,
            let workload = allWorkloads.first(where: { $0.id == arguments[0] }),
            let implementation = Implementation(rawValue: arguments[1])
        else { throw BenchmarkError(description: "usage: Benchmarks once WORKLOAD IMPLEMENTATION") }
        if let outcome = try runChecked(workload, implementation, fixtures) {
            print("ok \(outcome.checksum) \(String(format: "%.4f", outcome.seconds)) s")
        } else {
            print("n/a")
        }
    case "floor":
        guard let id = arguments.first, let workload = allWorkloads.first(where: { $0.id == id }), let floor = floors[id] else {
            throw BenchmarkError(description: "usage: Benchmarks floor \(floors.keys.sorted().joined(separator: "|"))")
        }
        let outcome = try floor(fixtures)
        guard outcome.checksum == workload.expectedChecksum(fixtures) else {
            throw BenchmarkError(description: "floor of \(id): checksum \(outcome.checksum), expected \(workload.expectedChecksum(fixtures))")
        }
        print("ok \(outcome.checksum) \(String(format: "%.4f", outcome.seconds)) s")
    default:
        throw BenchmarkError(description: "unknown mode \(mode): use timings, instructions, tools, backup, pipeline, many-files, once or floor")
    }
} catch {
    log("error: \(error)")
    exit(1)
}
