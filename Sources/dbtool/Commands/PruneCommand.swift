import ArgumentParser
import DBToolCore

struct PruneBackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete the archives of a directory or prefix that no retention rule keeps.",
        discussion: """
            The rules are those of restic's `forget`, applied to each database's archives on its \
            own (or only to the database of --database): --keep N keeps the newest N; \
            --keep-hourly, --keep-daily, --keep-weekly, --keep-monthly and --keep-yearly N keep the \
            newest archive of each of the last N hours, days, ISO weeks, months or years that have \
            one (UTC); --keep-within DURATION keeps every archive taken within that long of the \
            newest one. An archive kept by any rule stays.

            Only trusted archives count and can be deleted: those whose record (NAME.dbtool.json, \
            written beside each archive once complete) names them with their size. Anything else \
            named like an archive (a file copied there by hand, a truncated upload, an archive \
            written before version 0.5, the archive of a corrupt database) is listed as unverified, never \
            counted, and deleted only with --prune-unverified. A name dated more than a day in \
            the future is never trusted. --dry-run prints what would be deleted.

            `dbtool backup --keep ...` applies the same rules to its database after each successful \
            backup.

            Examples:
              dbtool backup prune /backups --keep-daily 7 --keep-weekly 4 --keep-monthly 12
              dbtool backup prune s3://backups/myapp/ --keep-within 30d --dry-run
              dbtool backup prune /backups --database /var/lib/myapp/db --keep 14
            """)

    @Argument(help: "A directory of archives, or s3://BUCKET/PREFIX/.", completion: .directory, transform: nonEmptyPath)
    var target: String

    @OptionGroup(title: "Retention") var retention: RetentionOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Only the archives of this database (its directory or file); default: every database's.", valueName: "path"),
        completion: .databases, transform: nonEmptyPath)
    var database: String?

    @Option(name: .long, help: "With --database: the name of the database file inside its directory.", transform: plainFileName)
    var fileName: String = DatabaseLocation.defaultFileName

    @Flag(name: .long, help: "Print what would be deleted; delete nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Also delete the archives dbtool can not trust (see above).")
    var pruneUnverified = false

    @OptionGroup(title: "Object storage options") var objectStore: ObjectStoreArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        retention.noteUnits(quiet: output.quiet)
        var operation = PruneOperation(target: target)
        operation.objectStore = objectStore.options
        operation.retention = retention.policy
        operation.database = try database.map { try DatabaseLocation(path: $0, fileName: fileName) }
        operation.dryRun = dryRun
        operation.deletesUnverified = pruneUnverified
        try runReporting(output, operation: { try operation.run() }, text: describe)
    }
}

/// The text of a prune report.
func describe(_ report: PruneOperation.Report) -> String {
    var lines: [String] = []
    let verb = report.dryRun ? "would delete" : "deleted"
    for database in report.databases {
        let name = database.series.map { "\($0.host):\($0.database)" } ?? "(no archive)"
        let gone = report.dryRun ? database.wouldDelete : database.deleted
        lines.append("\(name): kept \(database.kept.count), \(verb) \(gone.count)")
        lines += gone.map { "  \(verb) \($0)" }
        lines += database.failures.map { "  could not delete \($0)" }
    }
    if let unverified = report.unverified {
        let gone = report.dryRun ? unverified.wouldDelete : unverified.deleted
        lines.append("unverified: \(verb) \(gone.count)")
        lines += gone.map { "  \(verb) \($0)" }
        lines += unverified.failures.map { "  could not delete \($0)" }
    }
    lines += report.warnings.map { "warning: \($0)" }
    return lines.isEmpty ? "Nothing to prune in \(report.target)." : lines.joined(separator: "\n")
}
