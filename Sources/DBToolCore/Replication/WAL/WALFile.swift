/// The header of a SQLite write-ahead log, as SQLite's file format document
/// describes it (32 bytes, big-endian fields):
///
/// ```
/// magic (0x377f0682: little-endian checksums, 0x377f0683: big-endian),
/// format version (3007000), page size, checkpoint sequence,
/// salt-1, salt-2, checksum-1, checksum-2 (of the first 24 bytes)
/// ```
///
/// A checkpoint that restarts the log writes a new header with new salts:
/// frames that carry other salts belong to an earlier life of the file.
struct WALHeader: Equatable, Sendable {
    static let size = 32
    var bigEndianChecksums: Bool
    var pageSize: UInt32
    var checkpointSequence: UInt32
    var salt1: UInt32
    var salt2: UInt32
    /// The running checksum after the header: the seed of the first frame's.
    var checksum: WALChecksum

    /// Decodes and checks a header; nil when the bytes are not a valid one
    /// (an empty log, a log being created, or not a log).
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.size else { return nil }
        let magic: UInt32 = bytes.bigEndian(at: 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682, bytes.bigEndian(at: 4) as UInt32 == 3_007_000 else { return nil }
        bigEndianChecksums = magic & 1 == 1
        let rawPageSize: UInt32 = bytes.bigEndian(at: 8)
        pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        checkpointSequence = bytes.bigEndian(at: 12)
        salt1 = bytes.bigEndian(at: 16)
        salt2 = bytes.bigEndian(at: 20)
        let computed = WALChecksum.zero.adding(UnsafeRawBufferPointer(rebasing: bytes[..<24]), bigEndian: bigEndianChecksums)
        guard computed == WALChecksum(first: bytes.bigEndian(at: 24), second: bytes.bigEndian(at: 28)) else { return nil }
        checksum = computed
    }

    /// The size of a frame: its 24-byte header and a page.
    var frameSize: Int64 { 24 + Int64(pageSize) }
}

/// SQLite's WAL checksum: two 32-bit sums over the data taken as pairs of
/// 32-bit words, each frame's seeded with the one before it.
struct WALChecksum: Equatable, Sendable {
    var first: UInt32
    var second: UInt32

    static let zero = WALChecksum(first: 0, second: 0)

    /// This checksum carried over `data` (a multiple of 8 bytes).
    func adding(_ data: UnsafeRawBufferPointer, bigEndian: Bool) -> WALChecksum {
        var s0 = first
        var s1 = second
        var offset = 0
        let count = data.count & ~7
        while offset < count {
            let a = data.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let b = data.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            // The log says which byte order its words are summed in.
            let x = bigEndian ? UInt32(bigEndian: a) : UInt32(littleEndian: a)
            let y = bigEndian ? UInt32(bigEndian: b) : UInt32(littleEndian: b)
            s0 = s0 &+ x &+ s1
            s1 = s1 &+ y &+ s0
            offset += 8
        }
        return WALChecksum(first: s0, second: s1)
    }
}

/// Where a reader of the log stands: the byte after the last frame it
/// accepted, the running checksum there, and the life of the log (its
/// salts) it read it in.
struct WALPosition: Equatable, Sendable {
    var offset: Int64
    var checksum: WALChecksum
    var salt1: UInt32
    var salt2: UInt32

    init(offset: Int64, checksum: WALChecksum, salt1: UInt32, salt2: UInt32) {
        self.offset = offset
        self.checksum = checksum
        self.salt1 = salt1
        self.salt2 = salt2
    }

    /// The start of the log whose header is `header`.
    init(start header: WALHeader) {
        offset = Int64(WALHeader.size)
        checksum = header.checksum
        salt1 = header.salt1
        salt2 = header.salt2
    }

    /// Whether `header` is the same life of the log as this position's.
    func belongs(to header: WALHeader) -> Bool { header.salt1 == salt1 && header.salt2 == salt2 }

    /// Whether `header` is the next life of this position's log: SQLite
    /// restarts a log with its first salt plus one and a new random second
    /// ("salt-1: random integer incremented with each checkpoint", the
    /// file format's WAL header). Another database's log has other salts.
    func isRestarted(as header: WALHeader) -> Bool { header.salt1 == salt1 &+ 1 }
}

/// The committed transactions of a log after a position: for each page
/// they changed, the offset of its newest copy in the log, and the
/// database's size in pages after the last of them.
struct WALTransactions: Sendable {
    /// Page number → offset of the page's data (after its frame header).
    var pages: [UInt32: Int64] = [:]
    /// The database's size in pages after the last commit.
    var commit: UInt32 = 0
    /// Where the next read starts: after the last commit frame.
    var end: WALPosition
    /// How many transactions were read.
    var count = 0

    var isEmpty: Bool { count == 0 }
}

extension WALHeader {
    /// Reads the frames of `file` after `position`, and returns the
    /// transactions whose commit frame is there and valid: each frame must
    /// carry this log's salts and a checksum that continues the chain.
    /// Frames after the last valid commit (a transaction being written, or
    /// the leftovers of an earlier life of the log) are not returned, nor
    /// those from `limit` on.
    ///
    /// - throws: what reading `file` throws.
    func transactions(in file: FileDescriptor, after position: WALPosition, upTo limit: Int64 = .max) throws -> WALTransactions {
        var result = WALTransactions(end: position)
        var pending: [UInt32: Int64] = [:]
        var checksum = position.checksum
        var offset = position.offset
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(frameSize), alignment: 8)
        defer { frame.deallocate() }
        while offset < limit {
            let count = try file.read(fromAbsoluteOffset: offset, into: frame)
            guard count == frame.count else { break }
            let bytes = UnsafeRawBufferPointer(frame)
            let page: UInt32 = bytes.bigEndian(at: 0)
            let commit: UInt32 = bytes.bigEndian(at: 4)
            guard page > 0, bytes.bigEndian(at: 8) as UInt32 == salt1, bytes.bigEndian(at: 12) as UInt32 == salt2 else { break }
            checksum = checksum.adding(UnsafeRawBufferPointer(rebasing: bytes[..<8]), bigEndian: bigEndianChecksums)
            checksum = checksum.adding(UnsafeRawBufferPointer(rebasing: bytes[24...]), bigEndian: bigEndianChecksums)
            guard checksum == WALChecksum(first: bytes.bigEndian(at: 16), second: bytes.bigEndian(at: 20)) else { break }
            pending[page] = offset + 24
            offset += frameSize
            if commit > 0 {
                result.pages.merge(pending) { _, newer in newer }
                pending.removeAll(keepingCapacity: true)
                // Pages past a new, smaller end of the database are gone (a VACUUM shrank it).
                if result.count > 0 && commit < result.commit { result.pages = result.pages.filter { $0.key <= commit } }
                result.commit = commit
                result.count += 1
                result.end = WALPosition(offset: offset, checksum: checksum, salt1: salt1, salt2: salt2)
            }
        }
        return result
    }
}
