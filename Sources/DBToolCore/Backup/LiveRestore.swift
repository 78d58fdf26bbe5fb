import DatabaseKit
import Dispatch
import FoundationEssentials

/// `dbtool restore --live`: a checked, extracted backup copied into a
/// database that applications keep using.
///
/// The database's content goes through SQLite's online backup API in one
/// step, that is one write transaction of the live database: its other
/// connections wait for it like for any writer, then see the restored
/// content; none of them writes into a file that is then thrown away. The
/// archive's other files then replace theirs, each by one rename made
/// relative to the directories' descriptors: nothing is moved through a
/// link planted in DIR (`DIR/subdir -> /elsewhere`), and such a link, or a
/// file where the backup has a folder, is refused (65) before anything is
/// changed. Nothing of DIR is deleted: files the archive does not hold stay.
struct LiveRestore {
    /// The extracted and checked directory.
    let staging: DirectoryDescriptor
    /// DIR, whose database is live.
    let target: String
    /// DIR's database, as the application opens it.
    let database: String
    /// The database's file name in the staging directory.
    let databaseFile: String
    /// How long to wait for the live database's write lock.
    let timeout: TimeInterval

    /// Restores; returns how long the live database's writers were kept
    /// waiting by the copy, in seconds.
    func run() throws -> TimeInterval {
        let targetDirectory = try DirectoryDescriptor.open(target)
        defer { targetDirectory.close() }
        var moves: [Move] = []
        var opened: [DirectoryDescriptor] = []
        defer { for descriptor in opened { descriptor.close() } }
        try plan(from: staging, to: targetDirectory, relative: "", into: &moves, opened: &opened)

        let handle = DatabaseHandle(location: try DatabaseLocation(path: database), timeout: timeout)
        let location = handle.location
        let destination = try handle.openQueue()
        defer { try? destination.close() }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.followsSymbolicLinks = false
        let source = try location.reportingErrors { try DatabaseQueue(path: staging.path(of: databaseFile), configuration: configuration) }
        defer { try? source.close() }
        let stall = try handle.reportingErrors { () -> TimeInterval in
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
            let start = DispatchTime.now()
            try source.backup(to: destination)
            return seconds(since: start)
        }
        for move in moves { try move.apply() }
        do {
            try targetDirectory.sync()
        } catch {
            throw error.reported(.ioError)
        }
        return stall
    }

    /// One rename that puts a staged file, or a whole staged folder that DIR
    /// lacks, in DIR.
    private struct Move {
        let from: DirectoryDescriptor
        let to: DirectoryDescriptor
        let name: String
        /// The path in DIR, for messages.
        let path: String

        func apply() throws {
            do {
                try from.rename(name, to: to, as: name)
            } catch {
                throw DBToolError(
                    error.errno.isPermissionDenied ? .noPermission : .cantCreate,
                    "the database is restored, but \(path) could not be replaced: \(error.errno)",
                    hint: "Check the permissions of its folder; the file from the backup is not kept.")
            }
        }
    }

    /// The moves that put the staging directory's files (but the database
    /// and its companions, at the top) over their counterparts in DIR; a
    /// folder DIR lacks moves whole. Refuses a link or a file where a folder
    /// goes, and a folder where a file goes, before anything changes. The
    /// folders it opens are added to `opened`, for the caller to close.
    private func plan(
        from source: DirectoryDescriptor, to destination: DirectoryDescriptor, relative: String, into moves: inout [Move],
        opened: inout [DirectoryDescriptor]
    ) throws {
        let skipped: Set<String> = relative.isEmpty ? Set(DatabaseFiles.suffixes.map { databaseFile + $0 }) : []
        for entry in try source.entries() {
            guard let name = entry.name, !skipped.contains(name), let staged = try source.status(of: name) else { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            let existing = try destination.status(of: name)
            switch (staged.kind, existing?.kind) {
            case (.directory, .directory?):
                let child = try source.openDirectory(name)
                opened.append(child)
                let counterpart = try destination.openDirectory(name)
                opened.append(counterpart)
                try plan(from: child, to: counterpart, relative: path, into: &moves, opened: &opened)
            case (.directory, let found?):
                throw refusal(path, found: found, expected: "a folder")
            case (_, .directory?):
                throw refusal(path, found: .directory, expected: "a file")
            default:
                moves.append(Move(from: source, to: destination, name: name, path: target + "/" + path))
            }
        }
    }

    private func refusal(_ path: String, found: FileStatus.Kind, expected: String) -> DBToolError {
        DBToolError(
            .dataError,
            "\(target)/\(path) is \(found.description) where the backup has \(expected): restore --live never writes through a link nor replaces a folder; nothing was changed",
            hint: "Check what put it there; move it away, then restore again.")
    }
}
