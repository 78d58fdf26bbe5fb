import ArgumentParser
import DBToolCore
import Foundation

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a database directory from an archive of dbtool backup.",
        discussion: """
            The archive is read whole and checked against its manifest before anything is written: \
            archives with absolute paths, `..`, links or device entries, and truncated or damaged ones, \
            are refused (65) and nothing changes. The directory is then extracted beside DIR, its \
            database must pass PRAGMA integrity_check, and it takes DIR's place by rename.

            DIR must be empty or missing (its parents are created), unless --force: its content is then \
            moved aside, put back if the restore fails, and deleted once the restore is complete.

            Examples:
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst /var/lib/myapp/db-restored
              dbtool restore /backups/db-20261123T020000.000Z.tar.zst /var/lib/myapp/db --force
            """)

    @Argument(help: "The archive (any format dbtool backup writes).", completion: .file())
    var archive: String

    @Argument(help: "The database directory to restore into.", completion: .directory)
    var directory: String

    @Flag(name: .long, help: "Replace the content of a non-empty DIR.")
    var force = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        var operation = RestoreOperation(archive: archive, directory: directory)
        operation.force = force
        let progress = isTerminal(STDERR_FILENO) && !output.quiet ? ProgressLine(label: "restoring") : nil
        if let progress {
            operation.progress = { done, total in progress.update(bytes: done, total: total) }
        }
        Interruption.install()
        let restore = operation
        runReporting(
            output,
            operation: {
                defer { progress?.finishLine() }
                return try restore.run()
            },
            text: { report in
                "Restored \(report.directory) from \(report.archive)\(report.replaced ? " (its old content replaced)" : ""); "
                    + "integrity_check \(report.integrity).\n" + manifestSummary(report.manifest)
            })
    }
}
