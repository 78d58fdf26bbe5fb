import DatabaseKit

/// A committed state of a live database, as replication reads it: the
/// database file overlaid with the newest frame of each page in the log up
/// to a point, scanned under the write lock. A read transaction begun at
/// that point keeps it readable (a checkpoint copies only frames its
/// readers do not need into the file, and never restarts a log a reader
/// uses), so its pages are read after the lock is released.
///
/// Reads the database through the session's one descriptor of it (see
/// ``ReplicationSession/databaseFile``), and the log through one of its own.
final class PagedState {
    let path: String
    let database: FileDescriptor
    let walPath: String
    /// Page number → offset of its newest copy in the log.
    let pages: [UInt32: Int64]
    /// The database's size in pages.
    let commit: UInt32
    let pageSize: UInt32
    /// Where the log was read up to (nil without a log).
    let end: WALPosition?
    /// The salts of the log the pages were found in.
    let salts: (UInt32, UInt32)
    private var wal: FileDescriptor?
    private let frame: UnsafeMutableRawBufferPointer

    init(
        path: String, database: FileDescriptor, walPath: String, pages: [UInt32: Int64], commit: UInt32, pageSize: UInt32, end: WALPosition?,
        salts: (UInt32, UInt32)
    ) {
        self.path = path
        self.database = database
        self.walPath = walPath
        self.pages = pages
        self.commit = commit
        self.pageSize = pageSize
        self.end = end
        self.salts = salts
        frame = .allocate(byteCount: 24 + Int(pageSize), alignment: 16)
    }

    deinit {
        wal?.close()
        frame.deallocate()
    }

    /// The pages of the database, the lock page left out.
    func allPages() -> some Sequence<UInt32> {
        let lockPage = LTXHeader.lockPage(pageSize: pageSize)
        return (UInt32(1)...max(commit, 1)).lazy.filter { $0 <= self.commit && $0 != lockPage }
    }

    /// Reads page `number` into `page` (the page size).
    ///
    /// A frame is taken only while it is still one of the log the state was
    /// found in (its salts, checked before and after the read): a reader
    /// that began when every frame was already in the database file holds
    /// no frame of the log, and the next writer may start the log over, its
    /// frames overwriting the old ones; every page of the state is then in
    /// the database file, which no checkpoint may change while that reader
    /// lasts, and is read there.
    func read(_ number: UInt32, into page: UnsafeMutableRawBufferPointer) throws {
        if let offset = pages[number] {
            if wal == nil { wal = try FileDescriptor.open(walPath, .readOnly) }
            let count = try wal!.read(fromAbsoluteOffset: offset - 24, into: frame)
            if count == frame.count && frameBelongs(UnsafeRawBufferPointer(frame)) {
                let again = try wal!.read(fromAbsoluteOffset: offset - 24, count: 24)
                if again.count == 24 && again.withUnsafeBytes({ frameBelongs($0) }) {
                    page.copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[24...]))
                    return
                }
            }
        }
        let count = try database.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: page)
        guard count == page.count else {
            throw DBToolError(.dataError, "\(path) is shorter than its \(commit) pages")
        }
    }

    /// Whether a frame header carries the state's log's salts.
    private func frameBelongs(_ header: UnsafeRawBufferPointer) -> Bool {
        header.bigEndian(at: 8) as UInt32 == salts.0 && header.bigEndian(at: 12) as UInt32 == salts.1
    }

    /// Writes the LTX file `name` of this state into `directory`'s level
    /// folder; `pages` adds the pages, with a buffer of one page.
    func write(
        _ name: LTXFileName, nodeID: UInt64, into directory: String,
        pages: (inout LTXEncoder, UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        let header = header(for: name, nodeID: nodeID, timestamp: ReplicationSession.now())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(pageSize), alignment: 16)
        defer { buffer.deallocate() }
        try LTXOutput.write(name, header: header, into: directory) { encoder in try pages(&encoder, buffer) }
    }

    /// The header of the LTX file `name` of this state.
    func header(for name: LTXFileName, nodeID: UInt64, timestamp: Int64) -> LTXHeader {
        var header = LTXHeader(pageSize: pageSize, commit: commit, minTXID: name.minTXID, maxTXID: name.maxTXID, timestamp: timestamp)
        header.flags = LTXHeader.noChecksumFlag
        header.nodeID = nodeID
        if let end, name.level == 0 {
            // The file brings a database to its state at `end` of this log: it
            // covers the log from its start there, so that the next run may
            // resume after it, and the next file continue it.
            header.walOffset = Int64(WALHeader.size)
            header.walSize = end.offset - Int64(WALHeader.size)
            header.walSalt1 = end.salt1
            header.walSalt2 = end.salt2
        }
        return header
    }
}

/// LTX files written into a local directory (the outbox, a maintenance
/// scratch folder), in their level folders: a private temp file renamed
/// into place.
enum LTXOutput {
    /// Writes `name` under `directory` (`ltx/LEVEL/NAME`). Not synced: the
    /// outbox's files are useless after a crash anyway (the next start reads
    /// the replica), and the store makes each file durable when it takes
    /// it; an fsync here would run under the write lock at checkpoints,
    /// stalling the application.
    static func write(_ name: LTXFileName, header: LTXHeader, into directory: String, pages: (inout LTXEncoder) throws -> Void) throws {
        let folder = directory + "/ltx/\(name.level)"
        for path in [directory, directory + "/ltx", folder] where !FileSystem.isDirectory(path) {
            try FileSystem.createDirectory(path)
        }
        let final = directory + "/" + name.path
        let temporary = final + ".tmp"
        _ = try? FileSystem.remove(temporary)
        let file = try FileDescriptor.createNew(temporary)
        do {
            var encoder = try LTXEncoder(header: header) { try file.writeAll($0) }
            try pages(&encoder)
            _ = try encoder.finish(postApplyChecksum: .zero)
            file.close()
            try FileSystem.rename(temporary, to: final)
        } catch {
            file.close()
            _ = try? FileSystem.remove(temporary)
            throw error
        }
    }

    /// The path of `name` under `directory`.
    static func path(of name: LTXFileName, in directory: String) -> String { directory + "/" + name.path }
}

/// A snapshot prepared by the shipping lane (``ReplicationSession/prepareImage()``),
/// written and uploaded by the maintenance lane while shipping goes on.
///
/// `@unchecked Sendable`: handed from one lane to the other once; its
/// state is read only by the lane that holds it, and `finish()` runs once.
final class ImagePlan: @unchecked Sendable {
    /// The snapshot's name (level 9, TXIDs 1 to the one prepared).
    let name: LTXFileName
    let state: PagedState
    let nodeID: UInt64
    /// The connection whose read transaction keeps the state's pages.
    private let pin: DatabaseQueue
    private let finished: @Sendable () -> Void
    private var isFinished = false

    init(name: LTXFileName, state: PagedState, nodeID: UInt64, pin: DatabaseQueue, finished: @escaping @Sendable () -> Void) {
        self.name = name
        self.state = state
        self.nodeID = nodeID
        self.pin = pin
        self.finished = finished
    }

    deinit { finish() }

    /// The snapshot was abandoned (``write(into:cancelled:)``).
    struct Cancelled: Error {}

    /// Writes the snapshot into `directory` (its level folder); returns its
    /// path. `cancelled` is asked every thousand pages.
    func write(into directory: String, cancelled: () -> Bool) throws -> String {
        try state.write(name, nodeID: nodeID, into: directory) { encoder, page in try addPages(to: &encoder, page: page, cancelled: cancelled) }
        return LTXOutput.path(of: name, in: directory)
    }

    /// Writes the snapshot to `sink`, with the header's time `timestamp`
    /// (milliseconds since 1970): streamed to the store, no local copy.
    /// `cancelled` is asked every thousand pages.
    func write(to sink: @escaping LTXEncoder.Sink, timestamp: Int64, cancelled: () -> Bool) throws {
        var encoder = try LTXEncoder(header: state.header(for: name, nodeID: nodeID, timestamp: timestamp), to: sink)
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(state.pageSize), alignment: 16)
        defer { page.deallocate() }
        try addPages(to: &encoder, page: page, cancelled: cancelled)
        _ = try encoder.finish(postApplyChecksum: .zero)
    }

    private func addPages(to encoder: inout LTXEncoder, page: UnsafeMutableRawBufferPointer, cancelled: () -> Bool) throws {
        var count = 0
        for number in state.allPages() {
            count += 1
            if count % 1000 == 0 {
                try Interruption.check()
                if cancelled() { throw Cancelled() }
            }
            try state.read(number, into: page)
            try encoder.add(page: number, data: UnsafeRawBufferPointer(page))
        }
    }

    /// Ends the read transaction, closes the connection, and tells the
    /// session (which closes the database file only after its plans).
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        _ = try? pin.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        try? pin.close()
        finished()
    }
}
