import DatabaseKit
import FoundationEssentials

/// Ships the committed transactions of a live WAL database as LTX files
/// into an outbox directory (`ltx/0/<min TXID>-<max TXID>.ltx`), in
/// Litestream 0.5's layout, reading SQLite's log itself.
///
/// No frame is lost to a checkpoint: the session holds a read transaction,
/// and while one is open SQLite never restarts the log — a checkpoint copies
/// frames into the database only up to the reader's snapshot, and the log
/// is rewritten from its start only once every frame was copied and no
/// reader uses it. The session lets the log restart at its own checkpoints
/// only (``checkpoint()``): under the write lock, it ships the log to its
/// end, ends its read transaction, checkpoints, and begins a new one before
/// it lets writers in again. Applications' own checkpoints stay harmless.
///
/// It starts in one of three ways (`ReplicationStart` chooses): a whole
/// image of the database (an empty replica, or one whose history diverged),
/// a resume at the replica's position in the same log, or a file of the
/// pages that differ from what the replica holds (`ReplicaState`).
///
/// Confined to the shipping lane; the snapshots it prepares (``ImagePlan``)
/// are written on the maintenance lane while it goes on, and the long copy
/// of a checkpoint may run on a thread of its own (``startCopyingAhead()``).
final class ReplicationSession {
    /// The database file.
    let path: String
    /// The outbox directory its files go to.
    let outbox: String
    /// The last TXID written to the outbox (or the replica's, after a resume).
    private(set) var txid: UInt64 = 0
    /// Where the next read of the log starts; nil before the start.
    private(set) var position: WALPosition?
    private(set) var pageSize: UInt32 = 0
    /// What every file's header carries as its node ID: the database's
    /// identity (``DatabaseIdentity/nodeID``), 0 when it has none.
    var nodeID: UInt64 = 0

    /// How many of the session's checkpoints let the log restart.
    private(set) var checkpoints = 0

    /// The connection whose read transaction pins the log, one that takes
    /// the write lock, and one that checkpoints.
    private let reader: DatabaseQueue
    private let locker: DatabaseQueue
    private let checkpointer: DatabaseQueue
    private var isReading = false
    /// The database file, read for images. Opened once and closed only
    /// after the connections and every image plan: closing any descriptor
    /// of the file drops every POSIX lock the process holds on it, SQLite's
    /// included ("How To Corrupt An SQLite Database File", 2.2).
    let databaseFile: FileDescriptor
    /// The image plans not yet finished, which read ``databaseFile``.
    private let openImages = Locked(0)
    private var isClosed = false
    /// Whether a copy of ``startCopyingAhead()`` runs, on its own thread.
    private let copyingAhead = Locked(false)
    /// Where the last one began, until a checkpoint: the log is copied up
    /// to there, and ``checkpoint()`` has only the rest to copy.
    private var copiedAheadTo: Int64?

    init(database path: String, outbox: String) throws {
        self.path = path
        self.outbox = outbox
        var configuration = Configuration()
        configuration.busyMode = .timeout(1)
        locker = try DatabaseQueue(path: path, configuration: configuration)
        configuration.busyMode = .timeout(5)
        // The one connection whose transaction outlives an access: the read that pins the log.
        configuration.allowsUnsafeTransactions = true
        reader = try DatabaseQueue(path: path, configuration: configuration)
        databaseFile = try FileDescriptor.open(path, .readOnly)
        checkpointer = try DatabaseQueue(path: path, configuration: configuration)
        let mode = try reader.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        guard mode?.lowercased() == "wal" else {
            throw DBToolError(
                .dataError, "\(path) is not in WAL mode (journal_mode is \(mode ?? "unknown")): replication reads SQLite's write-ahead log",
                hint: "Run `dbtool exec --database DIR \"PRAGMA journal_mode = WAL\"` once.")
        }
    }

    /// Ends the read transaction (checkpoints may copy and restart the log
    /// again as they like) and closes the connections; the file once the
    /// images being written from it are done.
    func close() throws {
        guard !isClosed else { return }
        isClosed = true
        defer {
            // A copy beside the session stops at its next frame (asked
            // again until it ends: it may not have begun its statement yet).
            while isCopyingAhead {
                checkpointer.interrupt()
                WorkerThreads.pause(seconds: 0.01)
            }
            try? reader.close()
            try? locker.close()
            try? checkpointer.close()
            openImages.withLock(waitingUntil: { $0 == 0 }) { _ in }
            databaseFile.close()
        }
        try endReading()
    }

    deinit {
        try? close()
    }

    // MARK: - The read transaction

    private func beginReading() throws {
        try reader.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN DEFERRED")
            // A read transaction starts at its first read.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        }
        isReading = true
    }

    private func endReading() throws {
        guard isReading else { return }
        try reader.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        isReading = false
    }

    /// Runs `body` with SQLite's write lock held by the session's own
    /// connection: no transaction commits meanwhile. Nil when the lock did
    /// not come within a second (a busy writer: the caller tries again later).
    private func withWriteLock<T>(_ body: () throws -> T) throws -> T? {
        try locker.writeWithoutTransaction { db in
            do {
                try db.execute(sql: "BEGIN IMMEDIATE")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return nil
            }
            defer { try? db.execute(sql: "ROLLBACK") }
            return try body()
        }
    }

    /// ``withWriteLock(_:)``, tried until `seconds` passed.
    private func waitingForWriteLock<T>(seconds: Double, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let result = try withWriteLock(body) { return result }
            try Interruption.check()
            guard Date() < deadline else {
                throw DBToolError(
                    .tempFail, "\(path) stayed locked by writers for \(Int(seconds)) s: replication could not read a consistent state",
                    hint: "Try again when the database is quieter.")
            }
        }
    }

    // MARK: - Reading the log and the pages

    private func walHeader(_ wal: FileDescriptor) throws -> WALHeader? {
        let bytes = try wal.read(fromAbsoluteOffset: 0, count: WALHeader.size)
        return bytes.withUnsafeBytes { WALHeader($0) }
    }

    private func openWAL() throws -> FileDescriptor? {
        try FileDescriptor.openIfExists(path + "-wal", .readOnly)
    }

    /// The committed state of the database, scanned under the write lock:
    /// the log's header, the newest frame of each page in it, and the size.
    /// With the session's read transaction begun, the pages it names stay
    /// readable as they are (see ``PagedState``).
    ///
    /// - parameter shippingFirst: Ship the log to its end under the lock
    ///   first: the state is then the last TXID written's.
    private func scanCommittedState(shippingFirst: Bool = false) throws -> PagedState {
        if shippingFirst { try sync() }  // most of the log before the lock
        let wal = try openWAL()
        defer { wal?.close() }
        let (header, transactions) = try waitingForWriteLock(seconds: 30) { () throws -> (WALHeader?, WALTransactions?) in
            if shippingFirst { try sync() }
            let header = try wal.flatMap { try walHeader($0) }
            let transactions = try header.map { try $0.transactions(in: wal!, after: WALPosition(start: $0)) }
            if !isReading { try beginReading() }
            return (header, transactions)
        }
        let fileHeader = try databaseFile.read(fromAbsoluteOffset: 0, count: 100)
        guard fileHeader.count == 100 else { throw DBToolError(.dataError, "\(path) is not a SQLite database: it is shorter than its header") }
        let rawPageSize = fileHeader.withUnsafeBytes { $0.bigEndian(at: 16) as UInt16 }
        pageSize = rawPageSize == 1 ? 65536 : UInt32(rawPageSize)
        if let header, header.pageSize != pageSize {
            throw DBToolError(.dataError, "\(path)-wal has page size \(header.pageSize), the database \(pageSize)")
        }
        var commit = fileHeader.withUnsafeBytes { $0.bigEndian(at: 28) as UInt32 }
        if let transactions, !transactions.isEmpty { commit = transactions.commit }
        return PagedState(
            path: path, database: databaseFile, walPath: path + "-wal", pages: transactions?.pages ?? [:], commit: commit, pageSize: pageSize,
            end: transactions?.end ?? header.map { WALPosition(start: $0) }, salts: (header?.salt1 ?? 0, header?.salt2 ?? 0))
    }

    // MARK: - Starting

    /// Begins with a whole image of the database as TXID `last + 1` at
    /// level 0: the snapshot that starts a replica (`1-1`), or a full image
    /// that follows on the replica's last file without a gap when its
    /// history and the database's diverged. Returns the file written.
    @discardableResult
    func startWithImage(after last: UInt64) throws -> LTXFileName {
        let state = try scanCommittedState()
        let name = LTXFileName(level: 0, minTXID: last == 0 ? 1 : last + 1, maxTXID: last + 1)
        try state.write(name, nodeID: nodeID, into: outbox) { encoder, page in
            for number in state.allPages() {
                try state.read(number, into: page)
                try encoder.add(page: number, data: UnsafeRawBufferPointer(page))
            }
        }
        txid = last + 1
        position = state.end
        return name
    }

    /// Resumes after TXID `last`, whose file ended the log at `end`: when
    /// the log is still that one (its salts) and holds every frame up to
    /// there, what follows in it is shipped as TXID `last + 1` (nothing
    /// when nothing follows). Returns false when the log is another
    /// (checkpointed away since).
    func resume(after last: UInt64, at end: WALPosition) throws -> Bool {
        guard let wal = try openWAL() else { return false }
        defer { wal.close() }
        let resumed = try waitingForWriteLock(seconds: 30) { () throws -> Bool in
            guard let header = try walHeader(wal), end.belongs(to: header) else { return false }
            // The frames up to `end` must still be there, their checksums unbroken.
            let transactions = try header.transactions(in: wal, after: WALPosition(start: header))
            guard transactions.end.offset >= end.offset, let found = try header.position(in: wal, at: end.offset) else { return false }
            pageSize = header.pageSize
            position = found
            txid = last
            // What the log holds after the replica's position is shipped
            // now, under the lock, so that the read transaction begins at
            // the end of what is shipped (see `sync()`).
            try sync()
            if !isReading { try beginReading() }
            return true
        }
        return resumed
    }

    /// Records in `recorded` every page of the database as of the last TXID
    /// written (after a ``resume(after:at:)`` with a state that did not
    /// describe the replica): the log is shipped to its end under the write
    /// lock, so that the state is exactly that TXID's. No file is written but
    /// what that sync ships.
    func record(into recorded: ReplicaState) throws {
        let state = try scanCommittedState(shippingFirst: true)
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(state.pageSize), alignment: 16)
        defer { page.deallocate() }
        try recorded.record(pageSize: state.pageSize, commit: state.commit, txid: txid) { number in
            try state.read(number, into: page)
            return LTXChecksum.page(number, UnsafeRawBufferPointer(page)).rawValue
        }
    }

    /// Begins after TXID `last` with one file of the pages that differ from
    /// what the replica holds (`state`, at `last`), as TXID `last + 1`; nil
    /// when none does (the replica holds the database as it is). Reads every
    /// page once to compare, then the changed ones again to write them.
    func startWithChangedPages(after last: UInt64, state recorded: ReplicaState) throws -> LTXFileName? {
        let state = try scanCommittedState()
        var changed: [UInt32] = []
        let chunk = 4096
        var expected: [UInt64] = []
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(state.pageSize), alignment: 16)
        defer { page.deallocate() }
        var first: UInt32 = 1
        while first <= max(state.commit, 1) && state.commit > 0 {
            try Interruption.check()
            let count = Int(min(UInt32(chunk), state.commit - first + 1))
            try recorded.checksums(from: first, count: count, into: &expected)
            for offset in 0..<count {
                let number = first + UInt32(offset)
                guard number != LTXHeader.lockPage(pageSize: state.pageSize) else { continue }
                try state.read(number, into: page)
                let checksum = LTXChecksum.page(number, UnsafeRawBufferPointer(page)).rawValue
                if number > recorded.commit || checksum != expected[offset] { changed.append(number) }
            }
            first += UInt32(count)
        }
        position = state.end
        if changed.isEmpty && state.commit == recorded.commit {
            txid = last
            return nil
        }
        let name = LTXFileName(level: 0, minTXID: last + 1, maxTXID: last + 1)
        try state.write(name, nodeID: nodeID, into: outbox) { encoder, buffer in
            for number in changed {
                try state.read(number, into: buffer)
                try encoder.add(page: number, data: UnsafeRawBufferPointer(buffer))
            }
        }
        txid = last + 1
        return name
    }

    // MARK: - Snapshots

    /// Prepares a snapshot at the last TXID shipped, for the maintenance
    /// lane to write (``ImagePlan``): the log is shipped to its end, then,
    /// under the write lock, scanned from its start, and a connection of
    /// the plan's own begins a read transaction there, so that the pages
    /// stay as they are at that TXID until the plan is finished, while this
    /// session goes on syncing and checkpointing (up to the plan's state).
    func prepareImage() throws -> ImagePlan {
        try sync()  // most of the log before the lock, the tail under it
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.allowsUnsafeTransactions = true
        configuration.readonly = true
        let pin = try DatabaseQueue(path: path, configuration: configuration)
        let wal = try openWAL()
        defer { wal?.close() }
        let (pages, commit, shipped, salts) = try waitingForWriteLock(seconds: 30) {
            () throws -> ([UInt32: Int64], UInt32?, UInt64, (UInt32, UInt32)) in
            try sync()
            try pin.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN DEFERRED")
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            }
            guard let wal, let header = try walHeader(wal) else { return ([:], nil, txid, (0, 0)) }
            let transactions = try header.transactions(in: wal, after: WALPosition(start: header))
            return (transactions.pages, transactions.isEmpty ? nil : transactions.commit, txid, (header.salt1, header.salt2))
        }
        let fileHeader = try databaseFile.read(fromAbsoluteOffset: 0, count: 100)
        let fileCommit = fileHeader.count == 100 ? fileHeader.withUnsafeBytes { $0.bigEndian(at: 28) as UInt32 } : 0
        openImages.withLock { $0 += 1 }
        let state = PagedState(
            path: path, database: databaseFile, walPath: path + "-wal", pages: pages, commit: commit ?? fileCommit, pageSize: pageSize, end: nil,
            salts: salts)
        let openImages = self.openImages
        return ImagePlan(
            name: LTXFileName(level: LTXFileName.snapshotLevel, minTXID: 1, maxTXID: shipped), state: state, nodeID: nodeID, pin: pin,
            finished: {
                openImages.withLock { $0 -= 1 }
                openImages.broadcast()
            })
    }

    // MARK: - Syncing

    /// Ships the transactions committed since the last sync as one level-0
    /// file; returns its name, or nil when there was nothing to ship.
    ///
    /// - throws: ``LogReplaced`` when the log is not the one the session
    ///   was reading (the database was replaced under it).
    @discardableResult
    func sync() throws -> LTXFileName? {
        guard let wal = try openWAL() else { return nil }
        defer { wal.close() }
        guard let header = try walHeader(wal) else { return nil }
        var start = position ?? WALPosition(start: header)
        if !start.belongs(to: header) {
            // SQLite restarted the log. It does so only once every frame was
            // copied and no reader needs one; the session's read transaction
            // always begins at the end of what it shipped, so that can only
            // be before a new frame: nothing unshipped is lost. (Its own
            // checkpoints restart it; so may an application's, when the
            // session began reading a log copied whole.)
            guard start.isRestarted(as: header) else { throw LogReplaced(path: path) }
            start = WALPosition(start: header)
        }
        let transactions = try header.transactions(in: wal, after: start)
        guard !transactions.isEmpty else { return nil }
        restartExpected = false
        if pageSize == 0 { pageSize = header.pageSize }
        let name = LTXFileName(level: 0, minTXID: txid + 1, maxTXID: txid + 1)
        var ltx = LTXHeader(pageSize: pageSize, commit: transactions.commit, minTXID: txid + 1, maxTXID: txid + 1, timestamp: Self.now())
        ltx.flags = LTXHeader.noChecksumFlag
        ltx.nodeID = nodeID
        ltx.walOffset = start.offset
        ltx.walSize = transactions.end.offset - start.offset
        ltx.walSalt1 = header.salt1
        ltx.walSalt2 = header.salt2
        try LTXOutput.write(name, header: ltx, into: outbox) { encoder in
            var page = [UInt8](repeating: 0, count: Int(pageSize))
            for (number, offset) in transactions.pages.sorted(by: { $0.key < $1.key }) where number != ltx.lockPage {
                try page.withUnsafeMutableBytes { _ = try wal.read(fromAbsoluteOffset: offset, into: $0) }
                try page.withUnsafeBytes { try encoder.add(page: number, data: $0) }
            }
        }
        txid += 1
        position = transactions.end
        return name
    }

    /// The log is not the one the session was reading, and the session did
    /// not restart it: the database was replaced under it (a restore, a
    /// file moved in) or checkpointed by force. What it holds can not follow
    /// the replica's last file: a new start must.
    struct LogReplaced: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "the write-ahead log of \(path) restarted under replication: the database was replaced or checkpointed by force"
        }
    }

    /// Whether an image (a snapshot) still reads the database: its read
    /// transaction keeps the log from restarting, so a checkpoint waits.
    var imageIsOpen: Bool { openImages.withLock { $0 > 0 } }

    /// Set by a checkpoint of the session's, till the next sync reads a
    /// frame: the log starts over at the next write (``walPages()`` is 0).
    private var restartExpected = false

    /// Lets the log restart: under the write lock, ships it to its end,
    /// ends the read transaction, checkpoints every frame into the
    /// database, and begins a new read transaction, so that the next
    /// writer starts the log over without a frame unshipped. Most of the
    /// copy runs before, without the lock: a first locked step moves the
    /// read transaction to the end of what is shipped, then a passive
    /// checkpoint copies up to it. Returns false when writers kept the lock
    /// for a second: the log keeps growing until a later try. (A snapshot
    /// being written keeps its own read transaction: the log then restarts
    /// only after it.)
    ///
    /// Call it while no copy of ``startCopyingAhead()`` runs
    /// (``isCopyingAhead``): it would wait for that copy.
    @discardableResult
    func checkpoint() throws -> Bool {
        // Writers wait only for two short steps: the long copy runs between
        // them, without the lock, up to a read mark moved to what is shipped.
        guard try moveReadMarkToEnd() else { return false }
        try Self.passiveCheckpoint(checkpointer)
        let done: Void? = try withWriteLock { () throws -> Void in
            try sync()
            try endReading()
            try Self.passiveCheckpoint(checkpointer)
            restartExpected = true
            try beginReading()
        }
        if done != nil {
            checkpoints += 1
            copiedAheadTo = nil
        }
        return done != nil
    }

    /// Starts the long part of a checkpoint beside the session: moves the
    /// read transaction to the end of what is shipped, then a passive
    /// checkpoint on a thread of its own copies the log up to there while
    /// the session goes on syncing. Once it is done (``pagesAfterCopy``),
    /// ``checkpoint()`` copies only what came after and lets the log
    /// restart: the tens of megabytes a log grows while a snapshot keeps it
    /// from restarting never hold up a sync. Returns false when writers
    /// kept the lock for a second (nothing started).
    @discardableResult
    func startCopyingAhead() throws -> Bool {
        guard !isCopyingAhead, try moveReadMarkToEnd() else { return false }
        copyingAhead.withLock { $0 = true }
        copiedAheadTo = position?.offset
        let checkpointer = self.checkpointer
        let copyingAhead = self.copyingAhead
        // Below the lane's priority, as snapshots are: it must slow neither
        // the syncs nor the application.
        WorkerThreads.start(name: "checkpoint", priority: .background) { _ in
            // An error here (or the interruption of a close) is met again,
            // and reported, by the checkpoint that follows.
            try? Self.passiveCheckpoint(checkpointer)
            copyingAhead.withLock { $0 = false }
        }
        return true
    }

    /// Whether a copy of ``startCopyingAhead()`` still runs.
    var isCopyingAhead: Bool { copyingAhead.withLock { $0 } }

    /// The frames shipped since the last copy of ``startCopyingAhead()``
    /// began, which the next ``checkpoint()`` copies; nil when none ran
    /// since the last checkpoint.
    var pagesAfterCopy: Int64? {
        guard let copiedAheadTo, let position, pageSize > 0 else { return nil }
        // A log started over since (every frame was copied): a short rest.
        return max(0, (position.offset - copiedAheadTo) / frameSize)
    }

    /// Under the write lock, ships the log to its end and moves the read
    /// transaction there, so that a passive checkpoint may copy every frame
    /// shipped. False when writers kept the lock.
    private func moveReadMarkToEnd() throws -> Bool {
        try sync()  // most of the log before the lock, the tail under it
        return try withWriteLock { () throws -> Void in
            try sync()
            try endReading()
            try beginReading()
        } != nil
    }

    /// Copies into the database the frames no reader needs, without waiting.
    private static func passiveCheckpoint(_ checkpointer: DatabaseQueue) throws {
        _ = try checkpointer.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// The frames of the current log, up to what was shipped: 0 once a
    /// checkpoint let it restart (the next write starts it over). Not the
    /// log file's size, which SQLite keeps when the log restarts.
    func walPages() -> Int64 {
        guard pageSize > 0, !restartExpected, let position else { return 0 }
        return (position.offset - Int64(WALHeader.size)) / frameSize
    }

    /// The size of a frame of the log: its 24-byte header and a page.
    private var frameSize: Int64 { 24 + Int64(pageSize) }

    /// Milliseconds since 1970, as LTX headers record time.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

extension WALHeader {
    /// The position at `offset` of `file` (this log): after the frame that
    /// ends there, with the running checksum that frame records; nil when
    /// that frame is not one of this log.
    func position(in file: FileDescriptor, at offset: Int64) throws -> WALPosition? {
        if offset == Int64(WALHeader.size) { return WALPosition(start: self) }
        guard offset > Int64(WALHeader.size), (offset - Int64(WALHeader.size)) % frameSize == 0 else { return nil }
        let bytes = try file.read(fromAbsoluteOffset: offset - frameSize, count: 24)
        guard bytes.count == 24 else { return nil }
        return bytes.withUnsafeBytes { raw -> WALPosition? in
            guard raw.bigEndian(at: 8) as UInt32 == salt1, raw.bigEndian(at: 12) as UInt32 == salt2 else { return nil }
            let checksum = WALChecksum(first: raw.bigEndian(at: 16), second: raw.bigEndian(at: 20))
            return WALPosition(offset: offset, checksum: checksum, salt1: salt1, salt2: salt2)
        }
    }
}
