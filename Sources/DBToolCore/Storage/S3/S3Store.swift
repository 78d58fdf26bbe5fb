import FoundationEssentials

/// A store under a prefix of S3-compatible object storage
/// (`s3://BUCKET/PREFIX/`): objects stream up as they are written
/// (``MultipartUploadStream``: one PUT below a part, a multipart upload
/// above), are read back in ranged GETs (``ObjectReader``), and are listed
/// from a key on (`start-after`), so that a listing costs what it returns.
/// Confined to one thread, as its ``ObjectStore`` connection is.
final class S3Store: Store {
    let prefix: ObjectLocation
    let client: ObjectStore
    /// How objects go up: part size, threads, storage class, encryption.
    let upload: UploadOptions

    init(prefix: ObjectLocation, options: ObjectStoreOptions, upload: UploadOptions = UploadOptions()) throws {
        self.prefix = ObjectLocation(bucket: prefix.bucket, key: prefix.prefix)
        client = try ObjectStore(options)
        self.upload = upload
    }

    var description: String { prefix.description }
    var kind: StoreKind { .objectStorage }
    var listsExactTimes: Bool { false }
    var stagingDirectory: String { SystemProcess.temporaryDirectory }
    var localPath: String? { nil }

    func prepareForWriting(creating: Bool) throws {}
    func discardCreatedDirectory() {}
    func removeStaleTemporaries(in folder: String) {}

    func location(of key: String) -> String { prefix.appending(key).description }

    private func object(_ key: String) -> ObjectLocation { prefix.appending(key) }

    func list(_ folder: String, startAfter: String?, endBefore: String?) throws -> [StoredObject] {
        let base = prefix.prefix + folder
        let listed = try client.list(
            bucket: prefix.bucket, prefix: base, startAfter: startAfter.map { prefix.prefix + $0 }, endBefore: endBefore.map { prefix.prefix + $0 })
        return listed.compactMap { listed in
            let rest = listed.key.dropFirst(base.count)
            // Objects directly in the folder: what lies deeper belongs to another layout.
            guard !rest.isEmpty, !rest.contains("/") else { return nil }
            return StoredObject(
                key: String(listed.key.dropFirst(prefix.prefix.count)), size: listed.size,
                modified: ISOTime.parse(listed.lastModified) ?? .distantFuture)
        }
    }

    func metadata(of key: String) throws -> StoredObject? {
        guard let info = try client.head(object(key)) else { return nil }
        return StoredObject(key: key, size: info.size, modified: HTTPDate.parse(info.lastModified) ?? .distantFuture, metadata: info.metadata)
    }

    func readSmall(_ key: String, limit: Int) throws -> Data? {
        try client.getSmall(object(key), limit: limit)
    }

    func create(_ key: String, _ options: StoreWriteOptions) throws -> any StoreUpload {
        let metadata = options.metadata.sorted { $0.key < $1.key }.map { "x-amz-meta-\($0.key): \($0.value)" }
        let headers =
            ["Content-Type: \(options.contentType)"] + metadata + (upload.storageClass.map { ["x-amz-storage-class: \($0)"] } ?? [])
            + upload.encryptionHeaders
        let location = object(key)
        let started = options.started
        return MultipartUploadStream(
            store: client, location: location, partSize: upload.partSize, threads: upload.threads, headers: headers,
            started: started.map { report in { id in report(id) } }, progress: options.progress, ifAbsent: options.exclusive)
    }

    func open(_ key: String) throws -> (source: any ArchiveSource, size: Int64?) {
        let reader = try ObjectReader(store: client, location: object(key))
        return (reader, reader.info?.size)
    }

    func stream(_ key: String) throws -> any ArchiveSource {
        ObjectReader(streaming: client, location: object(key))
    }

    func delete(_ key: String) throws -> Bool {
        try client.delete(object(key))
        return true
    }

    func abortAbandoned(key: String, token: String?) -> Bool {
        let location = object(key)
        if let token { return (try? client.abortMultipartUpload(location, uploadId: token)) != nil }
        // The archive's key is its own (a timestamped name): its uploads
        // are the killed run's.
        guard let uploads = try? client.multipartUploads(bucket: location.bucket, prefix: location.key) else { return false }
        var aborted = false
        for upload in uploads where upload.key == location.key {
            if (try? client.abortMultipartUpload(location, uploadId: upload.uploadId)) != nil { aborted = true }
        }
        return aborted
    }
}
