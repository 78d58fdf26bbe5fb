import FoundationEssentials

/// The layout of archives over a ``Store``: each archive an object at the
/// store's root, named after its database and time
/// (`db-20261128T020000.000Z.tar.zst`), its record beside it
/// (`NAME.dbtool.json`, ``SeriesRecord``). A backup, a listing, a verify, a
/// restore and a prune go through it; the store, a directory or a prefix
/// of object storage, maps its own failures to dbtool's exit statuses.
final class ArchiveRepository {
    /// Where the archives are.
    let store: any Store
    /// Told the token of each upload once started (the backup lock keeps
    /// it, so that the next run aborts it after a kill).
    var uploadStarted: ((String, String) -> Void)?
    /// Called with the bytes uploaded so far, on an upload thread.
    var uploadProgress: (@Sendable (Int64) -> Void)?

    init(_ store: any Store) {
        self.store = store
    }

    /// The repository at `location`: `s3://BUCKET/PREFIX/`, or a directory.
    ///
    /// - parameters:
    ///   - location: `s3://BUCKET/PREFIX/` or a directory.
    ///   - objectStore: The endpoint and credentials of object storage.
    ///   - upload: How archives go up to object storage.
    ///   - tempPrefix: The prefix of the temp files a directory
    ///     repository writes (each command its own, so that it cleans up
    ///     only its own).
    static func at(
        _ location: String, objectStore: ObjectStoreOptions, upload: UploadOptions = UploadOptions(), tempPrefix: String
    ) throws -> ArchiveRepository {
        ArchiveRepository(try StoreLocation.store(location, objectStore: objectStore, upload: upload, tempPrefix: tempPrefix, what: "the backup directory"))
    }

    /// The repository that holds the archive `location`, and the archive's
    /// name there (`latest` still to resolve, see ``ArchiveCatalog/resolve(_:in:extensions:)``).
    static func archive(_ location: String, objectStore: ObjectStoreOptions) throws -> (ArchiveRepository, String) {
        let (store, name) = try StoreLocation.object(location, objectStore: objectStore, what: "the archive")
        return (ArchiveRepository(store), name)
    }

    /// The repository as given (`/backups`, `s3://bucket/prefix/`), for messages.
    var description: String { store.description }
    /// Where `name` is, for reports: a path, or an `s3://` URL.
    func location(of name: String) -> String { store.location(of: name) }
    /// A local directory where a backup may stage files (the WAL copy).
    var stagingDirectory: String { store.stagingDirectory }

    /// The entries at the root: archives, records and anything else, with
    /// their sizes.
    ///
    /// - throws: ``DBToolError`` 66 for a directory or bucket that does not exist.
    func list() throws -> [RepositoryEntry] {
        try store.list("").map { RepositoryEntry(name: $0.key, size: $0.size) }
    }

    /// The whole content of a small entry (a record), nil when there is
    /// none; `limit` bytes at most.
    func readSmall(_ name: String, limit: Int) throws -> Data? { try store.readSmall(name, limit: limit) }

    /// Writes a small entry whole (a record): it appears complete or not at
    /// all. Not stopped by SIGINT or SIGTERM on object storage (bounded once
    /// one arrived): a record follows a complete archive, which must not
    /// stay without it.
    func writeSmall(_ name: String, _ data: Data) throws {
        var options = StoreWriteOptions()
        options.replacing = true
        options.contentType = "application/json"
        try store.write(name, data, options)
    }

    /// Starts writing the archive `name`: it appears under that name only
    /// once published; aborted, it leaves nothing behind.
    func create(_ name: String, replacing: Bool) throws -> any StoreUpload {
        var options = StoreWriteOptions()
        options.replacing = replacing
        if let started = uploadStarted { options.started = { token in started(name, token) } }
        options.progress = uploadProgress
        return try store.create(name, options)
    }

    /// Opens `name` for one reading, front to back.
    func open(_ name: String) throws -> OpenedArchive {
        let (source, size) = try store.open(name)
        let local = store.kind == .directory ? store.location(of: name) : nil
        return OpenedArchive(name: store.location(of: name), source: source, size: size, localPath: local)
    }

    /// Deletes `name`; false when it was not there.
    func delete(_ name: String) throws -> Bool { try store.delete(name) }

    /// Aborts an upload of `name` a killed run left; false when it could not be.
    func abortAbandoned(name: String, token: String?) -> Bool { store.abortAbandoned(key: name, token: token) }
}

/// An entry of a repository.
struct RepositoryEntry: Equatable {
    var name: String
    var size: Int64
}

/// How archives are uploaded to object storage (`backup --to`).
public struct UploadOptions: Sendable {
    /// The size of each part of a multipart upload (S3 allows 5 MiB to 5 GiB).
    public var partSize = 16 << 20
    /// How many parts upload at once; memory holds `threads + 1` parts.
    public var threads = 4
    /// The objects' storage class (`STANDARD_IA`, `GLACIER_IR`...), or the bucket's default.
    public var storageClass: String?
    /// The server-side encryption asked for every object written (the
    /// archive, its record, a renamed copy), or the bucket's default.
    public var serverSideEncryption: ServerSideEncryption?
    /// With `aws:kms`: the KMS key (id, ARN or alias) instead of the
    /// account's default key for S3.
    public var serverSideEncryptionKeyID: String?

    public init() {}

    /// The headers of every write: a bucket policy that requires server-side
    /// encryption refuses any `PutObject` without them.
    var encryptionHeaders: [String] {
        guard let serverSideEncryption else { return [] }
        let key = serverSideEncryption == .kms ? serverSideEncryptionKeyID.map { ["x-amz-server-side-encryption-aws-kms-key-id: \($0)"] } : nil
        return ["x-amz-server-side-encryption: \(serverSideEncryption.rawValue)"] + (key ?? [])
    }
}

/// S3 server-side encryption, as bucket policies often require it on every
/// `PutObject`: `AES256` (keys S3 manages) or `aws:kms` (the account's
/// default KMS key for S3, or the one ``UploadOptions/serverSideEncryptionKeyID``
/// names).
public enum ServerSideEncryption: String, Sendable, Equatable, CaseIterable {
    case aes256 = "AES256"
    case kms = "aws:kms"
}
