import BenchSQLite
import Foundation

/// The implementations compared on every workload (SQLiteNIO where it has
/// an API for it).
enum Implementation: String, CaseIterable, Sendable {
    case raw = "raw-c"
    case databaseKit = "databasekit"
    case grdb = "grdb"
    case sqliteNIO = "sqlite-nio"

    var title: String {
        switch self {
        case .raw: return "raw C"
        case .databaseKit: return "DatabaseKit"
        case .grdb: return "GRDB 7.10"
        case .sqliteNIO: return "SQLiteNIO 1.13.2"
        }
    }
}

/// What one run of a workload measured.
struct Outcome: Sendable {
    /// The duration of the timed region, in seconds.
    var seconds: Double
    /// A value computed from the work's result, checked against the expected one
    /// (outside the timed region), so that a run can never get faster by doing less.
    var checksum: Int64
    /// For the memory workload: the RSS growth, in MiB.
    var rssGrowthMiB: Double? = nil
}

/// A benchmark workload, implemented once per implementation that has an
/// API for it.
struct Workload: Sendable {
    let id: String
    let title: String
    /// Included in `make bench-instructions`.
    let countsInstructions: Bool
    let expectedChecksum: @Sendable (Fixtures) -> Int64
    /// Nil when the implementation has no API for the workload.
    let run: @Sendable (Implementation, Fixtures) throws -> Outcome?
}

/// The part of a run that is timed, and the only part callgrind instruments
/// (client requests, with `--instr-atstart=no`).
@inline(never)
func measuredRegion<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    bench_instrumentation_start()
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    let end = DispatchTime.now().uptimeNanoseconds
    bench_instrumentation_stop()
    return (result, Double(end - start) / 1e9)
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
}

/// Runs a workload once with an implementation, and checks its result; nil
/// when the implementation has no API for the workload.
func runChecked(_ workload: Workload, _ implementation: Implementation, _ fixtures: Fixtures) throws -> Outcome? {
    guard let outcome = try workload.run(implementation, fixtures) else { return nil }
    let expected = workload.expectedChecksum(fixtures)
    guard outcome.checksum == expected else {
        throw BenchmarkError(description: "\(workload.id) with \(implementation.title): checksum \(outcome.checksum), expected \(expected)")
    }
    return outcome
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The medians of one workload.
struct TimingResult {
    let workload: Workload
    var seconds: [Implementation: Double] = [:]
    var rssGrowthMiB: [Implementation: Double] = [:]
}

/// Runs every workload: one warm-up run of each implementation, then
/// `repetitions` rounds with the implementations in rotating order
/// (A B C, B C A, C A B, ...).
func runTimings(_ workloads: [Workload], fixtures: Fixtures, repetitions: Int) throws -> [TimingResult] {
    var results: [TimingResult] = []
    for workload in workloads {
        log("\(workload.title)")
        for implementation in Implementation.allCases {
            _ = try runChecked(workload, implementation, fixtures)
        }
        var samples: [Implementation: [Double]] = [:]
        var rss: [Implementation: [Double]] = [:]
        let order = Implementation.allCases
        for round in 0..<repetitions {
            for offset in 0..<order.count {
                let implementation = order[(round + offset) % order.count]
                guard let outcome = try runChecked(workload, implementation, fixtures) else { continue }
                samples[implementation, default: []].append(outcome.seconds)
                if let growth = outcome.rssGrowthMiB { rss[implementation, default: []].append(growth) }
            }
        }
        var result = TimingResult(workload: workload)
        for implementation in order {
            if let values = samples[implementation] { result.seconds[implementation] = median(values) }
            if let values = rss[implementation] { result.rssGrowthMiB[implementation] = values.max() }
        }
        log(
            "    "
                + order.map { implementation in
                    result.seconds[implementation].map { "\(implementation.title) \(String(format: "%.4fs", $0))" } ?? "\(implementation.title) -"
                }.joined(separator: "  "))
        results.append(result)
    }
    return results
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The 1-minute load average.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
        .split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
}

/// The CPU model and count.
func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
    var uts = utsname()
    uname(&uts)
    let release = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    return "\(model), \(cores) cores, \(memory) GiB, Linux \(release)"
}

/// The resident set size of this process, in MiB.
func currentRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = status.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}
