import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// Pages written in runs, inline for a few and on a thread for many: each
/// lands at its place, and a write that fails is reported.
@Suite("Page runs")
struct PageRunWriterTests {
    /// Page `number` of `size` bytes: its number in every byte but the first.
    private static func page(_ number: UInt32, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: number &* 7), count: size)
        bytes[0] = UInt8(truncatingIfNeeded: number)
        return bytes
    }

    @Test("pages land at their places, in runs broken by gaps, from a few pages to many", arguments: [3, 700])
    func pagesAtTheirPlaces(count: Int) throws {
        let directory = TemporaryDirectory()
        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        let file = try folder.createFile("db")
        defer { file.close() }
        let size = 4096
        // Runs of consecutive pages, a gap after every 300th: 700 pages
        // fill more than one run of 1 MiB, so the thread writes them.
        let numbers = (0..<count).map { UInt32($0 + 1 + $0 / 300) }
        let writer = PageRunWriter(descriptor: file, pageSize: size)
        for number in numbers {
            try Self.page(number, size: size).withUnsafeBytes { try writer.add($0, number: number) }
        }
        try writer.finish()
        let written = try Data(contentsOf: URL(fileURLWithPath: directory.file("db")))
        #expect(written.count == Int(numbers.last!) * size)
        for number in 1...numbers.last! {
            let expected = numbers.contains(number) ? Self.page(number, size: size) : [UInt8](repeating: 0, count: size)
            let start = Int(number - 1) * size
            #expect(Array(written[start..<(start + size)]) == expected, "page \(number)")
        }
    }

    /// The bytes this thread has dirtied in the page cache so far.
    private static func threadWriteBytes() throws -> Int {
        let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    @Test("a page written later into the built file dirties a page, not a run: pages go in one by one")
    func laterPageWrite() throws {
        let directory = TemporaryDirectory()
        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        let file = try folder.createFile("db")
        defer { file.close() }
        let writer = PageRunWriter(descriptor: file, pageSize: 4096)
        for number in UInt32(1)...700 {
            try Self.page(number, size: 4096).withUnsafeBytes { try writer.add($0, number: number) }
        }
        try writer.finish()
        try file.sync()
        // A 1 MiB write leaves a folio of 1 MiB behind (Linux 6.x, ext4 or
        // XFS): one page written into it would dirty, and count, all of it.
        let before = try Self.threadWriteBytes()
        try Self.page(9, size: 4096).withUnsafeBytes { try file.writeAll(toAbsoluteOffset: 300 * 4096, $0) }
        let dirtied = try Self.threadWriteBytes() - before
        #expect(before >= 0 && dirtied <= 16 << 10, "one page written dirtied \(dirtied) bytes")
    }

    @Test("a write that fails is thrown, inline or from the thread", arguments: [3, 700])
    func failedWrite(count: Int) throws {
        let directory = TemporaryDirectory()
        let folder = try DirectoryDescriptor.open(directory.path)
        defer { folder.close() }
        try folder.createFile("db").close()
        let readOnly = try folder.openFile("db", .readOnly)
        defer { readOnly.close() }
        let writer = PageRunWriter(descriptor: readOnly, pageSize: 4096)
        let page = [UInt8](repeating: 1, count: 4096)
        #expect(throws: FileSystemError.self) {
            for number in 1...UInt32(count) {
                try page.withUnsafeBytes { try writer.add($0, number: number) }
            }
            try writer.finish()
        }
    }
}
