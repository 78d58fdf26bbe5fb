import FoundationEssentials

/// Where dbtool keeps what it writes away from the database: archives and
/// their records, a replica's LTX files. One interface, two backends: a
/// local directory (``DirectoryStore``) and a prefix of S3-compatible object
/// storage (``S3Store``), in the spirit of Litestream's replica client and
/// restic's backend. Layouts name the objects over it (``ArchiveRepository``,
/// ``Replica``); a backup, a restore, a prune or a replication never asks
/// which backend it has, and a new backend is written once for all of them.
///
/// Keys are relative paths under the store's root (`db-20261128T020000.000Z.tar.zst`,
/// `ltx/0/0000000000000001-0000000000000001.ltx`): components separated by
/// `/`, none empty, `.` or `..`. An object appears whole under its key, or
/// not at all: it is written, then published (a rename, a completed upload),
/// or aborted leaving nothing.
protocol Store: AnyObject {
    /// The store as given (`/backups`, `s3://bucket/prefix/`), for messages.
    var description: String { get }
    /// The backend: what Litestream names differently per backend (a
    /// replica's level folders) asks it, nothing else.
    var kind: StoreKind { get }
    /// Where `key` is, for reports: a path, or an `s3://` URL.
    func location(of key: String) -> String
    /// Whether a listing gives each object's own time (a file's modification
    /// time, which a writer sets), or only when it was stored, to the second.
    var listsExactTimes: Bool { get }
    /// A local directory where a writer may stage files (a backup's WAL copy).
    var stagingDirectory: String { get }
    /// The store's directory when it is local: what the write gate checks.
    var localPath: String? { get }

    /// Before writing: a local store creates its missing directory (`creating`;
    /// its parent must exist), checks it may be written, and removes the temp
    /// files of killed runs; object storage has nothing to prepare.
    func prepareForWriting(creating: Bool) throws
    /// Removes the directory ``prepareForWriting(creating:)`` created, if
    /// still empty: called when the operation failed.
    func discardCreatedDirectory()
    /// Removes the temp files killed runs left in `folder` (a local store's;
    /// object storage keeps none: an upload appears whole or not at all).
    func removeStaleTemporaries(in folder: String)

    /// The objects directly in `folder` (`""` for the root, else a key prefix
    /// ending with `/`), sorted by key; only those after `startAfter` and
    /// before `endBefore` (whole keys) when given, where the listing stops.
    func list(_ folder: String, startAfter: String?, endBefore: String?) throws -> [StoredObject]
    /// One object's size, time and metadata; nil when there is none.
    func metadata(of key: String) throws -> StoredObject?
    /// The whole of a small object, at most `limit` bytes; nil when there is
    /// none (or it is larger).
    func readSmall(_ key: String, limit: Int) throws -> Data?
    /// Starts writing `key`: it appears under that key only once
    /// ``StoreUpload/publish(as:)`` succeeds; ``StoreUpload/abort()`` leaves nothing.
    func create(_ key: String, _ options: StoreWriteOptions) throws -> any StoreUpload
    /// Opens `key` for one reading, front to back (following what the path
    /// names: a user's archive may be a link).
    func open(_ key: String) throws -> (source: any ArchiveSource, size: Int64?)
    /// Opens `key` for one reading, front to back, with no request before
    /// the first block (its size is not asked for): what a replica's reads
    /// take, a request each.
    func stream(_ key: String) throws -> any ArchiveSource
    /// Deletes `key`; false when it was not there.
    @discardableResult
    func delete(_ key: String) throws -> Bool
    /// Cancels an upload a killed run left, as ``StoreWriteOptions/started``
    /// told it; with no token (the run was killed before it learnt it),
    /// every upload of that exact key. False when there was none to cancel
    /// (a directory leaves none).
    func abortAbandoned(key: String, token: String?) -> Bool
}

/// The backends of ``Store``.
enum StoreKind: Equatable {
    case directory, objectStorage
}

/// An object of a store.
struct StoredObject: Equatable {
    /// Its key, relative to the store's root.
    var key: String
    var size: Int64
    /// A file's modification time; an object's upload time (to the second).
    var modified: Date
    /// An object's user metadata (`x-amz-meta-*` without the prefix), from
    /// ``Store/metadata(of:)`` only.
    var metadata: [String: String] = [:]

    /// The last component of the key.
    var name: String { String(key.split(separator: "/").last ?? "") }
}

/// How an object is written.
struct StoreWriteOptions {
    /// Replace an object already under the key; when false, one that is
    /// there when the write starts is refused (73).
    var replacing = false
    /// Publish only if no object is under the key then, whatever the timing
    /// (a link in a directory, `If-None-Match: *` on S3): a race's loser
    /// gets ``StoreConflict``. For small objects.
    var exclusive = false
    /// The modification time a directory's file is given.
    var modified: Date?
    /// The user metadata an object store keeps (`x-amz-meta-*`).
    var metadata: [String: String] = [:]
    /// The object's content type, where the store keeps one.
    var contentType = "application/octet-stream"
    /// Told a token that names the upload, once it exists remotely, so that
    /// a later run can abort it after a kill (``Store/abortAbandoned(key:token:)``).
    var started: ((String) -> Void)?
    /// Called with the bytes uploaded so far, on an upload thread.
    var progress: (@Sendable (Int64) -> Void)?
}

/// An exclusive publication that found an object under its key.
struct StoreConflict: Error {
    let key: String
}

/// An object being written into a store.
protocol StoreUpload: ArchiveSink {
    /// Makes the object appear, whole, under its key, or under `otherKey`
    /// (the archive of a corrupt database, kept as evidence).
    func publish(as otherKey: String?) throws
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

extension StoreUpload {
    /// Publishes the object under its own key.
    func publish() throws { try publish(as: nil) }
}

extension Store {
    /// Every object directly in `folder`.
    func list(_ folder: String) throws -> [StoredObject] {
        try list(folder, startAfter: nil, endBefore: nil)
    }

    /// Writes a small object whole, from memory.
    ///
    /// - returns: false when `options.exclusive` and an object was there.
    @discardableResult
    func write(_ key: String, _ data: Data, _ options: StoreWriteOptions) throws -> Bool {
        let upload = try create(key, options)
        let written = data.withUnsafeBytes { bytes in bytes.isEmpty || upload.write(bytes.baseAddress!, count: bytes.count) }
        do {
            if !written { try upload.finish() }
            try upload.publish()
            return true
        } catch is StoreConflict {
            return false
        } catch {
            upload.abort()
            throw error
        }
    }

    /// Publishes the local file at `path` as `key`, streamed;
    /// `beforePublishing` is called with the size once every byte is stored
    /// and the object is about to appear.
    func upload(
        file path: String, as key: String, _ options: StoreWriteOptions, beforePublishing: (Int64) -> Void = { _ in }
    ) throws {
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(path, .readOnly)
        } catch {
            throw error.reported(.noInput)
        }
        defer { input.close() }
        let upload = try create(key, options)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: StreamBuffer.size, alignment: 16)
        defer { buffer.deallocate() }
        do {
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                guard upload.write(buffer.baseAddress!, count: count) else { break }
            }
            try upload.finish()
            beforePublishing(upload.size)
            try upload.publish()
        } catch {
            upload.abort()
            throw (error as? FileSystemError)?.reported(.ioError) ?? error
        }
    }
}
