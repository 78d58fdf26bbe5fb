import Foundation
import Testing
import TestSupport

@testable import DBToolCore

@Suite("Archives (libarchive)")
struct ArchiveTests {
    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "archive-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes an archive of `files` plus a manifest, then reads everything back.
    private func roundTrip(_ format: ArchiveFormat, level: Int?, files: [String: Data], in directory: String) throws -> [String: (
        ArchiveReader.Entry, Data
    )] {
        let archivePath = directory + "/backup." + format.fileExtension
        _ = try? FileSystem.remove(archivePath)
        let descriptor = try FileDescriptor.createNew(archivePath)
        do {
            let writer = try ArchiveWriter(fileDescriptor: descriptor, format: format, level: level, destination: archivePath)
            for (name, data) in files.sorted(by: { $0.key < $1.key }) {
                let path = directory + "/" + name
                try data.write(to: URL(fileURLWithPath: path))
                chmod(path, 0o640)
                try writer.addFile(atPath: path, as: "db/" + name)
            }
            try writer.addData(Data("{\"manifest\":true}".utf8), as: "db/manifest.json")
            try writer.finish()
        }
        descriptor.close()
        let reader = try ArchiveReader(path: archivePath)
        var result: [String: (ArchiveReader.Entry, Data)] = [:]
        while let entry = try reader.nextEntry() {
            var data = Data()
            try reader.readData { data.append(contentsOf: $0) }
            result[entry.name] = (entry, data)
        }
        return result
    }

    @Test("every format round-trips names, contents, sizes, permissions and times", arguments: ArchiveFormat.allCases)
    func roundTrips(format: ArchiveFormat) throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SystemRandomNumberGenerator()
        let big = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let files = ["db.sqlite": big, "db.sqlite-wal": Data(repeating: 7, count: 1000), "empty": Data()]
        let entries = try roundTrip(format, level: nil, files: files, in: directory)
        #expect(Set(entries.keys) == ["db/db.sqlite", "db/db.sqlite-wal", "db/empty", "db/manifest.json"])
        for (name, data) in files {
            let (entry, content) = try #require(entries["db/" + name])
            #expect(content == data, "\(name)")
            #expect(entry.kind == .file)
            #expect(entry.size == Int64(data.count))
            #expect(entry.mode == 0o640)
            let modified = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.modificationDate] as! Date
            #expect(abs(Double(entry.modified) - modified.timeIntervalSince1970) < 2)
        }
        #expect(entries["db/manifest.json"]?.1 == Data("{\"manifest\":true}".utf8))
        #expect(entries["db/manifest.json"]?.0.mode == 0o600)
    }

    @Test("compression levels apply")
    func levels() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = ["text": Data(String(repeating: "SQLite compresses well. ", count: 50_000).utf8)]
        for format in [ArchiveFormat.tarZstd, .tarGzip, .tarXz, .zip] {
            _ = try roundTrip(format, level: 1, files: files, in: directory)
            let fast = try FileManager.default.attributesOfItem(atPath: directory + "/backup." + format.fileExtension)[.size] as! Int
            _ = try roundTrip(format, level: 9, files: files, in: directory)
            let small = try FileManager.default.attributesOfItem(atPath: directory + "/backup." + format.fileExtension)[.size] as! Int
            #expect(small <= fast, "\(format)")
            #expect(small < 1_200_000 / 10, "\(format) compresses")
        }
    }

    @Test("a truncated archive fails cleanly with 65", arguments: [ArchiveFormat.tarZstd, .tarGzip, .tar])
    func truncated(format: ArchiveFormat) throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SystemRandomNumberGenerator()
        let data = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        _ = try roundTrip(format, level: nil, files: ["db.sqlite": data], in: directory)
        let archivePath = directory + "/backup." + format.fileExtension
        let whole = try Data(contentsOf: URL(fileURLWithPath: archivePath))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: archivePath))
        let error = #expect(throws: DBToolError.self) {
            let reader = try ArchiveReader(path: archivePath)
            while try reader.nextEntry() != nil {
                try reader.readData { _ in }
            }
        }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains(archivePath) == true)
    }

    @Test("symbolic links are reported as such (restore will refuse them)")
    func symlinks() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: "/etc/passwd")
        let archive = directory + "/links.tar"
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/bin/tar")
        tar.arguments = ["-cf", archive, "-C", directory, "link"]
        try tar.run()
        tar.waitUntilExit()
        let reader = try ArchiveReader(path: archive)
        let entry = try #require(try reader.nextEntry())
        #expect(entry.kind == .symbolicLink)
        #expect(entry.linkTarget == "/etc/passwd")
    }
}
