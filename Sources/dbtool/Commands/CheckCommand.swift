import ArgumentParser
import DBToolCore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a database: integrity, foreign keys, header and WAL.",
        discussion: """
            Compares the header with the file, then runs PRAGMA quick_check (--full: \
            integrity_check, which also checks every index against its table) and PRAGMA \
            foreign_key_check, in one read transaction: on a WAL database the application's \
            writers never wait for it. Every line SQLite reports is kept, also when it stops on \
            damage part-way. Warns when the WAL is larger than the database (or --max-wal). \
            Exits 0 when the database is sound, 65 when it is damaged (the report names the \
            tables, pages and rows), 75 when a lock was held past --timeout.

            Examples:
              dbtool check --database /var/lib/myapp/db
              dbtool check --database /var/lib/myapp/db --full --format json
            """)

    @Flag(name: .long, help: "integrity_check instead of quick_check: slower, also checks that indexes match their tables.")
    var full = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Warn when the WAL is larger than this: 256MiB, 1GiB (default: the database's size, 64MiB at least).", valueName: "size"),
        transform: { text in
            guard let bytes = ByteCount.parse(text) else {
                throw ValidationError("--max-wal takes a size such as 256MiB or 1GiB (got \(text))")
            }
            return bytes
        })
    var maxWal: Int64?

    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let full = self.full
        let maxWAL = maxWal
        try runOverDatabases("check", database, fleet, output, metrics: metrics) { handle in
            var operation = CheckOperation(database: handle)
            operation.full = full
            operation.maxWALSize = maxWAL
            return (try operation.run(), nil)
        } text: { report in
            var lines = [
                "\(report.database): \(report.healthy ? "sound" : "DAMAGED") (\(report.check)); \(report.pageCount) pages of \(report.pageSize) bytes, \(report.freelistCount) free; WAL \(report.walSize) bytes."
            ]
            lines += report.problems.prefix(20).map { "  \($0)" }
            if report.problems.count > 20 { lines.append("  … \(report.problems.count - 20) more") }
            if report.foreignKeyViolationCount > 0 {
                lines.append("  \(report.foreignKeyViolationCount) row(s) reference missing rows:")
                lines += report.foreignKeyViolations.prefix(20).map {
                    "    \($0.table) rowid \($0.rowid.map(String.init) ?? "-") -> \($0.parent)"
                }
            }
            lines += report.warnings.map { "  warning: \($0)" }
            return lines.joined(separator: "\n")
        }
    }
}
