import FoundationEssentials

/// The manifest inside every archive of `dbtool backup`, at
/// `<folder>/.dbtool-manifest.json`: what was backed up, from which state,
/// and the size and SHA-256 of every file, so that `verify` and `restore`
/// can prove the archive whole.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// The manifest's own format; readers refuse newer ones.
    public static let currentFormat = 1
    /// The entry's name inside the archive's top-level folder.
    public static let entryName = ".dbtool-manifest.json"

    /// A file of the archive, relative to the top-level folder.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var size: Int64
        /// Lowercase hex.
        public var sha256: String
    }

    /// An applied migration recorded by `dbtool migrate`.
    public struct Migration: Codable, Sendable, Equatable {
        public var version: UInt64
        public var name: String
        public var appliedAt: String
    }

    public var format = BackupManifest.currentFormat
    public var dbtoolVersion: String
    public var sqliteVersion: String
    /// ISO 8601, UTC: when the consistent copy was taken.
    public var created: String
    /// The top-level folder: the name of the database directory.
    public var folder: String
    /// The database file, relative to the folder.
    public var databaseFile: String
    public var journalMode: String
    public var pageSize: Int
    public var pageCount: Int
    /// `PRAGMA schema_version`: bumped by SQLite at each schema change.
    public var schemaVersion: Int
    /// `PRAGMA user_version`: the application's own schema version.
    public var userVersion: Int
    /// The migrations applied by `dbtool migrate`, in version order.
    public var migrations: [Migration]
    public var files: [File]
    /// The database backed up: its host and path (nil in archives of
    /// dbtool before 0.5).
    public var series: SeriesIdentity?

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    static func decode(_ data: Data, archive: String) throws -> BackupManifest {
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            // Name the field, not Swift's description of the decoding error.
            var field = ""
            if case DecodingError.keyNotFound(let key, _) = error { field = ": \(key.stringValue) is missing" }
            if case DecodingError.typeMismatch(_, let context) = error {
                field = ": \(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
            }
            throw DBToolError(
                .dataError, "the manifest of \(archive) is not a dbtool backup manifest\(field)",
                hint: "The archive is damaged; use another backup.")
        }
        guard manifest.format <= currentFormat else {
            throw DBToolError(
                .dataError,
                "the manifest of \(archive) has format \(manifest.format), newer than this dbtool (\(DBToolVersion.current)) reads",
                hint: "Use a newer dbtool.")
        }
        return manifest
    }
}
