import FoundationEssentials

/// The layout of a replica over a ``Store``, as Litestream 0.5 writes it,
/// so that Litestream reads what dbtool writes and the other way round: LTX
/// files by level, `ltx/LEVEL/MIN-MAX.ltx` in a directory (each file's
/// modification time its header's timestamp) and `LEVEL/MIN-MAX.ltx` on
/// object storage (the level in four hexadecimal digits, the timestamp in
/// the object's `litestream-timestamp` metadata), and dbtool's record of its
/// owner beside them (`ReplicaRecord`).
final class Replica {
    /// Where the replica is.
    let store: any Store

    init(_ store: any Store) {
        self.store = store
    }

    /// The replica at `location`: `s3://BUCKET/PREFIX/` or a directory.
    /// Its uploads keep memory flat: parts of 5 MiB (S3's smallest), one
    /// going up while the next fills, or `uploadThreads` going up at once.
    static func at(_ location: String, objectStore: ObjectStoreOptions, uploadThreads: Int = 1) throws -> Replica {
        var upload = UploadOptions()
        upload.partSize = 5 << 20
        upload.threads = uploadThreads
        return Replica(
            try StoreLocation.store(location, objectStore: objectStore, upload: upload, tempPrefix: ".dbtool-ltx-", what: "the replica"))
    }

    /// Before writing: creates a missing replica directory (its parent must
    /// exist) and removes the temp files killed runs left in its levels.
    func prepareForWriting() throws {
        try store.prepareForWriting(creating: true)
        for level in ReplicaLevels.all { store.removeStaleTemporaries(in: folder(level)) }
    }

    /// The replica as given, for messages.
    var description: String { store.description }

    /// A level's folder: Litestream's file replica says `ltx/0/`, its S3
    /// client `0000/` (four hexadecimal digits).
    func folder(_ level: Int) -> String {
        switch store.kind {
        case .directory: return "ltx/\(level)/"
        case .objectStorage:
            let digits = String(level, radix: 16)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "/"
        }
    }

    private func key(_ name: LTXFileName) -> String { folder(name.level) + name.fileName }

    /// The files of `level` whose first TXID is in `firstTXIDs`, by
    /// transaction. Keys sort by their first TXID (16 hexadecimal digits):
    /// the listing starts after the bare digits of the lowest (a prefix of
    /// its keys) and stops at those of the next after the highest, so a
    /// restore or a compaction reads the end of a day of level-0 files, not
    /// all of them.
    func files(level: Int, firstTXIDs: ClosedRange<UInt64>) throws -> [ReplicaFile] {
        let folder = folder(level)
        let startAfter = firstTXIDs.lowerBound == 0 ? nil : folder + LTXFileName.hex(firstTXIDs.lowerBound)
        let endBefore = firstTXIDs.upperBound == .max ? nil : folder + LTXFileName.hex(firstTXIDs.upperBound + 1)
        let exact = store.listsExactTimes
        return try store.list(folder, startAfter: startAfter, endBefore: endBefore).compactMap { object -> ReplicaFile? in
            guard let name = LTXFileName(level: level, fileName: object.name), firstTXIDs.contains(name.minTXID) else { return nil }
            // An object store's upload time, to the second: a second later is
            // never before the file's own time (``exactTimestamp(of:)`` has that).
            return ReplicaFile(name: name, size: object.size, createdAt: exact ? object.modified : object.modified.addingTimeInterval(1))
        }.sorted { $0.name < $1.name }
    }

    /// The time the file's header records: the listed one where listings
    /// are exact, else the object's metadata (a HEAD).
    func exactTimestamp(of file: ReplicaFile) throws -> Date {
        guard !store.listsExactTimes else { return file.createdAt }
        guard let object = try store.metadata(of: key(file.name)) else { return file.createdAt }
        return object.metadata["litestream-timestamp"].flatMap(ISOTime.parse) ?? file.createdAt
    }

    /// Publishes the local file `path` as `name`, whole or not at all, with
    /// its header's time; `beforePublishing` is called with the size once
    /// every byte is stored and the file is about to appear.
    func write(_ name: LTXFileName, from path: String, timestamp: Date, beforePublishing: (Int64) -> Void = { _ in }) throws {
        var options = StoreWriteOptions()
        options.replacing = true
        options.modified = timestamp
        options.metadata = ["litestream-timestamp": ISOTime.text(timestamp)]
        do {
            try store.upload(file: path, as: key(name), options, beforePublishing: beforePublishing)
        } catch let error as FileSystemError {
            throw error.reported(.cantCreate, hint: "Check the replica \(description).")
        }
    }

    /// Writes the file `name` as `body` gives its bytes to the sink it
    /// receives, straight to the store: a snapshot of any size goes up
    /// without a local copy. `beforePublishing` is called with the size
    /// once every byte is stored and the file is about to appear. Returns
    /// the bytes written.
    @discardableResult
    func write(
        _ name: LTXFileName, timestamp: Date, body: (@escaping LTXEncoder.Sink) throws -> Void,
        beforePublishing: (Int64) -> Void = { _ in }
    ) throws -> Int64 {
        var options = StoreWriteOptions()
        options.replacing = true
        options.modified = timestamp
        options.metadata = ["litestream-timestamp": ISOTime.text(timestamp)]
        let upload = try store.create(key(name), options)
        do {
            try body { bytes in
                if bytes.isEmpty { return }
                guard upload.write(bytes.baseAddress!, count: bytes.count) else {
                    try upload.finish()  // throws why the upload stopped
                    throw DBToolError(.ioError, "the upload of \(name.path) to \(self.description) stopped", transient: true)
                }
            }
            try upload.finish()
            beforePublishing(upload.size)
            try upload.publish()
            return upload.size
        } catch {
            upload.abort()
            throw error
        }
    }

    /// A reader of the file `name`, front to back.
    func open(_ name: LTXFileName) throws -> LTXDecoder.Source {
        let source: any ArchiveSource
        do {
            source = try store.stream(key(name))
        } catch let error as DBToolError where error.status == .noInput {
            throw DBToolError(
                .noInput, "\(description): \(name.path) is missing", hint: "The replica lost a file: run `dbtool replicate verify`.")
        }
        let reader = BlockReader(source)
        return { buffer in try reader.read(into: buffer) }
    }

    /// Deletes `name` (nothing when it is not there).
    func delete(_ name: LTXFileName) throws {
        try store.delete(key(name))
    }

    /// The replica's record (`ReplicaRecord`), nil when it has none.
    func readRecord() throws -> Data? {
        try store.readSmall(ReplicaRecord.name, limit: ReplicaRecord.sizeLimit)
    }

    /// Writes the replica's record unless it has one: false when another
    /// was there first (the store decides, whatever the timing).
    func createRecord(_ data: Data) throws -> Bool {
        var options = StoreWriteOptions()
        options.exclusive = true
        options.contentType = "application/json"
        return try store.write(ReplicaRecord.name, data, options)
    }

    /// Every file of `level`.
    func files(level: Int) throws -> [ReplicaFile] {
        try files(level: level, firstTXIDs: 0...UInt64.max)
    }

    /// Every file of every level.
    func allFiles() throws -> [ReplicaFile] {
        try ReplicaLevels.all.flatMap { try files(level: $0) }
    }

    /// The files of levels 0 to 8 that may carry a chain on from `txid`
    /// (every file that ends after it, but those of levels 0 and 1 that
    /// straddle it), listed so that a day of history costs a listing of its
    /// last minutes: see ``ReplicaLevels/listing(level:reach:)``.
    ///
    /// With `straddling`, level 1 is listed whole, for its file that holds
    /// `txid` and what follows: where level 0 no longer holds the files
    /// after `txid` (retention removed them once compacted), the chain goes
    /// on through that file.
    func files(after txid: UInt64, straddling: Bool = false) throws -> [ReplicaFile] {
        var found: [ReplicaFile] = []
        var reach = txid
        for level in (0..<LTXFileName.snapshotLevel).reversed() {
            let range = straddling && level == 1 ? 0...UInt64.max : ReplicaLevels.listing(level: level, reach: reach)
            found += try files(level: level, firstTXIDs: range).filter { $0.name.maxTXID > txid }
            reach = try RestorePlan.chain(after: reach, in: found).last?.name.maxTXID ?? reach
        }
        return found
    }

    /// The last TXID the replica holds (0 when it holds nothing): the
    /// snapshots and levels 2 to 8 whole, then levels 1 and 0 from the
    /// last TXID found above them.
    func lastTXID() throws -> UInt64 {
        var last: UInt64 = 0
        for level in ReplicaLevels.all.reversed() {
            let range = ReplicaLevels.listing(level: level, reach: last)
            last = max(last, try files(level: level, firstTXIDs: range).map(\.name.maxTXID).max() ?? 0)
        }
        return last
    }
}

/// A file of a replica.
struct ReplicaFile: Equatable, Sendable {
    var name: LTXFileName
    var size: Int64
    /// When it was written: its header's timestamp, as the store keeps it.
    var createdAt: Date
}

/// The levels of a replica: 0 to 8 (level 0 a file per sync, the others
/// compactions), and the snapshots' 9.
enum ReplicaLevels {
    static let all = 0...LTXFileName.snapshotLevel

    /// Whether `level` is listed whole: levels 2 to 9 hold a file per five
    /// minutes or more, and may hold the one that straddles a snapshot.
    static func isListedWhole(_ level: Int) -> Bool { level >= 2 }

    /// The first TXIDs to list at `level` once the levels above it carry a
    /// chain to `reach`: every one for the levels listed whole, those after
    /// `reach` for levels 1 and 0 (a compacted file merges whole files of
    /// the level below, so past the first such file each level's files end
    /// where those of the levels below end).
    static func listing(level: Int, reach: UInt64) -> ClosedRange<UInt64> {
        isListedWhole(level) ? 0...UInt64.max : (reach + 1)...UInt64.max
    }
}

/// Reads an ``ArchiveSource``'s blocks into buffers of any size, keeping
/// what a buffer could not take for the next read.
private final class BlockReader {
    private let source: any ArchiveSource
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    private var offset = 0

    init(_ source: any ArchiveSource) {
        self.source = source
    }

    /// Fills `buffer` from the front; returns how many bytes (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if offset == block.count {
            block = try source.nextBlock()
            offset = 0
            if block.isEmpty { return 0 }
        }
        let count = min(buffer.count, block.count - offset)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: block[offset..<(offset + count)]))
        offset += count
        return count
    }
}
