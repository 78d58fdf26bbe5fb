import FoundationEssentials

/// A directory of migration files (`--migrations DIR`), in version order.
///
/// Migrations are `VERSION_name.sql` files (dbtool, dbmate, goose and
/// sql-migrate write them so) and golang-migrate pairs `VERSION_name.up.sql`
/// + `VERSION_name.down.sql`. Files whose extension is not `.sql`, and
/// subdirectories, are not migrations: they are skipped and listed in
/// ``skipped`` (for one notice). A `.sql` file with another name is an error:
/// a typo must not be skipped.
public struct MigrationDirectory: Sendable {
    public let path: String
    public let migrations: [MigrationFile]
    /// The names of the entries that are not migrations (not `.sql`, or
    /// directories, with a trailing `/`), sorted.
    public let skipped: [String]

    /// Loads every migration of the directory.
    ///
    /// - throws: ``DBToolError``: 66 when the directory is missing; 65 naming
    ///   the file for a `.sql` file whose name is not `VERSION_name.sql`, two
    ///   migrations with the same version, a `.down.sql` without its
    ///   `.up.sql`, a file that is not UTF-8, or a malformed file.
    public init(path: String) throws {
        self.path = path
        guard let info = try FileSystem.status(path) else {
            throw DBToolError(.noInput, "no migrations directory at \(path)", hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
        guard info.kind == .directory else {
            throw DBToolError(.noInput, "\(path) is a file, not a migrations directory", hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
        let entries = try Self.entries(of: path)
        let resolvedDirectory = FileSystem.resolvingLinks(path) ?? path
        var migrations: [MigrationFile] = []
        var skipped: [String] = []
        var pairs: [String: (up: String?, down: String?)] = [:]
        for entry in entries {
            guard let name = entry.name else {
                // Its name can not be carried as text: the file could not be opened by it.
                if entry.rawName.count >= 4 && entry.rawName.suffix(4).map({ $0 | 0x20 }) == Array(".sql".utf8) {
                    throw DBToolError(
                        .dataError, "the migration file name \(entry.displayName) in \(path) is not UTF-8 (its bytes are shown as \\xHH)",
                        hint: "Rename it with a UTF-8 name: VERSION_name.sql.")
                }
                skipped.append(entry.displayName)
                continue
            }
            let filePath = URL(fileURLWithPath: path).appendingPathComponent(name).path
            try Self.refuseLinkOutside(filePath, directory: resolvedDirectory)
            if FileSystem.isDirectory(filePath) {
                skipped.append(name + "/")
            } else if !name.lowercased().hasSuffix(".sql") {
                // A README beside the migrations is documentation, not a
                // mistake: not worth a notice at every run.
                if !Self.isReadme(name) { skipped.append(name) }
            } else if let (versionText, _, direction) = MigrationFile.parsePairName(name) {
                // Paired by version, as golang-migrate does; the name comes from the up file.
                let key = String(versionText.drop(while: { $0 == "0" }))
                if direction == "up" { pairs[key, default: (nil, nil)].up = filePath } else { pairs[key, default: (nil, nil)].down = filePath }
            } else {
                migrations.append(try MigrationFile(path: filePath))
            }
        }
        for pair in pairs.values {
            guard let upPath = pair.up else {
                throw DBToolError(
                    .dataError, "\(pair.down ?? ""): a golang-migrate down file without its .up.sql file",
                    hint: "Restore the .up.sql file of that version, or remove the .down.sql file.")
            }
            migrations.append(try MigrationFile(upPath: upPath, downPath: pair.down))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw DBToolError(
                .dataError, "two migrations have the version \(next.version): \(previous.path) and \(next.path)",
                hint: "Give one of them a new version number.")
        }
        self.migrations = migrations
        self.skipped = skipped
    }

    /// The directory's entries, names as the file system holds them.
    private static func entries(of path: String) throws -> [DirectoryDescriptor.Entry] {
        let directory: DirectoryDescriptor
        do {
            directory = try DirectoryDescriptor.open(path)
        } catch {
            throw error.reported(hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
        defer { directory.close() }
        do {
            return try directory.entries()
        } catch {
            throw error.reported(hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
    }

    /// A migration that is a link to a file outside the migrations
    /// directory is refused (65): whoever can write the directory must not
    /// make dbtool (run as root, say) read another file and quote it.
    private static func refuseLinkOutside(_ filePath: String, directory: String) throws {
        guard let info = try FileSystem.status(filePath, followingLinks: false), info.kind == .symbolicLink else { return }
        let target = FileSystem.resolvingLinks(filePath)
        guard let target, target.hasPrefix(directory + "/") else {
            throw DBToolError(
                .dataError, "\(filePath) is a symbolic link to \(target ?? "nothing"), outside the migrations directory: refused",
                hint: "Put the migration itself in the migrations directory (links may only point inside it).")
        }
    }

    /// True for `README`, `README.md`, `notes.md`: the folder's documentation.
    static func isReadme(_ name: String) -> Bool {
        let lowercased = name.lowercased()
        return lowercased == "readme" || lowercased.hasPrefix("readme.") || lowercased.hasSuffix(".md")
    }

    /// The notice about skipped entries, nil when there is none.
    public var skippedNotice: String? {
        guard !skipped.isEmpty else { return nil }
        let what = skipped.count == 1 ? "1 file that is not a .sql migration" : "\(skipped.count) files that are not .sql migrations"
        return "skipped \(what) in \(path): \(skipped.joined(separator: ", "))"
    }

    /// Throws 66 when the directory holds no migration file: a deploy script
    /// pointed at the wrong directory must fail, not report "nothing to do".
    public func requireMigrations() throws {
        guard migrations.isEmpty else { return }
        throw DBToolError(
            .noInput, "no migration files in \(path)",
            hint: "Migration files are named VERSION_name.sql (0001_create_author.sql); `dbtool migrate new NAME` creates one.")
    }
}
