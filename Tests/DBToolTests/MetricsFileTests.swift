import DatabaseKit
import Foundation
import Testing
import TestSupport

/// `--metrics-file` shared by runs and tools: never a file dbtool did not
/// write, other tools' lines kept as they were, and no sample lost when runs
/// end together.
@Suite("--metrics-file: one file, many writers")
struct MetricsFileTests {
    let scratch = TemporaryDirectory()

    @Test("a file that is not metrics is refused (73) and untouched; a directory or a FIFO is a usage error (64); a missing folder is named")
    func refusals() throws {
        let database = try scratch.makeDatabase()
        let config = scratch.file("app.conf")
        try Data("listen = 8080\n[database]\npath = /var/lib/app\n".utf8).write(to: URL(fileURLWithPath: config))
        for command in [["check"], ["checkpoint"], ["vacuum", "--live"]] {
            let result = try dbtool(command + ["--database", database, "--metrics-file", config])
            #expect(result.status == 73, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(config) && result.stderr.contains("nothing was changed"), "\(result.stderr)")
        }
        #expect(FileManager.default.contents(atPath: config) == Data("listen = 8080\n[database]\npath = /var/lib/app\n".utf8))
        let directory = try dbtool(["check", "--database", database, "--metrics-file", scratch.path])
        #expect(directory.status == 64 && directory.stderr.contains("a directory"), "\(directory.stderr)")
        let fifo = scratch.file("metrics.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let start = Date()
        let pipe = try dbtool(["check", "--database", database, "--metrics-file", fifo])
        #expect(pipe.status == 64 && Date().timeIntervalSince(start) < 10, "\(pipe.stderr)")
        let missing = try dbtool(["check", "--database", database, "--metrics-file", scratch.file("no/such/dir/dbtool.prom")])
        #expect(missing.status == 73 && missing.stderr.contains(scratch.file("no/such/dir") + " does not exist"), "\(missing.stderr)")
        #expect(!missing.stderr.contains(".dbtool-write-"), "a temp file is named: \(missing.stderr)")
    }

    @Test("other tools' lines stay as they were, in their order; Prometheus's parser reads the whole file")
    func foreignLinesVerbatim() throws {
        let database = try scratch.makeDatabase()
        let metrics = scratch.file("node.prom")
        let foreign = """
            # HELP node_backup_age_seconds Age of the last tape backup.
            # TYPE node_backup_age_seconds gauge
            node_backup_age_seconds{volume="/srv"}   3600
            # a comment of the tool that wrote it
            # HELP job_duration_seconds A histogram.
            # TYPE job_duration_seconds histogram
            job_duration_seconds_bucket{le="0.5"} 1
            job_duration_seconds_bucket{le="+Inf"} 2
            job_duration_seconds_sum 1.7
            job_duration_seconds_count 2 1795000000000

            """
        try Data(foreign.utf8).write(to: URL(fileURLWithPath: metrics))
        for command in ["check", "checkpoint", "check"] {
            #expect(try dbtool([command, "--database", database, "--metrics-file", metrics]).status == 0)
        }
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        let kept = foreign.split(separator: "\n").map(String.init)
        #expect(Array(text.split(separator: "\n").map(String.init).prefix(kept.count)) == kept, "\(text)")
        #expect(text.components(separatedBy: "dbtool_last_run_exit_status{").count == 3, "\(text)")
        let parse = try run(
            ObjectStorageServer.python,
            ["-c", "import sys\nfrom prometheus_client.parser import text_string_to_metric_families\nprint(len(list(text_string_to_metric_families(open(sys.argv[1]).read()))))", metrics])
        #expect(parse.status == 0, "\(parse.stderr)")
    }

    @Test("50 pairs of runs ending together on one file: no sample lost")
    func concurrentWriters() throws {
        let database = try scratch.makeDatabase()
        let metrics = scratch.file("dbtool.prom")
        for pair in 0..<50 {
            let started = Date().timeIntervalSince1970
            let runs = try [["check"], ["checkpoint"]].map { command in
                try BackgroundTool(command + ["--database", database, "--metrics-file", metrics, "--quiet"], scratch: scratch)
            }
            for run in runs { #expect(run.wait().status == 0) }
            let text = try String(contentsOfFile: metrics, encoding: .utf8)
            for command in ["check", "checkpoint"] {
                let line = text.split(separator: "\n").first { $0.hasPrefix("dbtool_last_success_timestamp_seconds{command=\"\(command)\"") }
                let value = line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
                #expect(value >= started - 0.01, "pair \(pair): the \(command) run's success was lost: \(line.map(String.init) ?? "no sample")")
            }
        }
        #expect(dbtoolTempFiles(scratch.path).isEmpty)
    }
}
