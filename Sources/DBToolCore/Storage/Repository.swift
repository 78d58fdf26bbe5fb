import Foundation

/// Where archives live: a local directory (``DirectoryRepository``) or a
/// prefix of S3-compatible object storage (``S3Repository``), behind one
/// interface, in the spirit of Litestream's `ReplicaClient`.
///
/// A backup, a listing, a verify, a restore and a prune never ask which
/// kind it is: they list what is there, write a new archive (published
/// whole, or aborted leaving nothing), open one for reading, write and
/// read small records beside archives (``SeriesRecord``), and delete. Each
/// backend maps its own failures to dbtool's exit statuses.
protocol ArchiveRepository: AnyObject {
    /// The repository as given (`/backups`, `s3://bucket/prefix/`), for messages.
    var description: String { get }
    /// Where `name` is, for reports: a path, or an `s3://` URL.
    func location(of name: String) -> String
    /// A local directory where a backup may stage files (the WAL copy):
    /// the repository's own directory, or the temp directory for a store.
    var stagingDirectory: String { get }

    /// The entries directly under the repository: archives, records and
    /// anything else, with their sizes.
    func list() throws -> [RepositoryEntry]
    /// The whole content of a small entry (a record), nil when there is
    /// none; `limit` bytes at most.
    func readSmall(_ name: String, limit: Int) throws -> Data?
    /// Writes a small entry whole (a record): it appears complete or not at all.
    func writeSmall(_ name: String, _ data: Data) throws
    /// Starts writing the entry `name`: it appears under that name only
    /// once ``RepositoryUpload/publish()`` succeeds; ``RepositoryUpload/abort()``
    /// leaves nothing behind.
    func create(_ name: String, replacing: Bool) throws -> any RepositoryUpload
    /// Opens `name` for one reading, front to back.
    func open(_ name: String) throws -> OpenedArchive
    /// Deletes `name`; false when it was not there.
    func delete(_ name: String) throws -> Bool
    /// Gives `name` another name (an archive kept as evidence).
    func rename(_ name: String, to newName: String) throws
}

/// An entry of a repository.
struct RepositoryEntry: Equatable {
    var name: String
    var size: Int64
}

/// An archive being written into a repository.
protocol RepositoryUpload: ArchiveSink {
    /// Makes the entry appear, whole, under its name, or under `otherName`
    /// (the archive of a corrupt database, kept as evidence).
    func publish(as otherName: String?) throws
    /// Drops what was written: nothing appears, nothing is left (but see
    /// ``abortFailure``).
    func abort()
    /// Why ``abort()`` could not leave nothing behind, if it could not.
    var abortFailure: String? { get }
    /// The bytes written.
    var size: Int64 { get }
    /// The SHA-256 of the bytes, when the backend computes it (object storage).
    var sha256: String? { get }
}

/// Turns a location given by a user into a repository: the one place that
/// tells object storage from a local path.
enum Repository {
    /// True for `s3://…` locations.
    private static func isObjectURL(_ text: String) -> Bool { text.hasPrefix("s3://") }

    /// The repository at `location`: `s3://BUCKET/PREFIX/`, or a directory.
    ///
    /// - parameter tempPrefix: The prefix of the temp files a directory
    ///   repository writes (each command its own, so that it cleans up
    ///   only its own).
    static func at(
        _ location: String, objectStore: ObjectStoreOptions, upload: UploadOptions = UploadOptions(), tempPrefix: String
    ) throws -> any ArchiveRepository {
        if isObjectURL(location) {
            return try S3Repository(prefix: ObjectLocation(location), options: objectStore, upload: upload)
        }
        return DirectoryRepository(path: try LocalPath.resolve(location, what: "the backup directory"), tempPrefix: tempPrefix)
    }

    /// The repository that holds the archive `location`, and the archive's
    /// name there (`latest` still to resolve, see ``ArchiveCatalog/resolve(_:in:)``).
    static func archive(_ location: String, objectStore: ObjectStoreOptions) throws -> (any ArchiveRepository, String) {
        if isObjectURL(location) {
            let object = try ObjectLocation(location)
            let prefix = ObjectLocation(bucket: object.bucket, key: object.parentPrefix)
            guard !object.name.isEmpty, !object.key.hasSuffix("/") else {
                throw DBToolError(
                    .usage, "\(location) names a prefix, not an archive",
                    hint: "Name one archive (see `dbtool backup list \(location)`), or PREFIX/latest for the newest.")
            }
            return (try S3Repository(prefix: prefix, options: objectStore, upload: UploadOptions()), object.name)
        }
        let path = try LocalPath.resolve(location, what: "the archive")
        // Read only: no temp file is ever written there.
        return (DirectoryRepository(path: LocalPath.parent(of: path), tempPrefix: ".dbtool-read-"), LocalPath.name(of: path))
    }
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
