import FoundationEssentials

/// `dbtool restore REPLICA DIR --follow`: keeps a restored database current
/// with its replica, a read-only copy for readers elsewhere, until SIGTERM.
///
/// Every interval the files after the copy's TXID (level 0's, one listing,
/// while it goes on from the copy) are merged (each page's
/// newest version, in a scratch file beside DIR, `.dbtool-follow-NAME/`)
/// and written into DIR's database in place, as one transaction of
/// SQLite's own rollback journal (`JournaledPageWriter`): readers see the
/// state before or the state after, never a half-applied file, and wait
/// only while the changed pages are written. A follower of a database of
/// any size writes about what changed, and the copy (in rollback-journal
/// mode) has no write-ahead log to grow. When the replica no longer holds
/// the files that follow (retention passed them), the copy is brought to
/// the newest snapshot and the files after it the same way.
public struct FollowOperation: Sendable {
    public var replica: String
    /// The directory the restore filled.
    public var directory: String
    /// The TXID the restore gave, hexadecimal.
    public var txid: String
    public var interval: TimeInterval = 1
    public var objectStore = ObjectStoreOptions()
    /// Receives one line per update.
    public var log: LogSink = { _, _ in }
    /// Called once the follower holds DIR (its lock taken, an update a kill
    /// cut short rolled back), before the first update.
    public var started: @Sendable () -> Void = {}

    public init(replica: String, directory: String, txid: String) {
        self.replica = replica
        self.directory = directory
        self.txid = txid
    }

    public struct Report: Codable, Sendable, Equatable {
        /// The TXID the copy reached, hexadecimal.
        public var txid: String
        /// How many times the copy was brought forward.
        public var updates: Int
        public var stoppedBy: String?
    }

    /// Follows until SIGTERM or SIGINT (or `stop`).
    ///
    /// - throws: ``DBToolError`` when the replica or the copy fails for good
    ///   (a damaged file: 65; the copy's database gone: 66).
    public func run(until stop: @escaping () -> Bool = { false }) throws -> Report {
        let store = try Replica.at(replica, objectStore: objectStore)
        let target = try LocalPath.resolve(directory, what: "the directory to follow into")
        let databaseName = DatabaseLocation.defaultFileName
        guard FileSystem.exists(target + "/" + databaseName) else {
            throw DBToolError(.noInput, "no database at \(target)/\(databaseName) to keep current", hint: "Restore into DIR first.")
        }
        // One follower (or restore) at a time into DIR: the restore's lock, held throughout.
        let lockDirectory = FileSystem.isMountPoint(target) ? target : LocalPath.parent(of: target)
        let lock = try ExclusiveLock(directory: lockDirectory, purpose: .follow(into: LocalPath.name(of: target)), timeout: 0)
        defer { withExtendedLifetime(lock) {} }
        let folder = try DirectoryDescriptor.open(target)
        defer { folder.close() }
        let parent = try DirectoryDescriptor.open(LocalPath.parent(of: target))
        defer { parent.close() }
        // An update a kill cut short: SQLite rolls the copy back to the TXID before it.
        try DatabaseHandle(location: try DatabaseLocation(path: target, fileName: databaseName)).rollBackUnfinishedTransaction()
        let database = try folder.status(of: databaseName)?.identity
        removeStaleTempFiles(in: target, prefix: FollowerState.tempPrefix)
        let scratchName = boundedFileName(".dbtool-follow-", LocalPath.name(of: target), "")
        parent.removeTree(scratchName)
        do {
            try parent.createDirectory(scratchName)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of \(parent.path).")
        }
        defer { parent.removeTree(scratchName) }
        let scratch = try parent.openDirectory(scratchName)
        defer { scratch.close() }
        let pageSize = try Self.pageSize(of: folder, databaseName)
        let writer = try JournaledPageWriter(folder: folder, name: databaseName, pageSize: pageSize)

        var current = UInt64(txid, radix: 16) ?? 0
        var recorded = (txid: current, time: Date())
        let recordState = { (txid: UInt64) throws in
            guard let database else { return }
            try FollowerState(replica: store.description, txid: txid, database: database).write(in: folder, for: databaseName)
            recorded = (txid, Date())
        }
        try recordState(current)
        started()
        var updates = 0
        var waiting = false
        var listedEveryLevel = Date.distantPast
        while !stop() && !Interruption.isRequested {
            try? Interruption.sleep(seconds: waiting ? min(interval, 0.05) : interval)
            if stop() || Interruption.isRequested { break }
            // The position is recorded now and then, not at every update: a
            // follower killed meanwhile goes on from an older TXID, merging
            // the same files again into one update of the same pages.
            if recorded.txid != current && recorded.time.timeIntervalSinceNow <= -Self.stateInterval {
                try recordState(current)
            }
            do {
                // Level 0 alone while it goes on from the copy (one listing a
                // poll); every level when it starts later (compaction and
                // retention took what follows), and now and then when it
                // holds nothing newer, in case the replica moved on above it.
                var files = try store.files(level: 0, firstTXIDs: ReplicaLevels.listing(level: 0, reach: current))
                let continues = files.contains { $0.name.minTXID == current + 1 }
                // The newest snapshot, when it is past the copy: retention may
                // have left it alone, nothing written after it.
                var snapshotReach: UInt64 = 0
                if !continues && (!files.isEmpty || listedEveryLevel.timeIntervalSinceNow < -Self.everyLevelInterval) {
                    files = try store.files(after: current, straddling: true)
                    snapshotReach = try store.files(level: LTXFileName.snapshotLevel).map(\.name.maxTXID).max() ?? 0
                    listedEveryLevel = Date()
                }
                let missing = current + 1
                var next = try RestorePlan.chain(after: current, in: files)
                let last = max(files.map(\.name.maxTXID).max() ?? current, snapshotReach)
                var rebuilt = false
                if next.isEmpty && last > current {
                    // What follows is gone from the replica: from its newest snapshot.
                    guard let plan = try RestorePlan.load(from: store, target: .latest).plan else { continue }
                    next = plan.files
                    rebuilt = true
                } else if next.isEmpty {
                    continue
                }
                let merged = try MergedPages(next, from: store, pageSize: pageSize, in: scratch)
                guard let held = try writer.apply(merged.update) else {
                    // Readers kept the copy: they go on, the update comes a moment later.
                    waiting = true
                    continue
                }
                waiting = false
                current = next.last!.name.maxTXID
                updates += 1
                if rebuilt {
                    log(.warning, "the replica no longer held TXID \(LTXFileName.hex(missing)): the copy went to its snapshot")
                }
                log(
                    .info,
                    "at TXID \(LTXFileName.hex(current)): \(merged.update.pages.count) pages (readers waited \(Int((held * 1000).rounded())) ms)"
                )
            } catch let error as DBToolError where error.isTransient {
                log(.warning, "the replica does not answer (\(error.message)): retrying")
            } catch  where Interruption.isRequested {
                break  // the copy keeps its last whole state
            }
        }
        if recorded.txid != current {
            do {
                try recordState(current)
            } catch {
                // The older position stays: going on from it is only longer.
                log(.warning, "the copy's position (TXID \(LTXFileName.hex(current))) could not be recorded: \(error)")
            }
        }
        return Report(txid: LTXFileName.hex(current), updates: updates, stoppedBy: Interruption.acknowledge())
    }

    /// The TXID a follower goes on from when DIR holds the copy a follower
    /// of `replica` left: `restore REPLICA DIR --follow` run again (a
    /// restart, a reboot) resumes there instead of restoring the database
    /// anew. nil when DIR holds no follower's state (a restore comes first).
    ///
    /// - throws: ``DBToolError`` 73 when the state names another replica,
    ///   or its database was replaced or removed since; 65 when the state
    ///   is not one dbtool wrote.
    public static func resumePoint(replica: String, directory: String, objectStore: ObjectStoreOptions) throws -> String? {
        let target = try LocalPath.resolve(directory, what: "the directory to follow into")
        guard let folder = try? DirectoryDescriptor.open(target) else { return nil }
        defer { folder.close() }
        let databaseName = DatabaseLocation.defaultFileName
        guard let state = try FollowerState.read(in: folder, for: databaseName) else { return nil }
        let store = try Replica.at(replica, objectStore: objectStore)
        guard state.replica == store.description else {
            throw DBToolError(
                .cantCreate, "\(target) is the copy of a follower of \(state.replica), not of \(store.description)",
                hint: "Follow \(state.replica) into it, or pass --force to restore it anew from \(store.description).")
        }
        guard let database = try folder.status(of: databaseName), database.kind == .regular, database.identity == state.database else {
            throw DBToolError(
                .cantCreate, "\(target)/\(databaseName) is not the database its follower left: it was replaced or removed since",
                hint: "Pass --force to restore the copy anew from \(store.description).")
        }
        return state.txid
    }

    /// How often a follower with nothing new in level 0 lists the other
    /// levels too.
    static let everyLevelInterval: TimeInterval = 60

    /// How often, at most, the copy's position is recorded while it moves
    /// (``FollowerState``): each record is a file written and synced, and a
    /// follower killed goes on from a position at most this old.
    static let stateInterval: TimeInterval = 10

    /// The page size the copy's header gives.
    private static func pageSize(of folder: DirectoryDescriptor, _ name: String) throws -> UInt32 {
        let (file, _) = try folder.openRegularFile(name)
        defer { file.close() }
        let header = try file.read(fromAbsoluteOffset: 16, count: 2)
        guard header.count == 2 else { throw DBToolError(.dataError, "\(folder.path(of: name)) is not a SQLite database") }
        let raw = UInt32(header[0]) << 8 | UInt32(header[1])
        return raw == 1 ? 65536 : raw
    }
}

/// The pages of LTX files merged: each page's newest version, and the
/// size the last file gives. The pages of an update of a few seconds stay
/// in memory (up to ``memoryLimit``); a larger one goes to a scratch file,
/// each page at its place, so that memory stays flat whatever the update.
private final class MergedPages {
    static let memoryLimit = 4 << 20
    private let pageSize: Int
    private let scratch: DirectoryDescriptor
    /// The pages in memory, one after the other, and each page's slot.
    private var memory: [UInt8] = []
    private var slots: [UInt32: Int] = [:]
    /// The scratch file, once the pages outgrew memory.
    private var file: FileDescriptor?
    /// The update for `JournaledPageWriter`.
    private(set) var update = JournaledPageWriter.Update(pages: [], read: { _, _ in }, commit: 0)

    init(_ files: [ReplicaFile], from replica: Replica, pageSize: UInt32, in scratch: DirectoryDescriptor) throws {
        self.pageSize = Int(pageSize)
        self.scratch = scratch
        var present = Set<UInt32>()
        var commit: UInt32 = 0
        var page = [UInt8](repeating: 0, count: Int(pageSize))
        for source in files {
            var decoder: LTXDecoder
            do {
                decoder = try LTXDecoder(from: try replica.open(source.name))
                guard decoder.header.pageSize == pageSize else {
                    throw LTXError.malformed("its page size is \(decoder.header.pageSize), the copy's \(pageSize)")
                }
                while let number = try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) {
                    try store(number, page)
                    present.insert(number)
                }
            } catch let error as LTXError {
                throw DBToolError(.dataError, "\(replica.description): \(source.name.path) can not be applied: \(error.reason)")
            }
            commit = decoder.header.commit
            // Pages past a smaller database are gone.
            present = present.filter { $0 <= commit }
        }
        let lockPage = LTXHeader.lockPage(pageSize: pageSize)
        update = JournaledPageWriter.Update(
            pages: present.filter { $0 != lockPage }.sorted(),
            // Weak: the update is read while the merge lives, and must not keep it.
            read: { [weak self] number, buffer in
                guard let self else { throw DBToolError(.software, "the merged pages of an update were released before it was written") }
                try read(number, into: buffer)
            },
            commit: commit)
    }

    deinit { file?.close() }

    private func store(_ number: UInt32, _ page: [UInt8]) throws {
        if let file {
            try file.writeAll(toAbsoluteOffset: Int64(number - 1) * Int64(pageSize), page)
        } else if let slot = slots[number] {
            memory.replaceSubrange(slot..<(slot + pageSize), with: page)
        } else if memory.count + pageSize <= Self.memoryLimit {
            slots[number] = memory.count
            memory += page
        } else {
            // Too large for memory: every page to the scratch file.
            _ = try? scratch.removeFile("pages")
            try scratch.createFile("pages").close()
            let opened = try scratch.openFile("pages", .readWrite)
            file = opened
            for (stored, slot) in slots {
                try memory.withUnsafeBytes { bytes in
                    try opened.writeAll(
                        toAbsoluteOffset: Int64(stored - 1) * Int64(pageSize),
                        UnsafeRawBufferPointer(rebasing: bytes[slot..<(slot + pageSize)]))
                }
            }
            memory = []
            slots = [:]
            try opened.writeAll(toAbsoluteOffset: Int64(number - 1) * Int64(pageSize), page)
        }
    }

    private func read(_ number: UInt32, into buffer: UnsafeMutableRawBufferPointer) throws {
        if let file {
            _ = try file.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: buffer)
        } else if let slot = slots[number] {
            memory.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[slot..<(slot + pageSize)])) }
        }
    }
}
