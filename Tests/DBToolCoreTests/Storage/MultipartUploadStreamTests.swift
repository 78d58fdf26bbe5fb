import Crypto
import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// The upload pipeline on its own, against the real S3-API server: run
/// under ThreadSanitizer too (the writer and the upload workers share parts).
@Suite("Multipart upload stream", .serialized)
struct MultipartUploadStreamTests {
    let server: ObjectStorageServer
    let store: ObjectStore

    init() throws {
        server = try ObjectStorageServer()
        var options = ObjectStoreOptions(environment: server.environment)
        options.retries = 1
        store = try ObjectStore(options)
    }

    /// Streams `size` pseudo-random bytes in odd-sized writes; returns the SHA-256 written.
    private func upload(_ location: ObjectLocation, size: Int, threads: Int, complete: Bool) throws -> (MultipartUploadStream, String) {
        let stream = MultipartUploadStream(store: store, location: location, partSize: 5 << 20, threads: threads, headers: [])
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: 777_777 / 8 + 1)
        var hash = SHA256()
        var written = 0
        while written < size {
            let count = min(777_777, size - written)  // odd-sized writes: parts never align with them
            // One random word per write, then a cheap pattern: varied enough
            // that a part out of order changes the hash, cheap under TSan.
            let seed: UInt64 = generator.next()
            for index in words.indices { words[index] = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15 }
            let bytes = words.withUnsafeBytes { Array($0) }
            bytes.withUnsafeBytes { buffer in
                _ = stream.write(buffer.baseAddress!, count: count)
                hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            written += count
        }
        if complete { try stream.publish(as: nil) } else { try stream.finish() }
        return (stream, hash.finalize().hexString)
    }

    @Test("parts uploaded by several workers make the object, in order, with its SHA-256", arguments: [1, 3])
    func ordered(threads: Int) throws {
        let location = ObjectLocation(bucket: "backups", key: "stream/\(threads).bin")
        let (stream, sha256) = try upload(location, size: 11 << 20, threads: threads, complete: true)
        #expect(stream.sha256 == sha256)
        let info = try #require(try store.head(location))
        #expect(info.size == 11 << 20)
        var hash = SHA256()
        var offset: Int64 = 0
        while offset < info.size {
            let end = min(info.size, offset + (8 << 20))
            hash.update(data: try store.get(location, range: offset..<end, etag: info.etag))
            offset = end
        }
        #expect(hash.finalize().hexString == sha256)
    }

    @Test("an aborted upload leaves no object and no open upload")
    func aborted() throws {
        let location = ObjectLocation(bucket: "backups", key: "stream/aborted.bin")
        let (stream, _) = try upload(location, size: 6 << 20, threads: 2, complete: false)
        #expect(try server.openUploads("stream/") == 1)
        stream.abort()
        #expect(stream.abortFailure == nil)
        #expect(try store.head(location) == nil)
        #expect(try server.openUploads("stream/") == 0)
    }

    @Test("an archive smaller than a part goes up in one PUT: no multipart upload is ever started")
    func singlePut() throws {
        let location = ObjectLocation(bucket: "backups", key: "stream/small.bin")
        let (stream, sha256) = try upload(location, size: 3 << 20, threads: 2, complete: false)
        #expect(try server.openUploads("stream/") == 0)
        #expect(try store.head(location) == nil, "nothing appears before publish")
        try stream.publish(as: nil)
        let info = try #require(try store.head(location))
        #expect(info.size == 3 << 20)
        #expect(stream.sha256 == sha256)
        #expect(SHA256.hash(data: try store.get(location, range: 0..<info.size, etag: info.etag)).hexString == sha256)
    }

    @Test("published under another name: the object is renamed, the first name is gone")
    func publishedRenamed() throws {
        let location = ObjectLocation(bucket: "backups", key: "stream/first.bin")
        let (stream, _) = try upload(location, size: 6 << 20, threads: 2, complete: false)
        try stream.publish(as: "second.bin")
        #expect(try store.head(location) == nil)
        #expect(try store.head(ObjectLocation(bucket: "backups", key: "stream/second.bin"))?.size == 6 << 20)
    }
}
