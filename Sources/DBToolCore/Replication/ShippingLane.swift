import FoundationEssentials

/// The outbox: level-0 files written by the session, waiting for their
/// upload, in a private directory beside the database
/// (`.dbtool-replicate/ltx/0/`), and the maintenance lane's work files
/// (`.dbtool-replicate/maintenance/`).
struct Outbox {
    let path: String

    /// Opens (creating, 0700) the outbox in the database's `directory`;
    /// files a killed run left there are dropped: the new run starts from
    /// the replica's position. Whatever has the outbox's name is removed
    /// without following a link, and the gate checked first.
    init(in directory: String, gate: WriteGate) throws {
        path = (directory == "/" ? "" : directory) + "/" + ReplicateOperation.outboxName
        try gate.check(path, .ownFile, what: "the outbox")
        do {
            let parent = try DirectoryDescriptor.open(directory)
            defer { parent.close() }
            parent.removeTree(ReplicateOperation.outboxName)
            try parent.createDirectory(ReplicateOperation.outboxName)
            let outbox = try parent.openDirectory(ReplicateOperation.outboxName)
            defer { outbox.close() }
            try outbox.createDirectory("maintenance")
            try outbox.createDirectory("shipped")
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of the database's directory.")
        }
    }

    /// The maintenance lane's work directory.
    var maintenance: String { path + "/maintenance" }
    /// Level-0 files in the replica kept here too, until level 1 merges them:
    /// compaction reads them from the local disk, not from the store.
    var shipped: String { path + "/shipped" }

    /// The level-0 files waiting, in the order they go up.
    func files() throws -> [LTXFileName] {
        let directory = path + "/ltx/0"
        guard FileSystem.isDirectory(directory) else { return [] }
        return try FileSystem.contentsOfDirectory(directory).compactMap { LTXFileName(level: 0, fileName: $0) }.sorted()
    }

    func file(_ name: LTXFileName) -> String { LTXOutput.path(of: name, in: path) }

    /// The bytes waiting.
    func size() -> Int64 {
        ((try? files()) ?? []).reduce(0) { $0 + FileSystem.size(file($1)) }
    }
}

/// Uploads the outbox's level-0 files in TXID order, records each in the
/// replica's state once it is there, and reports when the store goes away
/// and comes back. A file handed to the maintenance lane (a large start
/// image) is left to it: the files after it go up meanwhile.
struct Uploader {
    let replica: Replica
    let outbox: Outbox
    let state: ReplicaState
    /// Whether uploaded files are kept for level 1's compaction (``Outbox/shipped``).
    var keepsShipped = true
    let log: LogSink
    private var failing = false
    /// The last TXID the replica holds at level 0, without a gap.
    private(set) var shippedTXID: UInt64
    /// The files uploaded.
    private(set) var shippedFiles = 0
    /// Whether the last upload emptied the outbox.
    private(set) var isIdle = false
    /// The file the maintenance lane uploads, if any, until it says it is there.
    var handedOff: LTXFileName?
    /// TXIDs uploaded past one still on its way (the handed-off file).
    private var uploadedPast: UInt64 = 0

    init(replica: Replica, outbox: Outbox, state: ReplicaState, log: @escaping LogSink, shippedTXID: UInt64) {
        self.replica = replica
        self.outbox = outbox
        self.state = state
        self.log = log
        self.shippedTXID = shippedTXID
    }

    /// Uploads what waits; a store that does not answer leaves it waiting
    /// (reported once), unless `retrying` is false: then the error is thrown.
    mutating func upload(retrying: Bool = true) throws {
        isIdle = false
        for name in try outbox.files() where name != handedOff {
            let path = outbox.file(name)
            do {
                let timestamp = try Self.timestamp(of: path)
                try replica.write(name, from: path, timestamp: timestamp)
            } catch let error as DBToolError where retrying && error.isTransient {
                if !failing {
                    log(.warning, "the replica \(replica.description) does not answer (\(error.message)): files wait in the outbox")
                }
                failing = true
                return
            }
            if failing { log(.info, "the replica answers again: uploading the outbox") }
            failing = false
            shippedFiles += 1
            landed(name, path: path)
        }
        isIdle = handedOff == nil
    }

    /// The maintenance lane reports the handed-off file in the replica.
    mutating func handedOffLanded() {
        guard let name = handedOff else { return }
        handedOff = nil
        shippedFiles += 1
        landed(name, path: outbox.file(name))
        shippedTXID = max(shippedTXID, uploadedPast)
    }

    /// A file is in the replica: its pages go into the state (in TXID order:
    /// those past a file still on its way wait for it), then it leaves the outbox.
    private mutating func landed(_ name: LTXFileName, path: String) {
        if let handedOff, name.maxTXID > handedOff.maxTXID {
            uploadedPast = max(uploadedPast, name.maxTXID)
            pendingRecords.append(name)
            return
        }
        record(name, path: path)
        for waiting in pendingRecords.sorted() { record(waiting, path: outbox.file(waiting)) }
        pendingRecords.removeAll()
        shippedTXID = max(shippedTXID, name.maxTXID)
    }

    /// Files uploaded whose record waits for the handed-off one.
    private var pendingRecords: [LTXFileName] = []

    /// Records `name`'s pages in the state (unless the state is already
    /// past it), then moves the local file to ``Outbox/shipped`` for level
    /// 1's compaction (or removes it, without compaction). A state that can not be
    /// written is reset: the next restart then ships a full image.
    private func record(_ name: LTXFileName, path: String) {
        if name.maxTXID > state.txid {
            do {
                let (file, _) = try FileDescriptor.openRegularFile(path)
                defer { file.close() }
                try state.apply { buffer in try file.read(into: buffer) }
            } catch {
                log(
                    .warning,
                    "could not record \(name.fileName) in the replica's state (\(error)): the next restart ships the whole database")
                try? state.reset()
            }
        }
        if keepsShipped, (try? FileSystem.rename(path, to: outbox.shipped + "/" + name.fileName)) != nil { return }
        _ = try? FileSystem.remove(path)
    }

    /// The time an LTX file's header records.
    static func timestamp(of path: String) throws -> Date {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { descriptor.close() }
        let bytes = try descriptor.read(fromAbsoluteOffset: 0, count: LTXHeader.size)
        let header = try bytes.withUnsafeBytes { try LTXHeader(decoding: $0) }
        return Date(timeIntervalSince1970: Double(header.timestamp) / 1000)
    }
}
