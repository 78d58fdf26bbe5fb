import FoundationEssentials

/// Compaction and retention of a replica, so that a restore reads a
/// bounded number of files and the replica a bounded amount of storage.
///
/// Level L (1 to 3 by default, up to 8) gets, every ``Level/interval``, one file that merges
/// the files of level L-1 written since its last one: for each page, its
/// newest version; the database size of the last. A restore then crosses an
/// hour in one level-3 file, five minutes in a level-2 file, thirty seconds
/// in a level-1 file, and reaches any moment through the level-0 files of
/// the last interval. Retention deletes what is older than the window and
/// covered by a snapshot kept: every moment of the window stays restorable.
struct Compaction {
    struct Level {
        var level: Int
        var interval: TimeInterval
    }

    /// Litestream 0.5's defaults.
    static let defaultLevels = [Level(level: 1, interval: 30), Level(level: 2, interval: 300), Level(level: 3, interval: 3600)]

    let store: Replica
    /// Where merged files are built before their upload.
    let scratch: String
    var levels = Compaction.defaultLevels
    /// The node ID merged files carry (the database's identity).
    var nodeID: UInt64 = 0
    /// A local directory holding copies of the level-0 files in the replica
    /// (the shipping lane's): level 1 merges from there when it holds the
    /// files it needs, and removes them once merged, so that compaction
    /// costs no request to read them.
    var localLevelZero: String?
    /// Called with a merged file's size before it appears in the store.
    var beforePublishing: (Int64) -> Void = { _ in }
    private var lastRun: [Int: Date] = [:]
    /// The last TXID of each level, once listed or written: a level is
    /// listed whole once, and the level below only after that TXID.
    private var lastTXID: [Int: UInt64] = [:]

    init(store: Replica, scratch: String) {
        self.store = store
        self.scratch = scratch
    }

    /// Compacts each level whose interval passed; returns the files written.
    mutating func run(now: Date = Date(), force: Bool = false) throws -> [LTXFileName] {
        var written: [LTXFileName] = []
        for level in levels {
            if !force, let last = lastRun[level.level], now.timeIntervalSince(last) < level.interval { continue }
            lastRun[level.level] = now
            if let name = try compact(into: level.level) {
                lastTXID[level.level] = name.maxTXID
                written.append(name)
            }
        }
        return written
    }

    /// Merges the files of `level - 1` after the last file of `level` into
    /// one file of `level`; nil when there is nothing new.
    mutating func compact(into level: Int) throws -> LTXFileName? {
        let done: UInt64
        if let known = lastTXID[level] {
            done = known
        } else {
            // An empty level starts after the newest whole image (a snapshot, or
            // the replica's first file): merging it again would only copy it.
            let own = try store.files(level: level).map(\.name.maxTXID).max() ?? 0
            done = own > 0 ? own : try newestImage()
            lastTXID[level] = done
        }
        var sources: [ReplicaFile] = []
        let local = level == 1 ? localFiles(after: done) : nil
        // The contiguous files after what the level holds (a full image, minTXID 1, may start it);
        // the files of the level below end where the level's do, so those after it start after it.
        var below = try local ?? store.files(level: level - 1, firstTXIDs: (done + 1)...UInt64.max)
        if let first = below.first, first.name.minTXID > done + 1 {
            below = try store.files(level: level - 1)  // levels that do not line up: all of it
        }
        for file in below where file.name.maxTXID > done {
            if let last = sources.last?.name.maxTXID, file.name.minTXID > last + 1 { break }
            sources.append(file)
        }
        guard let first = sources.first, let last = sources.last else { return nil }
        // Only a chain that continues the level (or starts a database) can merge.
        guard done == 0 ? true : first.name.minTXID <= done + 1 else { return nil }
        let name = LTXFileName(level: level, minTXID: first.name.minTXID, maxTXID: last.name.maxTXID)
        let pages = scratch + "/compacting-\(level).pages"
        let output = scratch + "/" + name.fileName
        _ = try? FileSystem.remove(pages)
        _ = try? FileSystem.remove(output)
        defer {
            _ = try? FileSystem.remove(pages)
            _ = try? FileSystem.remove(output)
        }
        // Pages go to a scratch file at their place: memory holds only their numbers.
        let pageFile = try FileDescriptor.open(pages, .readWrite, options: [.exclusiveCreate, .noFollow])
        defer { pageFile.close() }
        var present = Set<UInt32>()
        var header: LTXHeader?
        for source in sources {
            var decoder = try LTXDecoder(from: try local.map { _ in try Self.localSource(localLevelZero! + "/" + source.name.fileName) } ?? store.open(source.name))
            if let previous = header, decoder.header.pageSize != previous.pageSize {
                throw DBToolError(.dataError, "\(store.description): \(source.name.path) changes the page size")
            }
            header = decoder.header
            var page = [UInt8](repeating: 0, count: Int(decoder.header.pageSize))
            while let number = try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) {
                try pageFile.writeAll(toAbsoluteOffset: Int64(number - 1) * Int64(decoder.header.pageSize), page)
                present.insert(number)
            }
        }
        guard let lastHeader = header else { return nil }
        var merged = LTXHeader(
            pageSize: lastHeader.pageSize, commit: lastHeader.commit, minTXID: name.minTXID, maxTXID: name.maxTXID,
            timestamp: lastHeader.timestamp)
        merged.flags = LTXHeader.noChecksumFlag
        merged.nodeID = nodeID
        let file = try FileDescriptor.createNew(output)
        do {
            var encoder = try LTXEncoder(header: merged) { try file.writeAll($0) }
            var page = [UInt8](repeating: 0, count: Int(merged.pageSize))
            for number in present.sorted() where number <= merged.commit && number != merged.lockPage {
                _ = try page.withUnsafeMutableBytes {
                    try pageFile.read(fromAbsoluteOffset: Int64(number - 1) * Int64(merged.pageSize), into: $0)
                }
                try page.withUnsafeBytes { try encoder.add(page: number, data: $0) }
            }
            _ = try encoder.finish(postApplyChecksum: .zero)
            file.close()
        } catch {
            file.close()
            throw error
        }
        try store.write(
            name, from: output, timestamp: Date(timeIntervalSince1970: Double(merged.timestamp) / 1000), beforePublishing: beforePublishing)
        if level == 1 { removeLocalFiles(through: name.maxTXID) }
        return name
    }

    /// The local copies of the level-0 files after `done`, when they start
    /// at `done + 1` (else nil: the store's are read); copies up to `done`
    /// are merged already, and removed.
    private func localFiles(after done: UInt64) -> [ReplicaFile]? {
        guard let localLevelZero, let names = try? FileSystem.contentsOfDirectory(localLevelZero) else { return nil }
        removeLocalFiles(through: done)
        let files = names.compactMap { LTXFileName(level: 0, fileName: $0) }.filter { $0.maxTXID > done }.sorted().map {
            ReplicaFile(name: $0, size: FileSystem.size(localLevelZero + "/" + $0.fileName), createdAt: .distantPast)
        }
        guard let first = files.first, first.name.minTXID <= done + 1 else { return nil }
        return files
    }

    /// Removes the local copies of the level-0 files up to `txid`.
    private func removeLocalFiles(through txid: UInt64) {
        guard let localLevelZero, let names = try? FileSystem.contentsOfDirectory(localLevelZero) else { return }
        for name in names.compactMap({ LTXFileName(level: 0, fileName: $0) }) where name.maxTXID <= txid {
            _ = try? FileSystem.remove(localLevelZero + "/" + name.fileName)
        }
    }

    /// A reader of a local LTX file.
    private static func localSource(_ path: String) throws -> LTXDecoder.Source {
        let (file, _) = try FileDescriptor.openRegularFile(path)
        return { buffer in
            let count = try file.read(into: buffer)
            if count == 0 { file.close() }
            return count
        }
    }

    /// The last TXID of the newest whole image of the replica: a level-9
    /// snapshot, or a level-0 file that starts at TXID 1; 0 for none.
    private func newestImage() throws -> UInt64 {
        let snapshot = try store.files(level: LTXFileName.snapshotLevel).map(\.name.maxTXID).max() ?? 0
        let first = try store.files(level: 0, firstTXIDs: 1...1).map(\.name.maxTXID).max() ?? 0
        return max(snapshot, first)
    }

    /// Deletes what no restore within `window` needs: snapshots older than
    /// the window but the newest of those, and the files of levels 0 to 8
    /// older than the window whose transactions that snapshot covers.
    /// Returns the files deleted.
    func enforceRetention(_ window: TimeInterval, now: Date = Date()) throws -> [LTXFileName] {
        let horizon = now.addingTimeInterval(-window)
        let snapshots = try store.files(level: LTXFileName.snapshotLevel)
        // The newest snapshot written before the horizon: restores of the window start there.
        guard let base = snapshots.filter({ $0.createdAt < horizon }).max(by: { $0.name.maxTXID < $1.name.maxTXID }) else { return [] }
        var deleted: [LTXFileName] = []
        for snapshot in snapshots where snapshot.name.maxTXID < base.name.maxTXID && snapshot.createdAt < horizon {
            try store.delete(snapshot.name)
            deleted.append(snapshot.name)
        }
        for level in 0..<LTXFileName.snapshotLevel {
            // Only the files that start at or before the snapshot: the listing stops there.
            for file in try store.files(level: level, firstTXIDs: 0...base.name.maxTXID)
            where file.name.maxTXID <= base.name.maxTXID && file.createdAt < horizon {
                try store.delete(file.name)
                deleted.append(file.name)
            }
        }
        return deleted
    }
}
