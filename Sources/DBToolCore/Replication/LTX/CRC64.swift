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
