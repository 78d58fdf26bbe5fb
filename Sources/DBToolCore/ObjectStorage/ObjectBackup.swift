import DatabaseKit
import Foundation

/// `dbtool backup --to s3://BUCKET/PREFIX/`: the same archive as a local
/// backup, streamed to object storage as it is written, with the same
/// steps as ``FileDestination`` (check, write, publish, prune):
///
/// 1. Check: credentials, bucket and prefix by listing the prefix; abort the
///    uploads that killed runs of this database's series left behind.
/// 2. Write: a multipart upload to `PREFIX/FOLDER-<timestamp>.EXT`
///    (``MultipartUploadStream``); any error or signal aborts it.
/// 3. Publish: CompleteMultipartUpload makes the object appear whole; its
///    metadata (SHA-256, page count, last migration) is then set by a copy
///    onto itself (archives up to 5 GiB: see
///    ``ObjectStore/replaceMetadata(_:size:headers:)``), and a HEAD checks
///    its size.
/// 4. Prune: the retention rules delete older archives of the series, only
///    after the new one is known to exist.
struct ObjectBackup {
    let operation: BackupOperation
    let prefix: ObjectLocation
    let format: ArchiveFormat

    /// The metadata keys (`x-amz-meta-dbtool-*`) that `backup list` reads.
    enum Metadata {
        static let sha256 = "dbtool-sha256"
        static let pageCount = "dbtool-page-count"
        static let migration = "dbtool-last-migration"
        static let created = "dbtool-created"
        static let database = "dbtool-database"
        static let version = "dbtool-version"
        static let encrypted = "dbtool-encrypted"
    }

    func run(now: Date, started: DispatchTime) throws -> BackupOperation.Report {
        let database = operation.database
        let store = try ObjectStore(operation.objectStore)
        let series = TimestampedName(
            stem: URL(fileURLWithPath: database.location.directoryPath).lastPathComponent, fileExtension: format.fileExtension,
            seriesExtensions: ArchiveFormat.allCases.map(\.fileExtension))
        let location = prefix.appending(series.name(at: now))
        let existing = try store.list(bucket: prefix.bucket, prefix: prefix.prefix).map { ObjectLocation(bucket: prefix.bucket, key: $0.key) }
        let names = existing.filter { $0.parentPrefix == prefix.prefix }.map(\.name)
        if operation.dryRun {
            let plan = try ArchivePlan(location: database.location)
            let source = operation.sourceSize(of: plan)
            let wouldDelete = operation.retention.expired(among: names + [location.name], series: series).filter { $0 != location.name }
            return BackupOperation.Report(
                database: database.location.filePath, archive: location.description, format: format.rawValue, bytes: 0,
                sourceBytes: source.bytes, files: source.files, pageCount: 0, lockSeconds: 0, seconds: seconds(since: started),
                skipped: plan.skipped, deleted: [], deleteFailures: [], dryRun: true,
                wouldDelete: wouldDelete.map { prefix.appending($0).description }, encrypted: operation.passphrase != nil)
        }
        if names.contains(location.name) {
            throw DBToolError(.cantCreate, "\(location) already exists", hint: "Wait a millisecond: archive names are timestamps.")
        }

        // Another backup of this database fails this one at once: so the
        // uploads of this series still open are those of killed runs.
        let lock = try ExclusiveLock(directory: database.location.directoryPath, purpose: .backup, timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        var aborted: [String] = []
        let openUploads: [(key: String, uploadId: String)]
        do {
            openUploads = try store.multipartUploads(bucket: prefix.bucket, prefix: prefix.prefix)
        } catch let error as DBToolError where error.status == .noPermission {
            // A key without s3:ListBucketMultipartUploads can still back up;
            // the bucket's lifecycle rule then has to expire abandoned uploads.
            openUploads = []
        }
        for upload in openUploads {
            let stale = ObjectLocation(bucket: prefix.bucket, key: upload.key)
            guard stale.parentPrefix == prefix.prefix, series.timestamp(of: stale.name) != nil else { continue }
            try store.abortMultipartUpload(stale, uploadId: upload.uploadId)
            aborted.append(stale.description)
        }

        let parent = NSTemporaryDirectory()
        removeStaleTempFiles(in: parent, prefix: BackupOperation.tempPrefix)
        let staging = parent + "/" + tempName(prefix: BackupOperation.tempPrefix, for: location.name + ".staging")
        defer { FileSystem.removeTree(staging) }
        do {
            try FileSystem.createDirectory(staging)
        } catch {
            throw DBToolError.wrapping(error).withHint("Set TMPDIR to a writable directory: the -wal is staged there.")
        }

        var uploadProgress: (@Sendable (Int64) -> Void)?
        if let progress = operation.progress {
            uploadProgress = { uploaded in progress(BackupProgress(phase: .uploading, done: uploaded, total: 0)) }
        }
        let headers = operation.storageClass.map { ["x-amz-storage-class: \($0)"] } ?? []
        let upload = try MultipartUploadStream(
            store: store, location: location, partSize: operation.partSize, threads: operation.uploadThreads, headers: headers,
            progress: uploadProgress)
        let plan: ArchivePlan
        let manifest: BackupManifest
        let state: ConsistentCopy.State
        do {
            plan = try ArchivePlan(location: database.location)
            (manifest, state) = try operation.writeArchive(
                plan, format: format, staging: staging, to: upload, named: location.description, now: now)
            try upload.complete()
        } catch {
            // Nothing appears under the key; the parts are dropped.
            do {
                try upload.abort()
            } catch {
                // The next run aborts it (step 1).
            }
            throw error
        }
        let sha256 = upload.sha256?.hexString ?? ""
        let hasMetadata = try store.replaceMetadata(location, size: upload.size, headers: metadataHeaders(manifest, sha256: sha256))
        guard let info = try store.head(location), info.size == upload.size else {
            throw DBToolError(
                .ioError, "\(location) was uploaded, but the store does not show it with its \(upload.size) bytes",
                hint: "Check the bucket; no older archive was deleted.")
        }

        var deleted: [String] = []
        var failures: [String] = []
        let after = try store.list(bucket: prefix.bucket, prefix: prefix.prefix).map { ObjectLocation(bucket: prefix.bucket, key: $0.key) }
        let afterNames = after.filter { $0.parentPrefix == prefix.prefix }.map(\.name)
        for name in operation.retention.expired(among: afterNames, series: series) where name != location.name {
            let old = prefix.appending(name)
            do {
                try store.delete(old)
                deleted.append(old.description)
            } catch {
                failures.append("\(old): \(DBToolError.wrapping(error).message)")
            }
        }
        return BackupOperation.Report(
            database: database.location.filePath, archive: location.description, format: format.rawValue, bytes: upload.size,
            sourceBytes: manifest.files.reduce(0) { $0 + $1.size }, files: manifest.files.count, pageCount: state.pageCount,
            lockSeconds: state.lockDuration, seconds: seconds(since: started), skipped: plan.skipped, deleted: deleted,
            deleteFailures: failures, sha256: sha256, abortedUploads: aborted, encrypted: operation.passphrase != nil,
            objectMetadata: hasMetadata)
    }

    /// The object's metadata: what `backup list` shows without downloading.
    /// Values are ASCII (S3 metadata is sent as HTTP headers).
    private func metadataHeaders(_ manifest: BackupManifest, sha256: String) -> [String] {
        let migration = manifest.migrations.last.map { "\($0.version) \($0.name)" }
        var values: [(String, String?)] = [
            (Metadata.sha256, sha256), (Metadata.pageCount, String(manifest.pageCount)), (Metadata.migration, migration),
            (Metadata.created, manifest.created), (Metadata.database, manifest.folder + "/" + manifest.databaseFile),
            (Metadata.version, manifest.dbtoolVersion),
        ]
        if operation.passphrase != nil { values.append((Metadata.encrypted, "aes256")) }
        var headers = values.compactMap { name, value in value.map { "x-amz-meta-\(name): \(Self.headerSafe($0))" } }
        headers.append("Content-Type: " + (format == .zip ? "application/zip" : "application/x-tar"))
        if let storageClass = operation.storageClass { headers.append("x-amz-storage-class: \(storageClass)") }
        return headers
    }

    /// Printable ASCII only, at most 256 characters: anything else becomes `?`.
    static func headerSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(256).map { (0x20..<0x7f).contains($0.value) ? $0 : "?" }))
    }
}
