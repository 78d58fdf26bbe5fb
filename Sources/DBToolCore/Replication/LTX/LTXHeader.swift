/// The 100-byte header of an LTX file (format version 3, Litestream 0.5):
/// the database state and the range of transactions the file holds.
/// Integers are big-endian.
struct LTXHeader: Equatable, Sendable {
    /// The size of an encoded header.
    static let size = 100
    /// The first four bytes of every LTX file.
    static let magic: [UInt8] = Array("LTX1".utf8)
    /// `HeaderFlagNoChecksum`: the file tracks no database checksum (its
    /// pre- and post-apply checksums are zero), as Litestream 0.5 writes.
    static let noChecksumFlag: UInt32 = 1 << 1

    /// Header flags; only ``noChecksumFlag`` is defined.
    var flags: UInt32 = 0
    /// The database page size, in bytes.
    var pageSize: UInt32
    /// The size of the database after the file is applied, in pages.
    var commit: UInt32
    /// The first transaction the file holds; 1 for a snapshot.
    var minTXID: UInt64
    /// The last transaction the file holds.
    var maxTXID: UInt64
    /// When the file was written, in milliseconds since 1970.
    var timestamp: Int64
    /// The database checksum before the file is applied; zero for a
    /// snapshot, or when the file tracks no checksum.
    var preApplyChecksum: LTXChecksum = .zero
    /// Where the file's frames were in the WAL; zero when not from a WAL.
    var walOffset: Int64 = 0
    /// How many bytes of the WAL the file covers.
    var walSize: Int64 = 0
    /// The WAL's salts when the frames were read.
    var walSalt1: UInt32 = 0
    var walSalt2: UInt32 = 0
    /// The node that wrote the file; zero when unset.
    var nodeID: UInt64 = 0

    /// Whether the file holds the whole database.
    var isSnapshot: Bool { minTXID == 1 }

    /// Whether the file tracks database checksums.
    var tracksChecksum: Bool { flags & Self.noChecksumFlag == 0 }

    /// The page SQLite never writes: the one holding the byte at 1 GiB.
    var lockPage: UInt32 { LTXHeader.lockPage(pageSize: pageSize) }

    /// The page that holds the byte at offset 2^30 for `pageSize`.
    static func lockPage(pageSize: UInt32) -> UInt32 {
        UInt32((1 << 30) / Int(pageSize)) + 1
    }

    /// The header as stored.
    func encoded() -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.size)
        bytes += Self.magic
        bytes.appendBigEndian(flags)
        bytes.appendBigEndian(pageSize)
        bytes.appendBigEndian(commit)
        bytes.appendBigEndian(minTXID)
        bytes.appendBigEndian(maxTXID)
        bytes.appendBigEndian(UInt64(bitPattern: timestamp))
        bytes.appendBigEndian(preApplyChecksum.rawValue)
        bytes.appendBigEndian(UInt64(bitPattern: walOffset))
        bytes.appendBigEndian(UInt64(bitPattern: walSize))
        bytes.appendBigEndian(walSalt1)
        bytes.appendBigEndian(walSalt2)
        bytes.appendBigEndian(nodeID)
        bytes += repeatElement(0, count: Self.size - bytes.count)
        return bytes
    }

    /// Reads a header and checks it is one the format allows.
    init(decoding bytes: UnsafeRawBufferPointer) throws(LTXError) {
        guard bytes.count >= Self.size, Array(bytes[0..<4]) == Self.magic else { throw LTXError.malformed("it does not start with LTX1") }
        flags = bytes.bigEndian(at: 4)
        pageSize = bytes.bigEndian(at: 8)
        commit = bytes.bigEndian(at: 12)
        minTXID = bytes.bigEndian(at: 16)
        maxTXID = bytes.bigEndian(at: 24)
        timestamp = Int64(bitPattern: bytes.bigEndian(at: 32))
        preApplyChecksum = LTXChecksum(rawValue: bytes.bigEndian(at: 40))
        walOffset = Int64(bitPattern: bytes.bigEndian(at: 48))
        walSize = Int64(bitPattern: bytes.bigEndian(at: 56))
        walSalt1 = bytes.bigEndian(at: 64)
        walSalt2 = bytes.bigEndian(at: 68)
        nodeID = bytes.bigEndian(at: 72)
        try validate()
    }

    /// An in-memory header; ``validate()`` before encoding it.
    init(pageSize: UInt32, commit: UInt32, minTXID: UInt64, maxTXID: UInt64, timestamp: Int64) {
        self.pageSize = pageSize
        self.commit = commit
        self.minTXID = minTXID
        self.maxTXID = maxTXID
        self.timestamp = timestamp
    }

    /// Throws unless the header is one the format allows.
    func validate() throws(LTXError) {
        guard flags & ~Self.noChecksumFlag == 0 else { throw LTXError.malformed("unknown header flags \(flags)") }
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw LTXError.malformed("page size \(pageSize) is not a power of two from 512 to 65536")
        }
        guard minTXID > 0, maxTXID >= minTXID else { throw LTXError.malformed("transactions \(minTXID)-\(maxTXID) are not a range") }
        guard walOffset >= 0, walSize >= 0, walOffset != 0 || (walSize == 0 && walSalt1 == 0 && walSalt2 == 0) else {
            throw LTXError.malformed("a WAL size or salt without a WAL offset")
        }
        if !tracksChecksum || isSnapshot {
            guard preApplyChecksum == .zero else { throw LTXError.malformed("a pre-apply checksum where none may be") }
        } else {
            guard preApplyChecksum.isFlagged else { throw LTXError.malformed("the pre-apply checksum is missing") }
        }
    }
}

/// A database or file checksum of LTX: CRC-64/ISO with the top bit set, so
/// that a tracked checksum is never zero.
struct LTXChecksum: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The top bit, set on every checksum LTX stores.
    static let flag: UInt64 = 1 << 63
    /// No checksum.
    static let zero = LTXChecksum(rawValue: 0)

    /// The stored 64 bits.
    let rawValue: UInt64

    /// Whether the top bit is set, as it is on every computed checksum.
    var isFlagged: Bool { rawValue & Self.flag != 0 }

    /// Sixteen hex digits, as Litestream prints positions.
    var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The checksum of one page: CRC-64 of its number (big-endian) and data.
    static func page(_ number: UInt32, _ data: UnsafeRawBufferPointer) -> LTXChecksum {
        var crc = CRC64()
        crc.update(bigEndian: number)
        crc.update(data)
        return LTXChecksum(rawValue: flag | crc.value)
    }

    /// The checksum of page `number` from its data's ``CRC64/register(of:)``
    /// (`run`: the page size), without reading the data again.
    static func page(_ number: UInt32, dataRegister: UInt64, run: CRC64ZeroRun) -> LTXChecksum {
        var crc = CRC64()
        crc.update(bigEndian: number)
        crc.append(register: dataRegister, after: run)
        return LTXChecksum(rawValue: flag | crc.value)
    }

    /// The database checksum after a page's checksum leaves or joins it:
    /// the XOR of every page's checksum but the lock page's.
    func toggling(_ page: LTXChecksum) -> LTXChecksum {
        LTXChecksum(rawValue: Self.flag | (rawValue ^ page.rawValue))
    }
}

/// Why an LTX file can not be read or written.
enum LTXError: Error, Equatable {
    /// The bytes break the format: what is wrong.
    case malformed(String)
    /// The file's checksum does not match its content.
    case checksumMismatch(stored: LTXChecksum, computed: LTXChecksum)
    /// The file ends before its trailer.
    case truncated
    /// A misuse of the encoder: pages out of order, a page of the wrong size.
    case misuse(String)

    /// One sentence for messages.
    var reason: String {
        switch self {
        case .malformed(let what): "it is not a valid LTX file: \(what)"
        case .checksumMismatch(let stored, let computed): "its checksum is \(computed), not the \(stored) it records: it was damaged"
        case .truncated: "it ends before its trailer: it was cut short"
        case .misuse(let what): what
        }
    }
}

extension [UInt8] {
    /// Appends `value` as big-endian bytes.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian integer at `offset`.
    func bigEndian<T: FixedWidthInteger>(at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
