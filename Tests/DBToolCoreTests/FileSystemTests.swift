import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// The system layer every file operation of dbtool goes through: its errors
/// name the path and map to the documented exit statuses.
@Suite("File-system layer")
struct FileSystemTests {
    @Test("a created file is private whatever the umask, and never made through a link or over a file")
    func createNew() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        let old = umask(0)
        defer { umask(old) }
        let path = directory + "/new"
        let descriptor = try FileDescriptor.createNew(path)
        try descriptor.writeAll(Array("hello".utf8))
        try descriptor.sync()
        descriptor.close()
        #expect(try FileSystem.status(path)?.permissions == 0o600)
        #expect(try FileSystem.contents(path) == Array("hello".utf8))

        #expect {
            _ = try FileDescriptor.createNew(path)
        } throws: { error in
            let error = error as? FileSystemError
            return error?.errno == .fileExists && error?.path == path && error?.status == .cantCreate
        }
        let target = directory + "/target"
        let link = directory + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: FileSystemError.self) { _ = try FileDescriptor.createNew(link) }
        #expect(!FileSystem.exists(target), "nothing was created where the link points")
        #expect(try FileSystem.status(link, followingLinks: false)?.kind == .symbolicLink)
    }

    @Test("status is nil when nothing is there, including under a file; directories list sorted")
    func statusAndListing() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        for name in ["b", "a", "c"] { try FileDescriptor.createNew(directory + "/" + name).close() }
        try FileSystem.createDirectory(directory + "/d", permissions: 0o750)
        #expect(try FileSystem.contentsOfDirectory(directory) == ["a", "b", "c", "d"])
        #expect(try FileSystem.status(directory + "/d")?.kind == .directory)
        #expect(try FileSystem.status(directory + "/d")?.permissions == 0o750)
        #expect(try FileSystem.status(directory + "/missing") == nil)
        #expect(try FileSystem.status(directory + "/a/below") == nil)
        #expect(FileSystem.isDirectory(directory) && !FileSystem.isDirectory(directory + "/a"))
        #expect(try FileSystem.remove(directory + "/a"))
        #expect(try !FileSystem.remove(directory + "/a"), "removing what is gone is not an error, and says so")
        #expect {
            _ = try FileSystem.contentsOfDirectory(directory + "/missing")
        } throws: { error in
            (error as? FileSystemError)?.toolError.status == .noInput
                && (error as? FileSystemError)?.description == "can not list \(directory)/missing: No such file or directory"
        }
    }

    @Test("a full disk is 74 naming the file; a rename names both paths")
    func errorStatuses() throws {
        let full = try FileDescriptor.open("/dev/full", .writeOnly)
        defer { full.close() }
        #expect {
            try full.writeAll(Array(repeating: 0, count: 4096))
        } throws: { error in
            let error = error as? FileSystemError
            return error?.status == .ioError && error?.toolError.message == "can not write /dev/full: No space left on device"
                && error?.toolError.isTransient == true && error?.operation == .write
        }
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        #expect {
            try FileSystem.rename(directory + "/nothing", to: directory + "/else")
        } throws: { error in
            (error as? FileSystemError)?.description == "can not move \(directory)/nothing to \(directory)/else: No such file or directory"
        }
    }

    @Test("the status follows what was attempted and why: a missing input is 66, a missing place 73; only a full disk passes by itself")
    func typedOperations() throws {
        let scratch = TemporaryDirectory()
        func failure(_ body: () throws -> Void) -> FileSystemError? {
            do {
                try body()
                return nil
            } catch {
                return error as? FileSystemError
            }
        }
        let open = failure { _ = try FileDescriptor.open(scratch.file("absent"), .readOnly) }
        #expect(open?.operation == .open && open?.status == .noInput && open?.toolError.isTransient == false)
        let list = failure { _ = try FileSystem.contentsOfDirectory(scratch.file("absent")) }
        #expect(list?.operation == .list && list?.status == .noInput)
        let create = failure { try FileSystem.createDirectory(scratch.file("absent/child")) }
        #expect(create?.operation == .createDirectory && create?.status == .cantCreate)
        #expect(create?.description == "can not create the directory \(scratch.file("absent/child")): No such file or directory")
        // The exit status a caller asks for does not hide a full disk or a refusal.
        let full = FileSystemError(operation: .create, path: "/x", errno: Errno(ENOSPC)).reported(.cantCreate)
        #expect(full.status == .ioError && full.isTransient)
        let denied = FileSystemError(operation: .open, path: "/x", errno: Errno(EACCES)).reported(.noInput)
        #expect(denied.status == .noPermission && !denied.isTransient)
        #expect(FileSystemError(operation: .move(from: "/a"), path: "/b", errno: Errno(EXDEV)).description.hasPrefix("can not move /a to /b: "))
    }

    @Test("reads to the end of a pipe, and at offsets of a file")
    func reading() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = FileDescriptor(rawValue: ends[0], path: "pipe")
        let writer = FileDescriptor(rawValue: ends[1], path: "pipe")
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let thread = Thread {
            try? writer.writeAll(payload)
            writer.close()
        }
        thread.start()
        #expect(try reader.readToEnd() == payload)
        reader.close()

        let scratch = TemporaryDirectory()
        let directory = scratch.path
        let file = try FileDescriptor.createNew(directory + "/f")
        try file.writeAll(Array("0123456789".utf8))
        file.close()
        let opened = try FileDescriptor.open(directory + "/f", .readOnly)
        defer { opened.close() }
        #expect(try opened.read(fromAbsoluteOffset: 4, count: 3) == Array("456".utf8))
        #expect(try opened.read(fromAbsoluteOffset: 8, count: 100) == Array("89".utf8))
        #expect(try opened.status().size == 10)
    }

    @Test("a process that is gone is told from one that exists")
    func processes() {
        #expect(SystemProcess.exists(SystemProcess.currentID))
        #expect(SystemProcess.exists(1), "init exists even if it may not be signalled")
        #expect(!SystemProcess.exists(Int32.max))
    }
}
