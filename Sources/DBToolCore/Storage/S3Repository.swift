import Foundation

/// A repository under a prefix of S3-compatible object storage
/// (`s3://BUCKET/PREFIX/`): archives stream up as they are written
/// (``MultipartUploadStream``), are read back in ranged GETs
/// (``ObjectReader``), and their records are small objects beside them.
final class S3Repository: ArchiveRepository {
    let prefix: ObjectLocation
    let store: ObjectStore
    let upload: UploadOptions
    /// Told the id of each multipart upload once started (the backup lock
    /// keeps it, so that the next run aborts it after a kill).
    var uploadStarted: ((ObjectLocation, String) -> Void)?
    /// Called with the bytes uploaded so far, on an upload thread.
    var uploadProgress: (@Sendable (Int64) -> Void)?

    /// Resolves the credentials and the endpoint (no request is made).
    init(prefix: ObjectLocation, options: ObjectStoreOptions, upload: UploadOptions) throws {
        self.prefix = ObjectLocation(bucket: prefix.bucket, key: prefix.prefix)
        store = try ObjectStore(options)
        self.upload = upload
    }

    var description: String { prefix.description }
    var stagingDirectory: String { NSTemporaryDirectory() }

    func location(of name: String) -> String { prefix.appending(name).description }

    func list() throws -> [RepositoryEntry] {
        try store.list(bucket: prefix.bucket, prefix: prefix.prefix).compactMap { object in
            let location = ObjectLocation(bucket: prefix.bucket, key: object.key)
            guard location.parentPrefix == prefix.prefix, !location.name.isEmpty else { return nil }
            return RepositoryEntry(name: location.name, size: object.size)
        }
    }

    func readSmall(_ name: String, limit: Int) throws -> Data? {
        try store.getSmall(prefix.appending(name), limit: limit)
    }

    private var encryptionHeaders: [String] { upload.encryptionHeaders }

    /// Not stopped by SIGINT or SIGTERM (bounded once one arrived): a record
    /// follows a complete archive, which must not stay without it.
    func writeSmall(_ name: String, _ data: Data) throws {
        try data.withUnsafeBytes {
            try store.putObject(
                prefix.appending(name), body: $0, headers: ["Content-Type: application/json"] + encryptionHeaders, interruptible: false)
        }
    }

    func create(_ name: String, replacing: Bool) throws -> any RepositoryUpload {
        let location = prefix.appending(name)
        let headers = (upload.storageClass.map { ["x-amz-storage-class: \($0)"] } ?? []) + encryptionHeaders
        let started = uploadStarted
        return MultipartUploadStream(
            store: store, location: location, partSize: upload.partSize, threads: upload.threads, headers: headers,
            started: started.map { report in { id in report(location, id) } }, progress: uploadProgress)
    }

    func open(_ name: String) throws -> OpenedArchive {
        let reader = try ObjectReader(store: store, location: prefix.appending(name))
        return OpenedArchive(name: reader.location.description, source: reader, size: reader.info.size)
    }

    func delete(_ name: String) throws -> Bool {
        try store.delete(prefix.appending(name))
        return true
    }

    /// A copy then a delete: objects over 5 GiB can not be copied in one
    /// request, and keep their name (73).
    func rename(_ name: String, to newName: String) throws {
        let source = prefix.appending(name)
        guard let info = try store.head(source) else {
            throw DBToolError(.noInput, "no object \(source) to rename")
        }
        guard info.size <= ObjectStore.singleCopyLimit else {
            throw DBToolError(.cantCreate, "\(source) is larger than 5 GiB: it can not be renamed to \(newName), and keeps its name")
        }
        // A copy is encrypted as the request says, not as its source was.
        try store.copy(source, to: prefix.appending(newName), headers: encryptionHeaders)
        try store.delete(source)
    }

    /// Aborts a multipart upload that a killed run left (its id was kept in
    /// the backup lock); false when it could not be.
    func abortUpload(key: String, uploadId: String) -> Bool {
        (try? store.abortMultipartUpload(ObjectLocation(bucket: prefix.bucket, key: key), uploadId: uploadId)) != nil
    }
}

/// A multipart upload a backup started, as its lock file keeps it
/// (`upload ID KEY`), so that the next run aborts it when the backup was
/// killed: uploads are attributed to their database that way, never by
/// their name (another database may share it, and upload right now).
struct StaleUpload: Equatable {
    var key: String
    var uploadId: String

    init(key: String, uploadId: String) {
        self.key = key
        self.uploadId = uploadId
    }

    /// Parses a lock file's note; nil for anything else.
    init?(note: String?) {
        guard let fields = note?.split(separator: " ", maxSplits: 2), fields.count == 3, fields[0] == "upload" else { return nil }
        uploadId = String(fields[1])
        key = String(fields[2])
    }

    /// The note written in the lock file.
    var note: String { "upload \(uploadId) \(key)" }
}
