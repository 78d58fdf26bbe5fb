import Foundation

/// A directory of migration files (`--migrations DIR`), in version order.
public struct MigrationDirectory: Sendable {
    public let path: String
    public let migrations: [MigrationFile]

    /// Files that may stand beside the migrations: documentation.
    static func isIgnored(_ fileName: String) -> Bool {
        let lowercased = fileName.lowercased()
        return fileName.hasPrefix(".") || lowercased.hasPrefix("readme") || lowercased.hasPrefix("license")
            || lowercased.hasSuffix(".md") || lowercased.hasSuffix(".txt")
    }

    /// Loads every migration of the directory.
    ///
    /// - throws: ``DBToolError``: 66 when the directory is missing; 65 naming
    ///   the file for a name that is not `VERSION_name.sql`, two files with
    ///   the same version, a file that is not UTF-8, or a malformed file.
    public init(path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DBToolError(.noInput, "no migrations directory at \(path)", hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
        guard isDirectory.boolValue else {
            throw DBToolError(.noInput, "\(path) is a file, not a migrations directory", hint: "Check --migrations (or DBTOOL_MIGRATIONS).")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        var migrations: [MigrationFile] = []
        for name in names where !MigrationDirectory.isIgnored(name) {
            let filePath = URL(fileURLWithPath: path).appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: filePath) else {
                throw DBToolError(.noInput, "can not read \(filePath)", hint: "Check its permissions.")
            }
            guard let contents = String(data: data, encoding: .utf8) else {
                throw DBToolError(.dataError, "\(filePath) is not UTF-8 text", hint: "Save the file as UTF-8.")
            }
            migrations.append(try MigrationFile(path: filePath, contents: contents))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw DBToolError(
                .dataError, "two migrations have the version \(next.version): \(previous.path) and \(next.path)",
                hint: "Give one of them a new version number.")
        }
        self.migrations = migrations
    }

    /// Throws 66 when the directory holds no migration file: a deploy script
    /// pointed at the wrong directory must fail, not report "nothing to do".
    public func requireMigrations() throws {
        guard migrations.isEmpty else { return }
        throw DBToolError(
            .noInput, "no migration files in \(path)",
            hint: "Migration files are named VERSION_name.sql (0001_create_player.sql); `dbtool migrate new NAME` creates one.")
    }
}
