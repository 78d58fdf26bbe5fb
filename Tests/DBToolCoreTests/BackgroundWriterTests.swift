import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// The write-behind thread of archiving: run under ThreadSanitizer by `make test-tsan`.
@Suite("BackgroundWriter")
struct BackgroundWriterTests {
    @Test("bytes are written whole and in order, in chunks of any size")
    func inOrder() throws {
        let path = NSTemporaryDirectory() + "writer-\(UUID().uuidString)"
        let descriptor = try FileDescriptor.createNew(path)
        defer {
            descriptor.close()
            _ = try? FileSystem.remove(path)
        }
        var expected = Data()
        let writer = BackgroundWriter(descriptor: descriptor)
        for size in [0, 1, 1000, (1 << 20) - 1, 1 << 20, (3 << 20) + 5, 17] {
            let chunk = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
            expected.append(chunk)
            let accepted = chunk.withUnsafeBytes { bytes in
                bytes.baseAddress.map { writer.write($0, count: bytes.count) } ?? true
            }
            #expect(accepted)
        }
        try writer.finish()
        #expect(FileManager.default.contents(atPath: path) == expected)
    }

    @Test("a write error is reported by the next write and by finish, naming the archive")
    func failure() throws {
        let path = NSTemporaryDirectory() + "writer-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let descriptor = try FileDescriptor.open(path, .readOnly)  // write(2) fails with EBADF
        defer {
            descriptor.close()
            _ = try? FileSystem.remove(path)
        }
        let writer = BackgroundWriter(descriptor: descriptor)
        let bytes = [UInt8](repeating: 7, count: 4096)
        var accepted = true
        for _ in 0..<10 where accepted {
            accepted = writer.write(bytes, count: bytes.count)
            usleep(1_000)
        }
        #expect(!accepted)
        #expect {
            try writer.finish()
        } throws: { error in
            (error as? DBToolError)?.message.contains(path) == true
        }
    }

    @Test("an unfinished writer stops its thread when released")
    func released() throws {
        let path = NSTemporaryDirectory() + "writer-\(UUID().uuidString)"
        let descriptor = try FileDescriptor.createNew(path)
        defer {
            descriptor.close()
            _ = try? FileSystem.remove(path)
        }
        for _ in 0..<20 {
            let writer = BackgroundWriter(descriptor: descriptor)
            let bytes = [UInt8](repeating: 1, count: 3 << 20)
            #expect(writer.write(bytes, count: bytes.count))
        }  // deinit finishes: all queued bytes are written, the thread exits
        #expect(FileSystem.size(path) == 20 * (3 << 20))
    }
}
