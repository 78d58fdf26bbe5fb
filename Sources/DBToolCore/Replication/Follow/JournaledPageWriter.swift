import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Writes pages into a SQLite database file that readers use, as one
/// transaction of SQLite's own rollback journal, with SQLite's locks taken
/// by hand: what a follower (`restore --follow`) applies of each update.
///
/// The database is in rollback-journal mode (a follower's copy), so its
/// readers hold SQLite's SHARED lock for each read transaction and check
/// the file change counter when they begin one. An update:
///
/// 1. takes the RESERVED lock (a POSIX write lock on SQLite's reserved
///    byte): no other writer, and a journal that appears is not "hot";
/// 2. writes `NAME-journal`: SQLite's header (magic, records, nonce, the
///    database's size, sector and page size) and the original of every page
///    it changes, with SQLite's checksum, then syncs it and its folder
///    (page 1 only when more than its counters change: see
///    `changesPageOne(_:initialPages:)`);
/// 3. takes PENDING, then EXCLUSIVE (the shared range): new readers wait,
///    and the update waits for the readers inside a transaction, giving up
///    after ``lockWait`` (then retried later, readers unharmed);
/// 4. writes the pages, page 1 with the change counter bumped and rollback
///    mode kept (its 100-byte header alone when page 1 is not among the
///    update's pages), sets the size, syncs;
/// 5. deletes the journal (the commit) and syncs the folder; unlocks.
///
/// Readers see the state before or after, never half of it, and wait only
/// for steps 4 and 5. A crash before the journal's deletion leaves a hot
/// journal: the next reader rolls the file back, as SQLite always does.
/// The file is reached through one descriptor, never closed while a lock
/// is held (closing any would drop the process's POSIX locks).
///
/// See <https://www.sqlite.org/fileformat.html> (the rollback journal) and
/// <https://www.sqlite.org/lockingv3.html>.
final class JournaledPageWriter {
    /// The database file.
    let path: String
    let pageSize: UInt32
    private let database: FileDescriptor
    private let folder: DirectoryDescriptor
    private let journalName: String

    /// How long step 3 waits for readers before it lets them go on.
    static let lockWait: Double = 0.2

    // SQLite's lock bytes (os_unix.c): PENDING at 1 GiB, RESERVED after
    // it, then the 510 bytes of the SHARED range.
    private static let pendingByte: Int64 = 0x4000_0000
    private static let reservedByte: Int64 = pendingByte + 1
    private static let sharedFirst: Int64 = pendingByte + 2
    private static let sharedSize: Int64 = 510
    /// The sector size written in the journal's header, which pads the
    /// header to it: SQLite's smallest (its playback reads the records from
    /// the size the header gives), so that an update of a few pages does not
    /// write a 4 KiB header of zeros (SQLite's own default on Linux).
    static let sectorSize = 512
    /// The database header at the start of page 1, the part
    /// ``patchHeader(_:counter:commit:sizeIsValid:)`` changes.
    static let headerSize = 100
    private static let journalMagic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]

    /// Opens the database file `name` of `folder` for updates.
    init(folder: DirectoryDescriptor, name: String, pageSize: UInt32) throws {
        self.folder = folder
        path = folder.path(of: name)
        journalName = name + "-journal"
        self.pageSize = pageSize
        do {
            database = try folder.openFile(name, .readWrite)
        } catch {
            throw error.reported(.noInput, hint: "The copy's database must be a regular file that dbtool may write.")
        }
    }

    deinit {
        database.unlockPOSIX(offset: Self.pendingByte, length: Self.sharedSize + 2)
        database.close()
    }

    /// The pages of one update: where they are, and the database's new size.
    struct Update {
        /// Page numbers, ascending.
        var pages: [UInt32]
        /// Reads page `number` of the update into the buffer.
        var read: (UInt32, UnsafeMutableRawBufferPointer) throws -> Void
        /// The database's size after the update, in pages.
        var commit: UInt32
    }

    /// Applies `update`; returns how long readers were kept waiting (the
    /// exclusive lock's hold), or nil when readers kept the lock past
    /// ``lockWait`` (nothing changed: try again later).
    func apply(_ update: Update) throws -> Double? {
        guard database.tryPOSIXWriteLock(offset: Self.reservedByte, length: 1) else { return nil }
        defer { database.unlockPOSIX(offset: Self.reservedByte, length: 1) }
        let size = try database.status().size
        let initialPages = UInt32(size / Int64(pageSize))
        let update = try droppingUnchangedPages(update, initialPages: initialPages)
        let journalsPageOne = try changesPageOne(update, initialPages: initialPages)
        try writeJournal(update, initialPages: initialPages, includingPageOne: journalsPageOne)
        guard let held = try exclusively({ try writePages(update, sizeIsValid: journalsPageOne) }) else {
            _ = try? folder.removeFile(journalName)
            return nil
        }
        return held
    }

    /// The update without the pages the copy already holds as they are
    /// (page 1 aside: its header changes anyway). An update that rebuilds
    /// the copy from a snapshot, or one applied again after a kill, then
    /// writes and journals only what differs, not the whole database.
    private func droppingUnchangedPages(_ update: Update, initialPages: UInt32) throws -> Update {
        let size = Int(pageSize)
        let current = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { current.deallocate() }
        let new = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { new.deallocate() }
        guard let currentBytes = current.baseAddress, let newBytes = new.baseAddress else { return update }
        var changed = update
        changed.pages.removeAll(keepingCapacity: true)
        for number in update.pages {
            if number > 1 && number <= initialPages {
                try update.read(number, new)
                let read = try database.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: current)
                if read == size && memcmp(currentBytes, newBytes, size) == 0 { continue }
            }
            changed.pages.append(number)
        }
        return changed
    }

    /// Whether the update changes page 1 beyond the fields of its header
    /// that ``patchHeader(_:counter:commit:sizeIsValid:)`` writes anyway (the
    /// journal mode, the change counter, the size and its validity, SQLite's
    /// version): only then must the journal hold page 1's original.
    ///
    /// Most updates add rows and change nothing else of page 1. Its original
    /// then stays out of the journal (4 KiB less per update), and the new
    /// header says its size is not valid, so that SQLite reads the size from
    /// the file: after a rollback, the file's original size.
    private func changesPageOne(_ update: Update, initialPages: UInt32) throws -> Bool {
        guard initialPages >= 1, update.pages.first == 1 else { return false }
        let size = Int(pageSize)
        let original = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { original.deallocate() }
        let new = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { new.deallocate() }
        guard try database.read(fromAbsoluteOffset: 0, into: original) == size else { return true }
        try update.read(1, new)
        // What the patch writes: the journal mode (18..<20), the counter and
        // size (24..<32), their validity and SQLite's version (92..<100).
        for range in [0..<18, 20..<24, 32..<92, 100..<size] where !original[range].elementsEqual(new[range]) { return true }
        return false
    }

    /// Step 2: the originals of the pages the update changes.
    private func writeJournal(_ update: Update, initialPages: UInt32, includingPageOne: Bool) throws {
        _ = try? folder.removeFile(journalName)
        let journal: FileDescriptor
        do {
            journal = try folder.createFile(journalName, permissions: try database.status().permissions)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of the copy's folder.")
        }
        defer { journal.close() }
        var changed = update.pages.filter { $0 <= initialPages && ($0 != 1 || includingPageOne) }
        let free = try freeLeaves(among: changed)
        if !free.isEmpty { changed.removeAll { free.contains($0) } }
        var generator = SystemRandomNumberGenerator()
        let nonce = UInt32(truncatingIfNeeded: generator.next() as UInt64)
        var header = Self.journalMagic
        header.appendBigEndian(UInt32(changed.count))
        header.appendBigEndian(nonce)
        header.appendBigEndian(initialPages)
        header.appendBigEndian(UInt32(Self.sectorSize))
        header.appendBigEndian(pageSize)
        header += [UInt8](repeating: 0, count: Self.sectorSize - header.count)
        try journal.writeAll(toAbsoluteOffset: 0, header)
        var record = [UInt8](repeating: 0, count: Int(pageSize) + 8)
        var offset = Int64(Self.sectorSize)
        for number in changed {
            try record.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: number.bigEndian, toByteOffset: 0, as: UInt32.self)
                let page = UnsafeMutableRawBufferPointer(rebasing: raw[4..<(4 + Int(pageSize))])
                guard try database.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: page) == page.count else {
                    throw DBToolError(.dataError, "\(path) is shorter than its \(initialPages) pages")
                }
                raw.storeBytes(
                    of: Self.checksum(UnsafeRawBufferPointer(page), nonce: nonce).bigEndian, toByteOffset: 4 + Int(pageSize),
                    as: UInt32.self)
            }
            try journal.writeAll(toAbsoluteOffset: offset, record)
            offset += Int64(record.count)
        }
        try journal.sync()
        try folder.sync()
    }

    /// The pages among `pages` that are leaves of the copy's freelist: what
    /// they hold means nothing, so an update that reuses them needs no
    /// original (SQLite's pager does not journal them either). After a
    /// rollback they are free again, whatever they hold. An update after a
    /// large deletion or rewrite takes most of its new pages there.
    ///
    /// The freelist is read from page 1 (its first trunk and size) and its
    /// trunk pages; anything out of bounds gives no free leaf (every page
    /// journaled), never a page wrongly left out.
    private func freeLeaves(among pages: [UInt32]) throws -> Set<UInt32> {
        guard !pages.isEmpty else { return [] }
        let header = try database.read(fromAbsoluteOffset: 32, count: 8)
        guard header.count == 8 else { return [] }
        // Counted in Int: the header's total is data, up to UInt32.max.
        let total = Int(header.withUnsafeBytes { $0.bigEndian(at: 4) as UInt32 })
        var trunk = header.withUnsafeBytes { $0.bigEndian(at: 0) as UInt32 }
        guard total > 0, trunk != 0 else { return [] }
        let wanted = Set(pages)
        let perTrunk = Int(pageSize) / 4 - 2
        var found: Set<UInt32> = []
        var listed = 0
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(pageSize), alignment: 16)
        defer { page.deallocate() }
        while trunk != 0 {
            // Each trunk counts itself and its leaves: more than the header's
            // total is a loop or a damaged list.
            listed += 1
            guard listed <= total, try database.read(fromAbsoluteOffset: Int64(trunk - 1) * Int64(pageSize), into: page) == page.count
            else { return [] }
            let bytes = UnsafeRawBufferPointer(page)
            let count = Int(bytes.bigEndian(at: 4) as UInt32)
            guard count <= perTrunk, listed + count <= total else { return [] }
            for index in 0..<count {
                let leaf: UInt32 = bytes.bigEndian(at: 8 + 4 * index)
                if wanted.contains(leaf) { found.insert(leaf) }
            }
            listed += count
            trunk = bytes.bigEndian(at: 0)
        }
        return found
    }

    /// SQLite's journal checksum: the nonce plus every 200th byte from the
    /// end of the page (`pager_cksum`).
    static func checksum(_ page: UnsafeRawBufferPointer, nonce: UInt32) -> UInt32 {
        var sum = nonce
        var index = page.count - 200
        while index > 0 {
            sum &+= UInt32(page[index])
            index -= 200
        }
        return sum
    }

    /// Step 3, then `body` under the EXCLUSIVE lock; nil when the readers
    /// kept it past ``lockWait``. Returns how long the lock was held.
    private func exclusively(_ body: () throws -> Void) throws -> Double? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.lockWait * 1e9)
        // A reader takes a read lock on the pending byte for a moment as it begins.
        while !database.tryPOSIXWriteLock(offset: Self.pendingByte, length: 1) {
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return nil }
            try Interruption.sleep(seconds: 0.001)
        }
        defer { database.unlockPOSIX(offset: Self.pendingByte, length: 1) }
        while !database.tryPOSIXWriteLock(offset: Self.sharedFirst, length: Self.sharedSize) {
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return nil }
            try Interruption.sleep(seconds: 0.002)
        }
        defer { database.unlockPOSIX(offset: Self.sharedFirst, length: Self.sharedSize) }
        let start = DispatchTime.now()
        try body()
        return seconds(since: start)
    }

    /// Steps 4 and 5.
    private func writePages(_ update: Update, sizeIsValid: Bool) throws {
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(pageSize), alignment: 16)
        defer { page.deallocate() }
        // The change counter readers compare, from the page 1 on disk.
        let current = try database.read(fromAbsoluteOffset: 24, count: 4)
        let counter = current.count == 4 ? current.withUnsafeBytes { $0.bigEndian(at: 0) as UInt32 } &+ 1 : 1
        var wrotePageOne = false
        for number in update.pages {
            try update.read(number, page)
            if number == 1 {
                Self.patchHeader(page, counter: counter, commit: update.commit, sizeIsValid: sizeIsValid)
                wrotePageOne = true
            }
            try database.writeAll(toAbsoluteOffset: Int64(number - 1) * Int64(pageSize), UnsafeRawBufferPointer(page))
        }
        if !wrotePageOne {
            // Only the header's fields change: its 100 bytes, not the page.
            let header = UnsafeMutableRawBufferPointer(rebasing: page[0..<Self.headerSize])
            guard try database.read(fromAbsoluteOffset: 0, into: header) == header.count else {
                throw DBToolError(.dataError, "\(path) is shorter than its header")
            }
            Self.patchHeader(header, counter: counter, commit: update.commit, sizeIsValid: sizeIsValid)
            try database.writeAll(toAbsoluteOffset: 0, UnsafeRawBufferPointer(header))
        }
        try database.resize(to: Int64(update.commit) * Int64(pageSize))
        try database.sync()
        do {
            try folder.removeFile(journalName)
            try folder.sync()
        } catch {
            throw error.reported(.cantCreate, hint: "The copy keeps its journal: its next reader rolls the update back.")
        }
    }

    /// The database header a follower's copy keeps: rollback-journal mode
    /// (read and write versions 1), the change counter readers check, and
    /// the size, valid for that counter when `sizeIsValid` (SQLite trusts
    /// the size only when the "version-valid-for" number equals the
    /// counter; otherwise it takes the file's size). `page` is page 1, or
    /// at least its first ``headerSize`` bytes.
    static func patchHeader(_ page: UnsafeMutableRawBufferPointer, counter: UInt32, commit: UInt32, sizeIsValid: Bool) {
        page[18] = 1
        page[19] = 1
        page.storeBytes(of: counter.bigEndian, toByteOffset: 24, as: UInt32.self)
        page.storeBytes(of: commit.bigEndian, toByteOffset: 28, as: UInt32.self)
        page.storeBytes(of: (sizeIsValid ? counter : counter &- 1).bigEndian, toByteOffset: 92, as: UInt32.self)
    }
}
