import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// The LTX codec on its own: encoding, decoding, checksums and every way a
/// damaged file must be refused. Files of the real Litestream are read and
/// written in `LitestreamInteropTests`.
@Suite("LTX files")
struct LTXCodecTests {
    /// Pages of `size` bytes: some compressible, some random, some zero.
    static func pages(count: Int, size: Int, seed: UInt64) -> [[UInt8]] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        return (0..<count).map { number in
            switch number % 3 {
            case 0: return (0..<size).map { UInt8(truncatingIfNeeded: $0 / 64 + number) }
            case 1: return (0..<size).map { _ in UInt8(truncatingIfNeeded: next() >> 33) }
            default: return [UInt8](repeating: 0, count: size)
            }
        }
    }

    /// An encoded file of `pages` (page n + 1 is pages[n]).
    static func encode(_ header: LTXHeader, pages: [(UInt32, [UInt8])], postApply: LTXChecksum? = nil) throws -> [UInt8] {
        var bytes = [UInt8]()
        var encoder = try LTXEncoder(header: header) { bytes.append(contentsOf: $0) }
        for (number, data) in pages {
            try data.withUnsafeBytes { try encoder.add(page: number, data: $0) }
        }
        _ = try encoder.finish(postApplyChecksum: postApply ?? (header.tracksChecksum ? encoder.pagesChecksum : .zero))
        return bytes
    }

    /// Decodes `bytes` whole, fed in chunks of `chunk` bytes.
    static func decode(_ bytes: [UInt8], chunk: Int = 4096) throws -> (LTXDecoder, [(UInt32, [UInt8])]) {
        var position = 0
        var decoder = try LTXDecoder { buffer in
            let count = min(chunk, buffer.count, bytes.count - position)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[position..<(position + count)])) }
            position += count
            return count
        }
        var pages: [(UInt32, [UInt8])] = []
        var page = [UInt8](repeating: 0, count: Int(decoder.header.pageSize))
        while let number = try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) {
            pages.append((number, page))
        }
        return (decoder, pages)
    }

    @Test("CRC-64/ISO gives the catalogued check value, whatever the split of its input")
    func crc64() {
        let input = Array("123456789".utf8)
        var whole = CRC64()
        whole.update(input)
        #expect(whole.value == 0xB909_56C7_75A4_1001)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var once = CRC64()
        once.update(long)
        for split in [1, 7, 8, 9, 333] {
            var pieces = CRC64()
            for start in stride(from: 0, to: long.count, by: split) { pieces.update(Array(long[start..<min(start + split, long.count)])) }
            #expect(pieces.value == once.value, "split \(split)")
        }
    }

    @Test("a page's register alone, run on from any register, gives what reading it there gives", arguments: [1, 7, 512, 4096, 65536])
    func crc64ZeroRun(length: Int) {
        let run = CRC64ZeroRun(length: length)
        for (index, page) in Self.pages(count: 3, size: length, seed: UInt64(length)).enumerated() {
            for register: UInt64 in [0, ~0, 0x0123_4567_89AB_CDEF &* UInt64(index + 1)] {
                var read = CRC64(register: register)
                read.update(page)
                var joined = CRC64(register: register)
                page.withUnsafeBytes { joined.append(register: CRC64.register(of: $0), after: run) }
                #expect(joined.value == read.value, "page \(index), register \(register)")
            }
            let number = UInt32(index * 1000 + 3)
            page.withUnsafeBytes { data in
                #expect(LTXChecksum.page(number, dataRegister: CRC64.register(of: data), run: run) == LTXChecksum.page(number, data))
            }
        }
        #expect(CRC64ZeroRun.page(4096).length == 4096)
    }

    @Test("a snapshot round-trips: every page, the database checksum, the header", arguments: [512, 4096, 65536] as [UInt32])
    func snapshotRoundTrip(pageSize: UInt32) throws {
        let data = Self.pages(count: 7, size: Int(pageSize), seed: UInt64(pageSize))
        var header = LTXHeader(pageSize: pageSize, commit: 7, minTXID: 1, maxTXID: 12, timestamp: 1_764_000_000_123)
        header.nodeID = 42
        let bytes = try Self.encode(header, pages: data.enumerated().map { (UInt32($0.offset + 1), $0.element) })
        #expect(bytes.count < 7 * Int(pageSize), "random pages grow a little, others shrink: \(bytes.count) bytes")
        for chunk in [1, 100, 1 << 20] {
            let (decoder, pages) = try Self.decode(bytes, chunk: chunk)
            #expect(decoder.header == header)
            #expect(pages.map(\.0) == Array(1...7))
            #expect(pages.map(\.1) == data)
            #expect(decoder.postApplyChecksum == decoder.pagesChecksum && decoder.postApplyChecksum.isFlagged)
        }
    }

    @Test("an incremental file keeps the chain: pre-apply and post-apply checksums as given, pages in order")
    func incremental() throws {
        var header = LTXHeader(pageSize: 4096, commit: 9, minTXID: 13, maxTXID: 13, timestamp: 0)
        header.preApplyChecksum = LTXChecksum(rawValue: LTXChecksum.flag | 77)
        header.walOffset = 32
        header.walSize = 4120
        header.walSalt1 = 1
        header.walSalt2 = 2
        let data = Self.pages(count: 2, size: 4096, seed: 3)
        let post = LTXChecksum(rawValue: LTXChecksum.flag | 99)
        let bytes = try Self.encode(header, pages: [(2, data[0]), (9, data[1])], postApply: post)
        let (decoder, pages) = try Self.decode(bytes)
        #expect(decoder.header == header)
        #expect(pages.map(\.0) == [2, 9])
        #expect(decoder.postApplyChecksum == post)
    }

    @Test("every flipped byte and every cut is refused, never decoded as a file")
    func damage() throws {
        let data = Self.pages(count: 3, size: 512, seed: 9)
        let header = LTXHeader(pageSize: 512, commit: 3, minTXID: 1, maxTXID: 1, timestamp: 5)
        let bytes = try Self.encode(header, pages: data.enumerated().map { (UInt32($0.offset + 1), $0.element) })
        _ = try Self.decode(bytes)
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x10
            #expect(throws: LTXError.self, "byte \(index) of \(bytes.count) flipped") { try Self.decode(damaged) }
        }
        for length in 0..<bytes.count {
            #expect(throws: LTXError.self, "cut at \(length)") { try Self.decode(Array(bytes[..<length])) }
        }
        #expect(throws: LTXError.self, "a byte after the trailer") { try Self.decode(bytes + [0]) }
    }

    @Test("the encoder refuses pages out of order, the lock page, a wrong size, a snapshot with a hole")
    func misuse() throws {
        let page = [UInt8](repeating: 1, count: 512)
        var incremental = LTXHeader(pageSize: 512, commit: 3_000_000, minTXID: 2, maxTXID: 2, timestamp: 0)
        incremental.preApplyChecksum = LTXChecksum(rawValue: LTXChecksum.flag)
        var encoder = try LTXEncoder(header: incremental) { _ in }
        try page.withUnsafeBytes { try encoder.add(page: 5, data: $0) }
        #expect(throws: LTXError.self) { try page.withUnsafeBytes { try encoder.add(page: 5, data: $0) } }
        #expect(throws: LTXError.self) { try page.withUnsafeBytes { try encoder.add(page: 4, data: $0) } }
        #expect(throws: LTXError.self) { try page.withUnsafeBytes { try encoder.add(page: LTXHeader.lockPage(pageSize: 512), data: $0) } }
        #expect(throws: LTXError.self) { try Array(page[..<100]).withUnsafeBytes { try encoder.add(page: 6, data: $0) } }
        #expect(throws: LTXError.self, "no checksum where the header tracks one") { _ = try encoder.finish(postApplyChecksum: .zero) }

        let snapshot = LTXHeader(pageSize: 512, commit: 3, minTXID: 1, maxTXID: 1, timestamp: 0)
        #expect(throws: LTXError.self) { _ = try Self.encode(snapshot, pages: [(1, page), (3, page)]) }
        #expect(throws: LTXError.self) { _ = try Self.encode(snapshot, pages: [(1, page), (2, page)]) }
        var bad = snapshot
        bad.pageSize = 1000
        #expect(throws: LTXError.self) { _ = try LTXEncoder(header: bad) { _ in } }
        bad = snapshot
        bad.preApplyChecksum = LTXChecksum(rawValue: LTXChecksum.flag)
        #expect(throws: LTXError.self, "a snapshot follows nothing") { _ = try LTXEncoder(header: bad) { _ in } }
    }

    @Test("pages on both sides of the lock page round-trip; the lock page itself is refused")
    func lockPage() throws {
        let pageSize: UInt32 = 65536
        let lock = LTXHeader.lockPage(pageSize: pageSize)
        #expect(lock == 16385)
        var header = LTXHeader(pageSize: pageSize, commit: lock + 1, minTXID: 5, maxTXID: 5, timestamp: 0)
        header.flags = LTXHeader.noChecksumFlag
        let page = [UInt8](repeating: 7, count: Int(pageSize))
        let bytes = try Self.encode(header, pages: [(lock - 1, page), (lock + 1, page)])
        let (_, pages) = try Self.decode(bytes)
        #expect(pages.map(\.0) == [lock - 1, lock + 1])
        #expect(throws: LTXError.self) { _ = try Self.encode(header, pages: [(lock, page)]) }
    }

    @Test("file names: Litestream's layout parses back; other names are not LTX files")
    func fileNames() {
        let name = LTXFileName(level: 0, minTXID: 0x1f, maxTXID: 0x2a)
        #expect(name.path == "ltx/0/000000000000001f-000000000000002a.ltx")
        #expect(LTXFileName(level: 0, fileName: name.fileName) == name)
        for other in [
            "000000000000001f-000000000000002a.ltx.tmp", "000000000000001F-000000000000002a.ltx",
            "000000000000002a-000000000000001f.ltx", "0000000000000000-0000000000000001.ltx", "notes.txt",
        ] {
            #expect(LTXFileName(level: 0, fileName: other) == nil, "\(other)")
        }
        #expect(LTXFileName(level: 10, fileName: name.fileName) == nil)
    }
}
