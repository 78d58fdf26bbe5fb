import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// One suite, both backends: what every ``Store`` promises its layouts
/// (archives, replicas), run in process against a directory and against a
/// real S3-API server on loopback (moto).
@Suite("Storage: one store interface, two backends", .serialized)
struct StoreConformanceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case directory, s3
        var testDescription: String { rawValue }
    }

    let scratch = TemporaryDirectory()
    let server: ObjectStorageServer

    init() throws {
        server = try ObjectStorageServer()
    }

    /// A new, empty store of `backend`.
    func store(_ backend: Backend) throws -> any Store {
        switch backend {
        case .directory:
            let path = scratch.file("store-\(UUID().uuidString)")
            let store = DirectoryStore(path: path, tempPrefix: ".dbtool-test-")
            try store.prepareForWriting(creating: true)
            return store
        case .s3:
            return try StoreLocation.store(
                "s3://backups/conformance-\(UUID().uuidString)/", objectStore: ObjectStoreOptions(environment: server.environment),
                tempPrefix: ".dbtool-test-", what: "the store")
        }
    }

    /// Reads an object whole.
    func read(_ store: any Store, _ key: String) throws -> Data {
        let (source, _) = try store.open(key)
        var data = Data()
        while true {
            let block = try source.nextBlock()
            if block.isEmpty { return data }
            data.append(contentsOf: block)
        }
    }

    @Test("an object appears whole once published, with its size, metadata and time; nothing before", arguments: Backend.allCases)
    func publish(_ backend: Backend) throws {
        let store = try store(backend)
        var options = StoreWriteOptions()
        options.modified = Date(timeIntervalSince1970: 1_790_000_000.25)
        options.metadata = ["litestream-timestamp": "2026-09-21T14:13:20.250Z"]
        let upload = try store.create("ltx/0/a.ltx", options)
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        #expect(bytes.withUnsafeBytes { upload.write($0.baseAddress!, count: $0.count) })
        #expect(try store.list("ltx/0/").isEmpty, "visible before it was published")
        #expect(try store.metadata(of: "ltx/0/a.ltx") == nil)
        try upload.publish()
        let listed = try store.list("ltx/0/")
        #expect(listed.map(\.key) == ["ltx/0/a.ltx"] && listed.first?.size == 300_000)
        #expect(try read(store, "ltx/0/a.ltx") == bytes)
        let object = try #require(try store.metadata(of: "ltx/0/a.ltx"))
        if store.listsExactTimes {
            #expect(abs(object.modified.timeIntervalSince1970 - 1_790_000_000.25) < 0.001)
        } else {
            #expect(object.metadata["litestream-timestamp"] == "2026-09-21T14:13:20.250Z")
        }
    }

    @Test("a directory store sets a file's time to the very millisecond it is given, as Litestream reads it back")
    func exactFileTimes() throws {
        let path = scratch.file("store-times")
        let store = DirectoryStore(path: path, tempPrefix: ".dbtool-test-")
        try store.prepareForWriting(creating: true)
        // 12:52:52.659 as a Date is 0.08 µs before it: truncated, the file's time was 658,999,919 ns.
        for milliseconds: Int64 in [1_795_951_972_659, 1_795_951_972_001, 1_795_951_972_999, 1_790_000_000_250] {
            var options = StoreWriteOptions()
            options.modified = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let upload = try store.create("ltx/0/\(milliseconds).ltx", options)
            #expect([UInt8](repeating: 1, count: 10).withUnsafeBytes { upload.write($0.baseAddress!, count: $0.count) })
            try upload.publish()
            var status = stat()
            #expect(stat(path + "/ltx/0/\(milliseconds).ltx", &status) == 0)
            #expect(Int64(status.st_mtim.tv_sec) * 1000 == milliseconds / 1000 * 1000)
            #expect(Int64(status.st_mtim.tv_nsec) == milliseconds % 1000 * 1_000_000, "\(milliseconds)")
        }
    }

    @Test("an aborted write leaves nothing, not even a temp file", arguments: Backend.allCases)
    func abort(_ backend: Backend) throws {
        let store = try store(backend)
        let upload = try store.create("archive.tar", StoreWriteOptions())
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        #expect(bytes.withUnsafeBytes { upload.write($0.baseAddress!, count: $0.count) })
        upload.abort()
        #expect(try store.list("").isEmpty)
        if let path = store.localPath { #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty) }
    }

    @Test("an exclusive write succeeds once: the loser of a race gets a conflict, the winner's bytes stay", arguments: Backend.allCases)
    func exclusive(_ backend: Backend) throws {
        let store = try store(backend)
        var options = StoreWriteOptions()
        options.exclusive = true
        #expect(try store.write("owner.json", Data("first".utf8), options))
        #expect(try !store.write("owner.json", Data("second".utf8), options))
        #expect(try store.readSmall("owner.json", limit: 100) == Data("first".utf8))
        // Two writes started before either publishes: one wins.
        let a = try store.create("race.json", options)
        let b = try store.create("race.json", options)
        for (upload, text) in [(a, "a"), (b, "b")] { _ = Data(text.utf8).withUnsafeBytes { upload.write($0.baseAddress!, count: 1) } }
        var outcomes: [Bool] = []
        for upload in [a, b] {
            do {
                try upload.publish()
                outcomes.append(true)
            } catch is StoreConflict {
                outcomes.append(false)
            }
        }
        #expect(outcomes == [true, false])
        #expect(try store.readSmall("race.json", limit: 10) == Data("a".utf8))
    }

    @Test("a write that may not replace is refused (73) when the key is taken; one that may, replaces", arguments: Backend.allCases)
    func replacing(_ backend: Backend) throws {
        let store = try store(backend)
        var replace = StoreWriteOptions()
        replace.replacing = true
        try store.write("record.json", Data("one".utf8), replace)
        try store.write("record.json", Data("two".utf8), replace)
        #expect(try store.readSmall("record.json", limit: 10) == Data("two".utf8))
        if backend == .directory {
            #expect(throws: DBToolError.self) { try store.write("record.json", Data("three".utf8), StoreWriteOptions()) }
        }
    }

    @Test("a listing is sorted by key, starts after and stops before the keys given, and lists one folder", arguments: Backend.allCases)
    func listing(_ backend: Backend) throws {
        let store = try store(backend)
        var options = StoreWriteOptions()
        options.replacing = true
        for index in [3, 1, 20, 12, 7] { try store.write("level/\(String(format: "%04d", index)).ltx", Data([UInt8(index)]), options) }
        try store.write("level/deeper/0005.ltx", Data([5]), options)
        try store.write("root.json", Data("{}".utf8), options)
        #expect(try store.list("level/").map(\.key) == ["level/0001.ltx", "level/0003.ltx", "level/0007.ltx", "level/0012.ltx", "level/0020.ltx"])
        #expect(try store.list("level/", startAfter: "level/0003", endBefore: "level/0013").map(\.name) == ["0003.ltx", "0007.ltx", "0012.ltx"])
        #expect(try store.list("").map(\.key) == ["root.json"])
        #expect(try store.list("missing/").isEmpty)
        #expect(try store.delete("level/0007.ltx"))
        #expect(try store.list("level/").count == 4)
        #expect(try store.metadata(of: "level/0007.ltx") == nil)
    }

    @Test("a replica written through one store reads back through the layout the same, Litestream's folders per backend", arguments: Backend.allCases)
    func replicaLayout(_ backend: Backend) throws {
        let store = try store(backend)
        let replica = Replica(store)
        #expect(replica.folder(9) == (backend == .directory ? "ltx/9/" : "0009/"))
        let file = scratch.file("file-\(UUID().uuidString).ltx")
        try Data("ltx bytes".utf8).write(to: URL(fileURLWithPath: file))
        let name = LTXFileName(level: 0, minTXID: 5, maxTXID: 5)
        try replica.write(name, from: file, timestamp: Date(timeIntervalSince1970: 1_790_000_000))
        let files = try replica.files(level: 0)
        #expect(files.map(\.name) == [name])
        #expect(try replica.exactTimestamp(of: files[0]) == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(try replica.lastTXID() == 5)
    }

    @Test("a large object streams in one GET after its first block; a transfer broken midway goes on from where it stopped")
    func brokenRead() throws {
        let log = scratch.file("requests.log")
        let server = try ObjectStorageServer(requestLog: log)
        let store = try StoreLocation.store(
            "s3://backups/broken/\(UUID().uuidString)/", objectStore: ObjectStoreOptions(environment: server.environment),
            tempPrefix: ".dbtool-test-", what: "the store")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(6 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        #expect(try store.write("big", bytes, StoreWriteOptions()))
        let source = try store.stream("big")
        var read = Data()
        while true {
            let block = try source.nextBlock()
            if block.isEmpty { break }
            read.append(contentsOf: block)
        }
        #expect(read == bytes, "\(read.count) bytes read of \(bytes.count)")
        // The first block, the rest in one GET (broken), then the rest of the rest.
        let ranges = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (entry?["path"] as? String)?.hasSuffix("/big") == true ? entry?["range"] as? String : nil
        }
        #expect(ranges.count == 3, "\(ranges)")
        #expect(ranges.first == "bytes=0-\((1 << 20) - 1)")
        #expect(ranges.dropFirst().first == "bytes=\(1 << 20)-")
        if let resumed = ranges.last?.dropFirst("bytes=".count).dropLast(), let offset = Int(resumed) {
            #expect(offset > 1 << 20 && offset < 6 << 20, "resumed at \(offset)")
        } else {
            Issue.record("no resumed GET: \(ranges)")
        }
    }

    @Test("a directory store never writes through a link planted in a folder of a key")
    func directoryLinks() throws {
        let store = try store(.directory)
        let path = try #require(store.localPath)
        let elsewhere = scratch.file("elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        #expect(symlink(elsewhere, path + "/ltx") == 0)
        var options = StoreWriteOptions()
        options.replacing = true
        #expect(throws: DBToolError.self) { try store.write("ltx/0/a.ltx", Data("x".utf8), options) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }
}
