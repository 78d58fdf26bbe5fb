import DatabaseKit
import Foundation

/// `dbtool restore --live`: a checked, extracted backup copied into a
/// database that applications keep using.
///
/// The database's content goes through SQLite's online backup API in one
/// step, that is one write transaction of the live database: its other
/// connections wait for it like for any writer, then see the restored
/// content; none of them writes into a file that is then thrown away. The
/// archive's other files then replace theirs, each by one rename.
struct LiveRestore {
    /// The extracted and checked directory.
    let staging: String
    /// DIR, whose database is live.
    let target: String
    /// The database's file name in both.
    let databaseFile: String
    /// How long to wait for the live database's write lock.
    let timeout: TimeInterval

    func run() throws {
        let database = DatabaseHandle(location: DatabaseLocation(path: target + "/" + databaseFile), timeout: timeout)
        let location = database.location
        let destination = try database.openQueue()
        defer { try? destination.close() }
        var configuration = Configuration()
        configuration.readonly = true
        let sourcePath = staging + "/" + databaseFile
        let source = try location.reportingErrors { try DatabaseQueue(path: sourcePath, configuration: configuration) }
        defer { try? source.close() }
        try database.reportingErrors {
            let pageSize = try source.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
            let (livePageSize, journalMode) = try destination.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA page_size"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
            }
            // SQLite can not change the page size of a WAL database.
            if journalMode == "wal" && pageSize != livePageSize {
                throw DBToolError(
                    .dataError,
                    "the backup's page size (\(pageSize ?? 0)) differs from the live database's (\(livePageSize ?? 0)) in \(location.filePath), which a database in WAL mode can not change online; nothing was changed",
                    hint: "Stop the application, then restore without --live.")
            }
            try source.backup(to: destination)
        }
        try replaceOtherFiles(in: "")
        try FileSystem.sync(target)
    }

    /// Renames each file of the staging directory (but the database and its
    /// companions, at the top) over its counterpart in DIR; creates missing
    /// directories.
    private func replaceOtherFiles(in relative: String) throws {
        let from = relative.isEmpty ? staging : staging + "/" + relative
        let names = try FileSystem.contentsOfDirectory(from)
        let skipped: Set<String> = relative.isEmpty ? Set(DatabaseFiles.suffixes.map { databaseFile + $0 }) : []
        for name in names where !skipped.contains(name) {
            let path = relative.isEmpty ? name : relative + "/" + name
            let source = staging + "/" + path
            let destination = target + "/" + path
            if let info = try FileSystem.status(source, followingLinks: false), info.kind == .directory {
                if !FileSystem.isDirectory(destination) {
                    try createPrivateDirectory(destination, mode: info.permissions)
                }
                try replaceOtherFiles(in: path)
                continue
            }
            do {
                try FileSystem.rename(source, to: destination)
            } catch {
                throw DBToolError(
                    .cantCreate,
                    "the database \(target)/\(databaseFile) is restored, but \(destination) could not be replaced: \(error.errno)",
                    hint: "Check the permissions of \(target); the file from the backup is not kept.")
            }
        }
    }
}
