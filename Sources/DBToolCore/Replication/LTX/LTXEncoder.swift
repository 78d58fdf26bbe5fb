/// Writes one LTX file (format version 3, as Litestream 0.5 reads it) to a
/// byte sink, page by page, in memory proportional to one page:
///
/// ```
/// header (100 bytes)
/// frames: page number (4), flags 0x0001 (2), compressed size (4), LZ4 block
/// a zero frame header (6)
/// page index: varints (page, offset, frame size)..., 0, its size (8)
/// trailer: post-apply database checksum (8), file checksum (8)
/// ```
///
/// The file checksum is CRC-64/ISO over everything but itself, with each
/// page's data taken decompressed (so it checks content, not one encoding).
struct LTXEncoder {
    /// Where the bytes go; a throw ends the encoding.
    typealias Sink = (UnsafeRawBufferPointer) throws -> Void

    /// The file's header, as written.
    let header: LTXHeader
    private let sink: Sink
    private var checksum = CRC64()
    private var offset = 0
    private var index: [UInt8] = []
    private var lastPage: UInt32 = 0
    /// The XOR of the written pages' checksums: a snapshot's database checksum.
    private(set) var pagesChecksum = LTXChecksum.zero
    private var frame: [UInt8]
    private var finished = false
    /// A page of zeros for the checksums: see ``CRC64/register(of:)``.
    private let pageRun: CRC64ZeroRun

    /// How many bytes were written so far.
    var bytesWritten: Int { offset }

    /// Validates `header` and writes it.
    init(header: LTXHeader, to sink: @escaping Sink) throws {
        try header.validate()
        self.header = header
        self.sink = sink
        frame = [UInt8](repeating: 0, count: 10 + LZ4Block.maximumCompressedSize(of: Int(header.pageSize)))
        pageRun = CRC64ZeroRun.page(header.pageSize)
        try emit(header.encoded())
    }

    /// Adds page `number`. Pages come in ascending order, never the lock
    /// page, none past the header's commit; a snapshot has every page.
    mutating func add(page number: UInt32, data: UnsafeRawBufferPointer) throws {
        guard !finished else { throw LTXError.misuse("the LTX file is already finished") }
        guard data.count == Int(header.pageSize) else {
            throw LTXError.misuse("page \(number) has \(data.count) bytes, not the page size \(header.pageSize)")
        }
        guard number > lastPage, number <= header.commit, number != header.lockPage, number > 0 else {
            throw LTXError.misuse("page \(number) is out of order, past the database's \(header.commit) pages, or the lock page")
        }
        if header.isSnapshot, number != expectedNextSnapshotPage {
            throw LTXError.misuse("a snapshot must hold every page: page \(expectedNextSnapshotPage) is missing")
        }
        let dataRegister = CRC64.register(of: data)
        let frameSize = try frame.withUnsafeMutableBytes { frame in
            let compressed = try LZ4Block.compress(data, into: UnsafeMutableRawBufferPointer(rebasing: frame[10...]))
            frame.storeBytes(of: number.bigEndian, toByteOffset: 0, as: UInt32.self)
            frame.storeBytes(of: UInt16(1).bigEndian, toByteOffset: 4, as: UInt16.self)
            frame.storeBytes(of: UInt32(compressed).bigEndian, toByteOffset: 6, as: UInt32.self)
            checksum.update(UnsafeRawBufferPointer(rebasing: frame[..<10]))
            // One pass over the page serves the file's checksum and the page's.
            checksum.append(register: dataRegister, after: pageRun)
            try sink(UnsafeRawBufferPointer(rebasing: frame[..<(10 + compressed)]))
            return 10 + compressed
        }
        index.appendVarint(UInt64(number))
        index.appendVarint(UInt64(offset))
        index.appendVarint(UInt64(frameSize))
        offset += frameSize
        lastPage = number
        pagesChecksum = pagesChecksum.toggling(.page(number, dataRegister: dataRegister, run: pageRun))
    }

    /// Ends the page block, writes the index and the trailer, and returns
    /// the file checksum. `postApplyChecksum` is the database's checksum
    /// once the file is applied (zero when the header tracks none; for a
    /// snapshot, ``pagesChecksum``).
    mutating func finish(postApplyChecksum: LTXChecksum) throws -> LTXChecksum {
        guard !finished else { throw LTXError.misuse("the LTX file is already finished") }
        if header.isSnapshot, expectedNextSnapshotPage <= header.commit {
            throw LTXError.misuse("a snapshot must hold every page: pages from \(expectedNextSnapshotPage) are missing")
        }
        guard header.tracksChecksum ? postApplyChecksum.isFlagged : postApplyChecksum == .zero else {
            throw LTXError.misuse("the post-apply checksum \(postApplyChecksum) does not match the header's checksum tracking")
        }
        finished = true
        try emit([UInt8](repeating: 0, count: 6))
        index.append(0)
        let indexSize = UInt64(index.count)
        index.appendBigEndian(indexSize)
        try emit(index)
        var trailer = [UInt8]()
        trailer.appendBigEndian(postApplyChecksum.rawValue)
        try emit(trailer)
        let fileChecksum = LTXChecksum(rawValue: LTXChecksum.flag | checksum.value)
        var last = [UInt8]()
        last.appendBigEndian(fileChecksum.rawValue)
        try last.withUnsafeBytes { try sink($0) }
        offset += last.count
        return fileChecksum
    }

    /// The page a snapshot must hold next (the lock page skipped).
    private var expectedNextSnapshotPage: UInt32 {
        lastPage + 1 == header.lockPage ? lastPage + 2 : lastPage + 1
    }

    /// Writes `bytes` and adds them to the file checksum.
    private mutating func emit(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { bytes in
            checksum.update(bytes)
            try sink(bytes)
        }
        offset += bytes.count
    }
}

extension [UInt8] {
    /// Appends `value` as an unsigned LEB128 varint (Go's `PutUvarint`).
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }
}
