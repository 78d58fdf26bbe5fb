import Foundation
import Testing
import TestSupport

@testable import DBToolCore

@Suite("Destinations")
struct FileDestinationTests {
    private func makeFile(atPath path: String, contents: Data) throws {
        try contents.write(to: URL(fileURLWithPath: path))
    }

    @Test("timestamps are UTC to the millisecond, and sort as time does")
    func timestamps() {
        let date = Date(timeIntervalSince1970: 1_795_000_000.042)
        #expect(TimestampedName.timestamp(date) == "20261118T110640.042Z")
        let name = TimestampedName(stem: "db", fileExtension: "tar.zst")
        #expect(name.name(at: date) == "db-20261118T110640.042Z.tar.zst")
        #expect(name.timestamp(of: "db-20261117T065320.042Z.tar.zst") == "20261117065320042")
        // Names to the second, written before 0.4, belong to the series.
        #expect(name.timestamp(of: "db-20261117T065320Z.tar.zst") == "20261117065320000")
        for other in ["db-old-20261117T065320.042Z.tar.zst", "db-20261117T065320.042Z.tar.gz", "db-manual.tar.zst", "xdb-20261117T065320Z.tar.zst",
            "db-2026111xT065320Z.tar.zst"]
        {
            #expect(name.timestamp(of: other) == nil, "\(other)")
        }
    }

    @Test("pruning keeps the newest N of the series, never the new file, and reports only what it deleted")
    func pruning() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        let names = ["db-20200101T000000Z.sqlite", "db-20210101T000000.500Z.sqlite", "db-20220101T000000Z.sqlite", "notes.txt", "db-x.sqlite"]
        for name in names { try makeFile(atPath: directory + "/" + name, contents: Data()) }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let destination = try FileDestination(
            .directory(directory, retention: RetentionPolicy(last: 2)), stem: "db", fileExtension: "sqlite", now: now, force: false, tempPrefix: ".t-")
        try makeFile(atPath: destination.path, contents: Data())
        let pruning = destination.prune()
        #expect(pruning.deleted == [directory + "/db-20200101T000000Z.sqlite", directory + "/db-20210101T000000.500Z.sqlite"])
        #expect(pruning.failures.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(left == ["db-20220101T000000Z.sqlite", destination.fileName, "db-x.sqlite", "notes.txt"].sorted())
    }

    @Test("a file pruning can not delete is reported as a failure, not as deleted")
    func pruningFailure() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        // A directory under an archive's name: unlink(2) fails (EISDIR), for root too.
        try FileManager.default.createDirectory(atPath: directory + "/db-20200101T000000Z.sqlite", withIntermediateDirectories: false)
        let destination = try FileDestination(
            .directory(directory, retention: RetentionPolicy(last: 1)), stem: "db", fileExtension: "sqlite", now: Date(), force: false, tempPrefix: ".t-")
        try makeFile(atPath: destination.path, contents: Data())
        let pruning = destination.prune()
        #expect(pruning.deleted.isEmpty)
        #expect(pruning.failures.count == 1)
        #expect(pruning.failures.first?.hasPrefix(directory + "/db-20200101T000000Z.sqlite: ") == true)
        #expect(FileSystem.isDirectory(directory + "/db-20200101T000000Z.sqlite"))
    }

    @Test("a refused request creates nothing; an accepted --output-dir is created private")
    func creation() throws {
        let scratch = TemporaryDirectory()
        let parent = scratch.path
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try FileDestination(
                .directory(parent + "/new", retention: RetentionPolicy()), stem: "db", fileExtension: "sqlite", now: Date(), force: false,
                tempPrefix: ".t-", validate: { _, _ in throw Refused() })
        }
        #expect(!FileManager.default.fileExists(atPath: parent + "/new"))
        let destination = try FileDestination(
            .directory(parent + "/new", retention: RetentionPolicy()), stem: "db", fileExtension: "sqlite", now: Date(), force: false, tempPrefix: ".t-")
        var info = stat()
        #expect(stat(parent + "/new", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(destination.directory == parent + "/new")
        try destination.prepare()
    }

    @Test("an existing file is refused (73) unless forced; a missing directory is 73")
    func checks() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        try makeFile(atPath: directory + "/taken.sqlite", contents: Data())
        let taken = try FileDestination(.file(directory + "/taken.sqlite"), stem: "", fileExtension: "", now: Date(), force: false, tempPrefix: ".t-")
        #expect(throws: DBToolError.self) { try taken.prepare() }
        do { try taken.prepare() } catch let error as DBToolError { #expect(error.status == .cantCreate) }
        let forced = try FileDestination(.file(directory + "/taken.sqlite"), stem: "", fileExtension: "", now: Date(), force: true, tempPrefix: ".t-")
        try forced.prepare()
        let missing = try FileDestination(.file(directory + "/no/x.sqlite"), stem: "", fileExtension: "", now: Date(), force: false, tempPrefix: ".t-")
        do {
            try missing.prepare()
            Issue.record("a missing directory was accepted")
        } catch let error as DBToolError {
            #expect(error.status == .cantCreate)
            #expect(error.description.contains(directory + "/no/x.sqlite"))
        }
    }

    @Test("archive formats: the extension decides; an explicit contradicting format is a usage error")
    func archiveFormats() throws {
        #expect(ArchiveFormat(fileName: "x.TAR.GZ") == .tarGzip)
        #expect(ArchiveFormat(fileName: "x.tgz") == .tarGzip)
        #expect(ArchiveFormat(fileName: "x.tar") == .tar)
        #expect(ArchiveFormat(fileName: "x.tar.xz") == .tarXz)
        #expect(ArchiveFormat(fileName: "x.gz") == nil)
        #expect(try ArchiveFormat.resolve(explicit: nil, output: nil) == .tarZstd)
        #expect(try ArchiveFormat.resolve(explicit: .zip, output: nil) == .zip)
        #expect(try ArchiveFormat.resolve(explicit: .zip, output: "/b/x.bak") == .zip)
        #expect(try ArchiveFormat.resolve(explicit: nil, output: "/b/x.zip") == .zip)
        do {
            _ = try ArchiveFormat.resolve(explicit: .tarZstd, output: "/b/x.zip")
            Issue.record("a contradiction was accepted")
        } catch let error as DBToolError {
            #expect(error.status == .usage)
        }
    }
}
