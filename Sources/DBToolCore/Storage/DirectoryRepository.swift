import Foundation

/// A repository in a local directory (`--output-dir DIR`, `backup list
/// DIR`, a path to an archive).
///
/// An entry is written to a private temp file beside its name (mode 0600,
/// created exclusively, never through a link), fsynced, renamed, and the
/// directory fsynced: it appears whole under its name or not at all, and
/// the next run removes the temp files of killed runs (see
/// ``TemporaryOwner``). Once prepared for writing, the directory is held
/// open, and every file is created and renamed relative to it: a link
/// swapped in for the directory afterwards is never written through.
final class DirectoryRepository: ArchiveRepository {
    /// The directory, absolute.
    let path: String
    /// The prefix of this command's temp files.
    let tempPrefix: String
    /// True once ``prepareForWriting(creating:)`` created the directory.
    private(set) var createdDirectory = false
    /// The directory, open once prepared for writing.
    private var handle: DirectoryDescriptor?

    /// A repository at `path`; `opened` is its directory already open (one
    /// opened without following a link, inside a database directory).
    init(path: String, tempPrefix: String, opened: DirectoryDescriptor? = nil) {
        self.path = path
        self.tempPrefix = tempPrefix
        handle = opened
    }

    deinit { handle?.close() }

    /// The open directory: prepared for writing first.
    private func directory() throws -> DirectoryDescriptor {
        if let handle { return handle }
        do {
            let opened = try DirectoryDescriptor.open(path)
            handle = opened
            return opened
        } catch {
            throw error.reported(.cantCreate, hint: "Check the directory \(path).")
        }
    }

    var description: String { path }
    var stagingDirectory: String { path }

    func location(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// Before writing: creates a missing directory (private, when its parent
    /// exists: a typo deep in a path is reported rather than created),
    /// checks that it may be written, and removes the temp files of killed
    /// runs.
    func prepareForWriting(creating: Bool) throws {
        if creating {
            createdDirectory = try createOutputDirectory(path)
        } else if !FileSystem.isDirectory(path) {
            throw DBToolError(.cantCreate, "the directory \(path) does not exist", hint: "Create it first (mkdir -p).")
        }
        guard FileSystem.isWritable(path) else {
            throw DBToolError(
                .noPermission, "can not write into \(path): the directory is not writable",
                hint: "Check its permissions, or choose another destination.")
        }
        _ = try directory()
        removeStaleTempFiles(in: path, prefix: tempPrefix)
    }

    /// Removes the directory ``prepareForWriting(creating:)`` created, if
    /// still empty: called when the operation failed.
    func discardCreatedDirectory() {
        if createdDirectory { try? FileSystem.removeEmptyDirectory(path) }
    }

    func list() throws -> [RepositoryEntry] {
        guard FileSystem.isDirectory(path) else {
            throw DBToolError(.noInput, "no directory \(path)", hint: "Give the directory of the backups, or an s3:// prefix.")
        }
        let names: [String]
        do {
            names = try FileSystem.contentsOfDirectory(path)
        } catch {
            throw error.reported(hint: "Check its permissions.")
        }
        return names.compactMap { name in
            guard let info = (try? FileSystem.status(location(of: name), followingLinks: false)) ?? nil, info.kind == .regular else {
                return nil
            }
            return RepositoryEntry(name: name, size: info.size)
        }
    }

    func readSmall(_ name: String, limit: Int) throws -> Data? {
        guard let info = try FileSystem.status(location(of: name), followingLinks: false), info.kind == .regular, info.size <= limit else {
            return nil
        }
        return Data(try FileSystem.contents(location(of: name)))
    }

    func writeSmall(_ name: String, _ data: Data) throws {
        let temp = try temporaryFile(for: name)
        do {
            let file = try directory().openFile(LocalPath.name(of: temp), .writeOnly)
            defer { file.close() }
            try file.writeAll(Array(data))
        } catch {
            _ = try? directory().removeFile(LocalPath.name(of: temp))
            throw DBToolError.wrapping(error)
        }
        do {
            try publish(temp: temp, as: name, replacing: true)
        } catch {
            _ = try? directory().removeFile(LocalPath.name(of: temp))
            throw error
        }
    }

    /// A new empty private temp file for `name` (which SQLite then fills,
    /// for a snapshot), to ``publish(temp:as:replacing:)`` or remove;
    /// created relative to the open directory. Returns its path.
    func temporaryFile(for name: String, suffix: String = "") throws -> String {
        let tempName = tempName(prefix: tempPrefix, for: name + suffix)
        do {
            try directory().createFile(tempName).close()
        } catch let error as FileSystemError {
            throw DBToolError(writeFailureStatus(error.errno), "can not create \(location(of: tempName)): \(error.errno)")
        }
        return location(of: tempName)
    }

    /// Removes a temp file of this run (relative to the open directory).
    func removeTemporary(_ temp: String) {
        _ = try? directory().removeFile(LocalPath.name(of: temp))
    }

    /// The path of a temp directory of this process for `name`.
    func temporaryDirectory(for name: String) -> String {
        location(of: tempName(prefix: tempPrefix, for: name + ".staging"))
    }

    /// Syncs the complete temp file and renames it to `name`, then syncs
    /// the directory: the file appears whole under its name, or not at all.
    func publish(temp: String, as name: String, replacing: Bool) throws {
        let directory = try directory()
        let tempName = LocalPath.name(of: temp)
        if try !replacing && directory.status(of: name) != nil {
            throw DBToolError(.cantCreate, "\(location(of: name)) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        do {
            let file = try directory.openFile(tempName, .readOnly)
            defer { file.close() }
            try file.sync()
            try directory.rename(tempName, to: directory, as: name)
            try directory.sync()
        } catch {
            throw error.reported(.cantCreate)
        }
    }

    func create(_ name: String, replacing: Bool) throws -> any RepositoryUpload {
        if !replacing && FileSystem.exists(location(of: name)) {
            throw DBToolError(.cantCreate, "\(location(of: name)) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        let temp = try temporaryFile(for: name)
        let descriptor: FileDescriptor
        do {
            descriptor = try directory().openFile(LocalPath.name(of: temp), .writeOnly)
        } catch {
            _ = try? directory().removeFile(LocalPath.name(of: temp))
            throw DBToolError.wrapping(error)
        }
        return FileUpload(repository: self, name: name, temp: temp, descriptor: descriptor, replacing: replacing)
    }

    func open(_ name: String) throws -> OpenedArchive {
        let path = location(of: name)
        if FileSystem.isDirectory(path) {
            throw DBToolError(.dataError, "\(path) is a directory, not an archive", hint: "Give the archive file; `dbtool backup list \(path)` lists those it holds.")
        }
        let file = try ArchiveFile(path: path)
        return OpenedArchive(name: path, source: file, size: file.size, localPath: path)
    }

    func delete(_ name: String) throws -> Bool {
        do {
            return try FileSystem.remove(location(of: name))
        } catch {
            throw error.reported()
        }
    }

    func rename(_ name: String, to newName: String) throws {
        do {
            try FileSystem.rename(location(of: name), to: location(of: newName))
        } catch {
            throw error.reported()
        }
        try syncDirectory(of: location(of: newName))
    }

    /// An entry being written to its temp file, on a thread of its own
    /// (``BackgroundWriter``).
    private final class FileUpload: RepositoryUpload {
        let repository: DirectoryRepository
        let name: String
        let temp: String
        let descriptor: FileDescriptor
        let writer: BackgroundWriter
        let replacing: Bool
        private(set) var size: Int64 = 0
        var sha256: String? { nil }
        private var isDone = false

        init(repository: DirectoryRepository, name: String, temp: String, descriptor: FileDescriptor, replacing: Bool) {
            self.repository = repository
            self.name = name
            self.temp = temp
            self.descriptor = descriptor
            self.replacing = replacing
            writer = BackgroundWriter(descriptor: descriptor)
        }

        deinit { abort() }

        func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
            size += Int64(count)
            return writer.write(bytes, count: count)
        }

        func finish() throws { try writer.finish() }

        var error: DBToolError? { writer.error }

        var abortFailure: String? { nil }

        func publish(as otherName: String?) throws {
            try writer.finish()
            try repository.publish(temp: temp, as: otherName ?? name, replacing: otherName == nil && replacing)
            isDone = true
            descriptor.close()
        }

        func abort() {
            guard !isDone else { return }
            isDone = true
            _ = try? writer.finish()
            descriptor.close()
            repository.removeTemporary(temp)
        }
    }
}
