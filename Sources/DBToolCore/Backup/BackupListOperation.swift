import FoundationEssentials

/// `dbtool backup list REPOSITORY`: the archives in a directory or under
/// an object storage prefix, oldest first, with what dbtool recorded of
/// each (database, page count, last migration, SHA-256) and whether it
/// trusts it (see `ArchiveCatalog`): only trusted archives count for
/// retention and can be `latest`.
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
        /// True when dbtool trusts it: its record names it and has its size.
        public var verified: Bool
        /// Why it is not trusted (nil when it is).
        public var unverifiedReason: String?
        /// The database it is a backup of: `HOST:PATH` (from its record).
        public var database: String?
        /// The database's series id (from its record).
        public var series: String?
        /// The database's page count (from its record).
        public var pageCount: Int?
        /// `VERSION NAME` of the last migration applied, if any.
        public var lastMigration: String?
        /// The archive's SHA-256, when recorded (object storage).
        public var sha256: String?
        /// True for an encrypted archive.
        public var encrypted: Bool?
        /// The server-side encryption it was uploaded with (from its record).
        public var serverSideEncryption: String?
        /// The KMS key named for it, if any (from its record).
        public var serverSideEncryptionKeyID: String?
    }

    /// What `backup list` found.
    public struct Report: Codable, Sendable, Equatable {
        /// The directory or prefix listed, as given.
        public var target: String
        /// Oldest first.
        public var archives: [Archive]
        /// What `latest` names, when it names one archive.
        public var latest: String?
    }

    /// Lists the archives.
    ///
    /// - throws: ``DBToolError``: 66 for a missing directory or bucket, 77
    ///   for refused credentials, 75 for a store that keeps failing.
    public func run() throws -> Report {
        let repository = try ArchiveRepository.at(target, objectStore: objectStore, tempPrefix: BackupOperation.tempPrefix)
        let catalog = try ArchiveCatalog(repository, extensions: ArchiveFormat.fileExtensions)
        let archives = catalog.archives.map { archive in
            Archive(
                location: archive.location, size: archive.size, created: ISOTime.text(archive.date), format: archive.fileExtension,
                verified: archive.isTrusted, unverifiedReason: archive.distrust,
                database: archive.record.map { "\($0.series.host):\($0.series.database)" }, series: archive.record?.series.id,
                pageCount: archive.record?.pageCount, lastMigration: archive.record?.lastMigration, sha256: archive.record?.sha256,
                encrypted: archive.record?.encrypted, serverSideEncryption: archive.record?.serverSideEncryption,
                serverSideEncryptionKeyID: archive.record?.serverSideEncryptionKeyID)
        }
        return Report(target: target, archives: archives, latest: (try? catalog.latest())?.location)
    }
}
