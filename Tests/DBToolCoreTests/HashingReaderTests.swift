import Crypto
import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// The read-ahead thread of archiving: run under ThreadSanitizer by `make test-tsan`.
@Suite("HashingReader")
struct HashingReaderTests {
    /// A temp file of `size` pseudo-random bytes, open for reading.
    private func makeFile(size: Int) throws -> (path: String, descriptor: FileDescriptor, data: Data) {
        let path = NSTemporaryDirectory() + "hashing-\(UUID().uuidString)"
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try data.write(to: URL(fileURLWithPath: path))
        return (path, try FileDescriptor.open(path, .readOnly), data)
    }

    @Test("chunks come in order, whole, with the SHA-256 of what was read", arguments: [0, 1, (1 << 20) - 1, 1 << 20, 5 * (1 << 20) + 17])
    func wholeFile(size: Int) throws {
        let file = try makeFile(size: size)
        defer {
            file.descriptor.close()
            _ = try? FileSystem.remove(file.path)
        }
        let reader = HashingReader(descriptor: file.descriptor, length: Int64(size))
        var read = Data()
        while let chunk = try reader.next() { read.append(contentsOf: chunk) }
        #expect(read == file.data)
        #expect(reader.sha256 == SHA256.hash(data: file.data))
        #expect(try reader.next() == nil)  // after the end: nil again, no hang
    }

    @Test("a prefix of the file is read when asked")
    func prefix() throws {
        let file = try makeFile(size: 3 << 20)
        defer {
            file.descriptor.close()
            _ = try? FileSystem.remove(file.path)
        }
        let reader = HashingReader(descriptor: file.descriptor, length: 1 << 20)
        var read = Data()
        while let chunk = try reader.next() { read.append(contentsOf: chunk) }
        #expect(read == file.data.prefix(1 << 20))
        #expect(reader.sha256 == SHA256.hash(data: file.data.prefix(1 << 20)))
    }

    @Test("a file shorter than announced is an I/O error naming it")
    func shorter() throws {
        let file = try makeFile(size: 100)
        defer {
            file.descriptor.close()
            _ = try? FileSystem.remove(file.path)
        }
        let reader = HashingReader(descriptor: file.descriptor, length: 200)
        #expect(try reader.next()?.count == 100)
        #expect {
            try reader.next()
        } throws: { error in
            (error as? DBToolError)?.status == .ioError && (error as? DBToolError)?.message.contains(file.path) == true
        }
    }

    @Test("stopping early joins the reading thread")
    func stopEarly() throws {
        let file = try makeFile(size: 8 << 20)
        defer {
            file.descriptor.close()
            _ = try? FileSystem.remove(file.path)
        }
        for _ in 0..<20 {
            let reader = HashingReader(descriptor: file.descriptor, length: 8 << 20)
            #expect(try reader.next()?.count == 1 << 20)
            reader.join()  // what deinit does when archiving throws midway
        }
    }
}
