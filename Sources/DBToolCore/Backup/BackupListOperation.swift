import Foundation

/// `dbtool backup list TARGET`: the archives in a directory (`--output-dir`)
/// or under an object storage prefix (`--to`), oldest first.
///
/// For objects, the page count, last migration and SHA-256 come from the
/// object's metadata (one HEAD each, no download); local archives show
/// their name, size and time only (their manifest is at the end of a
/// compressed stream: `backup verify` reads it).
public struct BackupListOperation: Sendable {
    /// A directory, or `s3://BUCKET/PREFIX/`.
    public var target: String
    /// How to reach the object store of an `s3://` target.
    public var objectStore = ObjectStoreOptions()

    /// Lists `target`: a directory, or `s3://BUCKET/PREFIX/`.
    public init(target: String) {
        self.target = target
    }

    /// One archive.
    public struct Archive: Codable, Sendable, Equatable {
        /// The path, or the `s3://` URL.
        public var location: String
        public var size: Int64
        /// When the backup was taken (ISO 8601, UTC, from the name).
        public var created: String
        /// The archive format, from the name's extension.
        public var format: String
        /// The database's page count (object metadata; nil for local archives).
        public var pageCount: Int?
        /// `VERSION NAME` of the last migration applied, if any.
        public var lastMigration: String?
        /// The archive's SHA-256 (object metadata; nil for local archives).
        public var sha256: String?
        /// True for an encrypted archive (object metadata; nil for local archives).
        public var encrypted: Bool?
    }

    /// What `backup list` found.
    public struct Report: Codable, Sendable, Equatable {
        /// The directory or prefix listed, as given.
        public var target: String
        /// Oldest first; the last is what `latest` names.
        public var archives: [Archive]
    }

    /// Lists the archives.
    ///
    /// - throws: ``DBToolError``: 66 for a missing directory or bucket, 77
    ///   for refused credentials, 75 for a store that keeps failing.
    public func run() throws -> Report {
        var archives: [(ArchiveName, Archive)] = []
        if ObjectLocation.isObjectURL(target) {
            let prefix = try ObjectLocation(target)
            let store = try ObjectStore(objectStore)
            for object in try store.list(bucket: prefix.bucket, prefix: prefix.prefix) {
                let location = ObjectLocation(bucket: prefix.bucket, key: object.key)
                guard location.parentPrefix == prefix.prefix, let name = ArchiveName(location.name) else { continue }
                let metadata = try store.head(location)?.metadata ?? [:]
                archives.append(
                    (
                        name,
                        Archive(
                            location: location.description, size: object.size, created: Self.iso(name), format: name.format.rawValue,
                            pageCount: metadata[ObjectBackup.Metadata.pageCount].flatMap { Int($0) },
                            lastMigration: metadata[ObjectBackup.Metadata.migration], sha256: metadata[ObjectBackup.Metadata.sha256],
                            encrypted: metadata[ObjectBackup.Metadata.encrypted] != nil)
                    ))
            }
        } else {
            let directory = URL(fileURLWithPath: target).standardizedFileURL.path
            guard FileSystem.isDirectory(directory) else {
                throw DBToolError(.noInput, "no directory \(directory) to list", hint: "Give the --output-dir of the backups, or an s3:// prefix.")
            }
            for fileName in try FileSystem.contentsOfDirectory(directory) {
                guard let name = ArchiveName(fileName) else { continue }
                let path = directory + "/" + fileName
                archives.append(
                    (name, Archive(location: path, size: FileSystem.size(path), created: Self.iso(name), format: name.format.rawValue)))
            }
        }
        return Report(target: target, archives: archives.sorted { ($0.0.timestamp, $0.1.location) < ($1.0.timestamp, $1.1.location) }.map(\.1))
    }

    private static func iso(_ name: ArchiveName) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return name.date.map { formatter.string(from: $0) } ?? name.timestamp
    }
}
