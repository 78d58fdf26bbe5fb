import DatabaseKit
import Foundation

/// Ships the committed transactions of a live WAL database to a replica
/// directory as LTX files, in Litestream 0.5's layout
/// (`ltx/0/<min TXID>-<max TXID>.ltx`, the first one a snapshot of every
/// page at TXID 1), reading SQLite's log itself.
///
/// No frame is lost to a checkpoint: the session holds a read transaction
/// (``run(every:until:)`` keeps it open), and while one is open SQLite
/// never restarts the log — a checkpoint copies frames into the database
/// only up to the reader's snapshot, and the log is rewritten from its
/// start only once every frame was copied and no reader uses it. The
/// session lets the log restart at its own checkpoints only
/// (``checkpoint()``): under the write lock, it ships the log to its end,
/// ends its read transaction, checkpoints, and begins a new one before it
/// lets writers in again. Applications' own checkpoints stay harmless.
///
/// Confined to the thread that calls it.
final class ReplicationSession {
    /// The database file.
    let path: String
    /// The replica directory.
    let replica: String
    /// The last TXID written to the replica; 0 before the snapshot.
    private(set) var txid: UInt64 = 0
    /// Where the next read of the log starts; nil before the snapshot.
    private(set) var position: WALPosition?
    private var pageSize: UInt32 = 0
    /// What every file's header carries as its node ID: the database's
    /// identity (``DatabaseIdentity/nodeID``), 0 when it has none.
    var nodeID: UInt64 = 0

    /// Every file written, in order (for the status and the tests).
    private(set) var written: [LTXFileName] = []
    /// How many of the session's checkpoints let the log restart.
    private(set) var checkpoints = 0

    /// The connection whose read transaction pins the log, one that takes
    /// the write lock, and one that checkpoints.
    private let reader: DatabaseQueue
    private let locker: DatabaseQueue
    private let checkpointer: DatabaseQueue
    private var isReading = false
    /// The database file, read for full images. Opened once and closed only
    /// after the connections: closing any descriptor of the file drops every
    /// POSIX lock the process holds on it, SQLite's included ("How To
    /// Corrupt An SQLite Database File", 2.2), and another process closing
    /// its last connection would then checkpoint and delete the log under
    /// the session.
    private let databaseFile: FileDescriptor
    private var isClosed = false

    init(database path: String, replica: String) throws {
        self.path = path
        self.replica = replica
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
    /// again as they like) and closes the connections, then the file.
    func close() throws {
        guard !isClosed else { return }
        isClosed = true
        defer {
            try? reader.close()
            try? locker.close()
            try? checkpointer.close()
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
                    .tempFail, "\(path) stayed locked by writers for \(Int(seconds)) s: replication could not take its snapshot",
                    hint: "Try again when the database is quieter.")
            }
        }
    }

    // MARK: - Reading the log

    private func walHeader(_ wal: FileDescriptor) throws -> WALHeader? {
        let bytes = try wal.read(fromAbsoluteOffset: 0, count: WALHeader.size)
        return bytes.withUnsafeBytes { WALHeader($0) }
    }

    private func openWAL() throws -> FileDescriptor? {
        try FileDescriptor.openIfExists(path + "-wal", .readOnly)
    }

    // MARK: - Full images

    /// Begins replication after TXID `last` (0 for an empty replica): writes
    /// every page of the database as TXID `last + 1` at level 0 — the
    /// snapshot that starts a replica (`1-1`), or, after a restart, a full
    /// image that follows on the replica's last file without a gap — and
    /// begins the read transaction that pins the log.
    func start(after last: UInt64) throws {
        try writeFullImage { LTXFileName(level: 0, minTXID: last == 0 ? 1 : last + 1, maxTXID: last + 1) }
        txid = last + 1
    }

    /// Writes a snapshot of the database at the last TXID shipped, at level
    /// 9 (`1-TXID`): what a restore starts from. The log is shipped to its
    /// end first, under the write lock.
    @discardableResult
    func snapshot() throws -> LTXFileName {
        try sync()  // most of the log before the lock, the tail under it
        return try writeFullImage {
            try sync()
            return LTXFileName(level: LTXFileName.snapshotLevel, minTXID: 1, maxTXID: txid)
        }
    }

    /// Writes every page, as the file `locked` names under the write lock:
    /// the database file overlaid with the committed frames of the log,
    /// scanned under that lock; the pages are read after it, while the
    /// read transaction pins them (a checkpoint may copy frames into the
    /// file meanwhile, but only the frames whose pages the overlay takes).
    @discardableResult
    private func writeFullImage(_ locked: () throws -> LTXFileName) throws -> LTXFileName {
        let database = databaseFile
        let wal = try openWAL()
        defer { wal?.close() }
        let (name, header, transactions) = try waitingForWriteLock(seconds: 30) {
            () throws -> (LTXFileName, WALHeader?, WALTransactions?) in
            let name = try locked()
            let header = try wal.flatMap { try walHeader($0) }
            let transactions = try header.map { try $0.transactions(in: wal!, after: WALPosition(start: $0)) }
            if !isReading { try beginReading() }
            return (name, header, transactions)
        }
        let fileHeader = try database.read(fromAbsoluteOffset: 0, count: 100)
        guard fileHeader.count == 100 else { throw DBToolError(.dataError, "\(path) is not a SQLite database: it is shorter than its header") }
        let rawPageSize = fileHeader.withUnsafeBytes { $0.bigEndian(at: 16) as UInt16 }
        pageSize = rawPageSize == 1 ? 65536 : UInt32(rawPageSize)
        if let header, header.pageSize != pageSize {
            throw DBToolError(.dataError, "\(path)-wal has page size \(header.pageSize), the database \(pageSize)")
        }
        var commit = fileHeader.withUnsafeBytes { $0.bigEndian(at: 28) as UInt32 }
        if let transactions, !transactions.isEmpty { commit = transactions.commit }
        var ltx = LTXHeader(pageSize: pageSize, commit: commit, minTXID: name.minTXID, maxTXID: name.maxTXID, timestamp: Self.now())
        ltx.flags = LTXHeader.noChecksumFlag
        ltx.nodeID = nodeID
        try writeFile(name, header: ltx) { encoder in
            var page = [UInt8](repeating: 0, count: Int(pageSize))
            for number in 1...max(commit, 1) where number != ltx.lockPage && number <= commit {
                if let offset = transactions?.pages[number], let wal {
                    try page.withUnsafeMutableBytes { _ = try wal.read(fromAbsoluteOffset: offset, into: $0) }
                } else {
                    let count = try page.withUnsafeMutableBytes { try database.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: $0) }
                    guard count == page.count else {
                        throw DBToolError(.dataError, "\(path) is shorter than its \(commit) pages")
                    }
                }
                try page.withUnsafeBytes { try encoder.add(page: number, data: $0) }
            }
        }
        if name.level == 0 { position = transactions?.end ?? header.map { WALPosition(start: $0) } }
        return name
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
            // The log restarted: only after a checkpoint of the session's,
            // which shipped the old one to its end, can that be.
            guard restartExpected else { throw LogReplaced(path: path) }
            start = WALPosition(start: header)
        }
        let transactions = try header.transactions(in: wal, after: start)
        guard !transactions.isEmpty else { return nil }
        restartExpected = false
        let name = LTXFileName(level: 0, minTXID: txid + 1, maxTXID: txid + 1)
        var ltx = LTXHeader(pageSize: pageSize, commit: transactions.commit, minTXID: txid + 1, maxTXID: txid + 1, timestamp: Self.now())
        ltx.flags = LTXHeader.noChecksumFlag
        ltx.nodeID = nodeID
        ltx.walOffset = start.offset
        ltx.walSize = transactions.end.offset - start.offset
        ltx.walSalt1 = header.salt1
        ltx.walSalt2 = header.salt2
        try writeFile(name, header: ltx) { encoder in
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
    /// the replica's last file: a full image must.
    struct LogReplaced: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "the write-ahead log of \(path) restarted under replication: the database was replaced or checkpointed by force"
        }
    }

    /// Set by a checkpoint of the session's: the next log may be a new one.
    private var restartExpected = false

    /// Lets the log restart: under the write lock, ships it to its end,
    /// ends the read transaction, checkpoints every frame into the
    /// database, and begins a new read transaction, so that the next
    /// writer starts the log over without a frame unshipped. Most of the
    /// copy runs before, without the lock: a first locked step moves the
    /// read transaction to the end of what is shipped, then a passive
    /// checkpoint copies up to it. Returns false when writers kept the lock
    /// for a second: the log keeps growing until a later try.
    @discardableResult
    func checkpoint() throws -> Bool {
        // Writers wait only for two short steps: the long copy runs between
        // them, without the lock, up to a read mark moved to what is shipped.
        try sync()
        guard try withWriteLock({ () throws -> Void in
            try sync()
            try endReading()
            try beginReading()
        }) != nil else { return false }
        try passiveCheckpoint()
        let done: Void? = try withWriteLock { () throws -> Void in
            try sync()
            try endReading()
            try passiveCheckpoint()
            restartExpected = true
            try beginReading()
        }
        if done != nil { checkpoints += 1 }
        return done != nil
    }

    /// Copies into the database the frames no reader needs, without waiting.
    private func passiveCheckpoint() throws {
        _ = try checkpointer.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// The size of the log, in pages.
    func walPages() -> Int64 {
        guard pageSize > 0 else { return 0 }
        return FileSystem.size(path + "-wal") / (24 + Int64(pageSize))
    }

    /// Snapshots, then syncs every `interval` seconds until `stop` says so
    /// (with a last sync), checkpointing once the log holds
    /// `checkpointPages` pages.
    func run(every interval: Double, checkpointPages: Int64 = 1000, until stop: () -> Bool) throws {
        if txid == 0 { try start(after: 0) }
        while !stop() {
            try sync()
            if walPages() >= checkpointPages { try checkpoint() }
            Thread.sleep(forTimeInterval: interval)
        }
        try sync()
    }

    // MARK: - Writing files

    /// Writes one LTX file: a private temp file, renamed into place. Not
    /// synced: the directory is an outbox whose files a crash makes
    /// useless anyway (the next start writes a full image), and the store
    /// makes each file durable when it takes it; an fsync here would run
    /// under the write lock at checkpoints, stalling the application.
    private func writeFile(_ name: LTXFileName, header: LTXHeader, pages: (inout LTXEncoder) throws -> Void) throws {
        let directory = replica + "/ltx/\(name.level)"
        for folder in [replica, replica + "/ltx", directory] where !FileSystem.isDirectory(folder) {
            try FileSystem.createDirectory(folder)
        }
        let final = replica + "/" + name.path
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
        written.append(name)
    }

    /// Milliseconds since 1970, as LTX headers record time.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
