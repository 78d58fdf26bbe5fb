import DatabaseKit

/// CRC-64 with the ISO 3309 polynomial (reflected, initial and final value
/// all ones), the checksum of LTX files and of database pages in them.
///
/// Computed eight bytes at a time with eight tables (2 KiB each): a 4 KiB
/// page costs about 4,000 table lookups instead of 32,000 bit steps.
struct CRC64 {
    /// The running value, without the final inversion.
    private var state: UInt64 = ~0

    /// A checksum of nothing yet.
    init() {}

    /// A checksum going on from `register`, a value of ``register``.
    init(register: UInt64) {
        state = register
    }

    /// The running value without the final inversion: what
    /// ``append(register:after:)`` combines.
    var register: UInt64 { state }

    /// The register of `bytes` alone, run from a register of zero.
    ///
    /// CRC is linear: the register after some bytes is the register before
    /// them, run over as many zero bytes, XOR this. One pass over a page so
    /// gives both the file checksum it joins and the page's own checksum
    /// (``append(register:after:)``).
    static func register(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var crc = CRC64(register: 0)
        crc.update(bytes)
        return crc.state
    }

    /// Adds bytes known by their ``register(of:)``, `run.length` of them:
    /// the same as updating with the bytes, in a few table lookups.
    mutating func append(register: UInt64, after run: CRC64ZeroRun) {
        state = run.advance(state) ^ register
    }

    /// The checksum of the bytes given so far.
    var value: UInt64 { ~state }

    /// Adds `bytes` to the checksum.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        var index = 0
        let count = bytes.count
        crc64Tables.withUnsafeBufferPointer { table in
            while count - index >= 8 {
                crc ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                crc =
                    table[7 * 256 + Int(crc & 0xFF)] ^ table[6 * 256 + Int((crc >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((crc >> 16) & 0xFF)] ^ table[4 * 256 + Int((crc >> 24) & 0xFF)]
                    ^ table[3 * 256 + Int((crc >> 32) & 0xFF)] ^ table[2 * 256 + Int((crc >> 40) & 0xFF)]
                    ^ table[256 + Int((crc >> 48) & 0xFF)] ^ table[Int(crc >> 56)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt64(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        state = crc
    }

    /// Adds the bytes of `array`.
    mutating func update(_ array: [UInt8]) {
        array.withUnsafeBytes { update($0) }
    }

    /// Adds `value` as four big-endian bytes, as LTX stores page numbers.
    mutating func update(bigEndian value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { update($0) }
    }
}

/// Runs a CRC-64 register over a fixed number of zero bytes in eight table
/// lookups: a linear map of the register, tabulated byte by byte.
struct CRC64ZeroRun: Sendable {
    /// The number of zero bytes.
    let length: Int
    /// Table k gives the run's effect on byte k of the register.
    private let tables: [UInt64]

    /// The run of `length` zero bytes.
    init(length: Int) {
        self.length = length
        let zeros = [UInt8](repeating: 0, count: length)
        // The image of each of the 64 bits; a byte's image is the XOR of
        // its bits'.
        let bits = (0..<64).map { bit in
            var crc = CRC64(register: 1 << UInt64(bit))
            crc.update(zeros)
            return crc.register
        }
        var tables = [UInt64](repeating: 0, count: 8 * 256)
        for byte in 0..<8 {
            for value in 1..<256 {
                tables[byte * 256 + value] = tables[byte * 256 + (value & (value - 1))] ^ bits[byte * 8 + value.trailingZeroBitCount]
            }
        }
        self.tables = tables
    }

    /// The register after the run, from `register`.
    func advance(_ register: UInt64) -> UInt64 {
        tables.withUnsafeBufferPointer { table in
            table[Int(register & 0xFF)] ^ table[256 + Int((register >> 8) & 0xFF)]
                ^ table[2 * 256 + Int((register >> 16) & 0xFF)] ^ table[3 * 256 + Int((register >> 24) & 0xFF)]
                ^ table[4 * 256 + Int((register >> 32) & 0xFF)] ^ table[5 * 256 + Int((register >> 40) & 0xFF)]
                ^ table[6 * 256 + Int((register >> 48) & 0xFF)] ^ table[7 * 256 + Int(register >> 56)]
        }
    }

    /// The run of one page of `pageSize` bytes, made once per page size
    /// for the process.
    static func page(_ pageSize: UInt32) -> CRC64ZeroRun {
        pages.withLock { runs in
            if let run = runs[pageSize] { return run }
            let run = CRC64ZeroRun(length: Int(pageSize))
            runs[pageSize] = run
            return run
        }
    }

    private static let pages = Locked<[UInt32: CRC64ZeroRun]>([:])
}

/// Table n gives the CRC of a byte followed by n zero bytes: table 0 is the
/// classic byte-at-a-time table.
private let crc64Tables: [UInt64] = {
    let polynomial: UInt64 = 0xD800_0000_0000_0000  // ISO 3309, reflected
    var tables = [UInt64](repeating: 0, count: 8 * 256)
    for byte in 0..<256 {
        var crc = UInt64(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
        tables[byte] = crc
    }
    for table in 1..<8 {
        for byte in 0..<256 {
            let previous = tables[(table - 1) * 256 + byte]
            tables[table * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
        }
    }
    return tables
}()
