import DatabaseKit
import FoundationEssentials

/// One value a shell may offer when the user presses TAB, with a short
/// description for the shells that show one (zsh, fish).
public struct CompletionCandidate: Sendable, Equatable {
    /// The text inserted on the command line.
    public var value: String
    /// What the value is ("create_users", "2026-11-23 02:00:00 UTC, 1.2 MiB").
    public var description: String?

    /// A candidate.
    public init(_ value: String, description: String? = nil) {
        self.value = value
        self.description = description
    }
}

/// The values dbtool's shell completions offer that no static list holds:
/// migration versions, archives, snapshots and database directories, read
/// from the disk when the user presses TAB.
///
/// Completion runs while somebody types: every function here is quick (one
/// directory listing, at most one read-only query that never waits for a
/// lock) and silent. A missing or unreadable directory, a malformed file or a
/// locked database gives no candidates, never an error.
public enum CompletionCandidates {
    /// The versions of the migration files in `directory`, in version order,
    /// described by their names; with `none` first when `includingNone` (the
    /// target of `migrate --to` that rolls everything back).
    public static func migrationVersions(in directory: String, includingNone: Bool = false) -> [CompletionCandidate] {
        var candidates = includingNone ? [CompletionCandidate("none", description: "roll back every migration")] : []
        guard let names = try? FileSystem.contentsOfDirectory(directory) else { return candidates }
        var seen = Set<UInt64>()
        let versions: [(UInt64, String, String)] = names.compactMap { fileName in
            let parsed = MigrationFile.parsePairName(fileName).map { ($0.0, $0.1) } ?? MigrationFile.parseName(fileName)
            guard let (text, name) = parsed, let version = UInt64(text), seen.insert(version).inserted else { return nil }
            return (version, text, name)
        }
        candidates += versions.sorted { $0.0 < $1.0 }.map { CompletionCandidate($0.1, description: $0.2) }
        return candidates
    }

    /// The step counts `migrate rollback --steps` accepts for the database at
    /// `typedPath`: 1 through the number of applied migrations, each described
    /// by the migration it rolls back last.
    public static func rollbackSteps(ofDatabaseAt typedPath: String, fileName: String) -> [CompletionCandidate] {
        guard let location = try? DatabaseLocation(path: TypedDirectory(typed: typedPath).path, fileName: fileName),
            let records = appliedRecords(location)
        else { return [] }
        return records.reversed().enumerated().map { index, record in
            CompletionCandidate(String(index + 1), description: "down to before \(record.version)_\(record.name)")
        }
    }

    /// The archives in the directory of `prefix` whose paths start with
    /// `prefix`, newest first (by modification time), described by their
    /// time and size; subdirectories follow, to walk into.
    public static func archives(matching prefix: String) -> [CompletionCandidate] {
        let (directory, entries) = listing(prefix)
        var archives: [(path: String, status: FileStatus)] = []
        var directories: [CompletionCandidate] = []
        for name in entries {
            guard let status = directory.status(name) else { continue }
            if status.kind == .directory {
                directories.append(CompletionCandidate(directory.typed(name) + "/"))
            } else if status.kind == .regular, ArchiveFormat(fileName: name) != nil {
                archives.append((directory.typed(name), status))
            }
        }
        archives.sort { ($0.status.modificationSeconds, $0.path) > ($1.status.modificationSeconds, $1.path) }
        return archives.map { CompletionCandidate($0.path, description: describe($0.status)) } + directories
    }

    /// The snapshots `migrate --snapshot` took of the database at `typedPath`
    /// (as typed: the candidates start with it), newest first.
    public static func snapshots(ofDatabaseAt typedPath: String, fileName: String, matching prefix: String) -> [CompletionCandidate] {
        guard let location = try? DatabaseLocation(path: TypedDirectory(typed: typedPath).path, fileName: fileName) else { return [] }
        var typedDirectory = typedPath
        if !location.namesDirectory {
            typedDirectory = typedPath.lastIndex(of: "/").map { String(typedPath[..<$0]) } ?? "."
        }
        while typedDirectory.count > 1 && typedDirectory.hasSuffix("/") { typedDirectory.removeLast() }
        let directory = location.directoryPath + "/snapshots"
        guard let names = try? FileSystem.contentsOfDirectory(directory) else { return [] }
        let latest = MigrationSnapshots.latest(location).map { URL(fileURLWithPath: $0).lastPathComponent }
        return names.filter { $0.hasSuffix(".sqlite") }.sorted(by: >).compactMap { name in
            let typed = typedDirectory + "/snapshots/" + name
            guard typed.hasPrefix(prefix) else { return nil }
            let status = (try? FileSystem.status(directory + "/" + name)) ?? nil
            let note = name == latest ? "latest, " : ""
            return CompletionCandidate(typed, description: status.map { note + describe($0) })
        }
    }

    /// The databases in the directory of `prefix`: its subdirectories that
    /// hold a database named `fileName` (what `dbtool init` makes), and its
    /// `.sqlite`/`.db` files. When there are none, every subdirectory, so
    /// that the user can walk down to one.
    public static func databases(matching prefix: String, fileName: String = DatabaseLocation.defaultFileName) -> [CompletionCandidate] {
        let (directory, entries) = listing(prefix)
        var databases: [CompletionCandidate] = []
        var others: [CompletionCandidate] = []
        for name in entries.sorted() {
            guard let status = directory.status(name) else { continue }
            let path = directory.typed(name)
            if status.kind == .directory {
                if FileSystem.exists(directory.onDisk(name) + "/" + fileName) {
                    databases.append(CompletionCandidate(path, description: "holds \(fileName)"))
                } else {
                    others.append(CompletionCandidate(path + "/"))
                }
            } else if status.kind == .regular, name.hasSuffix(".sqlite") || name.hasSuffix(".db") {
                databases.append(CompletionCandidate(path, description: "database file"))
            }
        }
        return databases.isEmpty ? others : databases
    }

    // MARK: - Helpers

    /// The directory a partly typed path is in, as typed ("" for the current
    /// one), and the names in it that the last component starts with (hidden
    /// ones only when it starts with a dot).
    private static func listing(_ prefix: String) -> (directory: TypedDirectory, names: [String]) {
        let slash = prefix.lastIndex(of: "/")
        let typed = slash.map { String(prefix[...$0]) } ?? ""
        let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let directory = TypedDirectory(typed: typed)
        guard let names = try? FileSystem.contentsOfDirectory(directory.path) else { return (directory, []) }
        return (directory, names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) })
    }

    /// The migrations dbtool recorded in this database, oldest first; nil
    /// when it cannot be read at once.
    private static func appliedRecords(_ location: DatabaseLocation) -> [MigrationsTable.Record]? {
        // No wait: a locked database gives no candidates at once.
        guard let queue = try? DatabaseHandle(location: location, timeout: 0).openQueue(readonly: true) else { return nil }
        return try? queue.read { db in
            guard try db.tableExists(MigrationsTable.name) else { return [] }
            return try MigrationsTable.records(db)
        }
    }

    private static func describe(_ status: FileStatus) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(status.modificationSeconds))
        return "\(readableTime(date)), \(ByteCount.text(status.size))"
    }

    /// "2026-11-23 02:00:00 UTC".
    private static func readableTime(_ date: Date) -> String {
        let stamp = Array(TimestampedName.timestamp(date))  // yyyyMMddTHHmmss.SSSZ
        func part(_ range: Range<Int>) -> String { String(stamp[range]) }
        return "\(part(0..<4))-\(part(4..<6))-\(part(6..<8)) \(part(9..<11)):\(part(11..<13)):\(part(13..<15)) UTC"
    }
}

/// A path as the user typed it (kept in the candidates, so that the shell
/// matches them against the word), and where it is on disk (`~/` is the
/// home directory, as the shell will expand it).
private struct TypedDirectory {
    /// The path as typed (a directory of a listing: empty, or ending with a slash).
    let typed: String

    /// The path on disk.
    var path: String {
        if typed.isEmpty { return "." }
        if typed.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            return home + typed.dropFirst()
        }
        return typed
    }

    /// An entry as the user would type it.
    func typed(_ name: String) -> String { typed + name }

    /// An entry's path on disk.
    func onDisk(_ name: String) -> String { path + "/" + name }

    /// An entry's status, following links; nil when it cannot be read.
    func status(_ name: String) -> FileStatus? { (try? FileSystem.status(onDisk(name))) ?? nil }
}
