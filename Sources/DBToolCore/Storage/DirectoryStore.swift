import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A store in a local directory (`--output-dir DIR`, a directory replica, a
/// mounted volume).
///
/// Link-safe: once open, the directory is reached by its descriptor, and
/// every folder and file under it by name relative to its folder's
/// descriptor, never through a link (`O_NOFOLLOW`, folders with
/// `O_DIRECTORY`): a component swapped for a link after it was checked
/// (`DIR/ltx -> /etc`) is never written through. An object is written to a
/// private temp file beside its key (mode 0600, created exclusively),
/// fsynced, given its modification time, renamed (linked, for an exclusive
/// write), and the folder fsynced: it appears whole under its key or not
/// at all, and the next run removes the temp files of killed runs (see
/// ``TemporaryOwner``). Missing folders of a key are created 0700.
final class DirectoryStore: Store {
    /// The directory, absolute.
    let path: String
    /// The prefix of this command's temp files.
    let tempPrefix: String
    /// True once ``prepareForWriting(creating:)`` created the directory.
    private(set) var createdDirectory = false
    /// The directory, open once first used.
    private var handle: DirectoryDescriptor?
    /// Numbers the temp files of this store, so that two writes of one key
    /// at once each have their own.
    private var tempCount = 0

    /// A store at `path`; `opened` is its directory already open (one opened
    /// without following a link, inside a database directory).
    init(path: String, tempPrefix: String, opened: DirectoryDescriptor? = nil) {
        self.path = path
        self.tempPrefix = tempPrefix
        handle = opened
    }

    deinit { handle?.close() }

    var description: String { path }
    var kind: StoreKind { .directory }
    var listsExactTimes: Bool { true }
    var stagingDirectory: String { path }
    var localPath: String? { path }

    func location(of key: String) -> String { path == "/" ? "/" + key : path + "/" + key }

    /// The open directory (the path itself may be a link the user gave).
    private func root() throws -> DirectoryDescriptor {
        if let handle { return handle }
        do {
            let opened = try DirectoryDescriptor.open(path)
            handle = opened
            return opened
        } catch {
            throw error.reported(.cantCreate, hint: "Check the directory \(path).")
        }
    }

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
        _ = try root()
        removeStaleTempFiles(in: path, prefix: tempPrefix)
    }

    /// Removes the directory ``prepareForWriting(creating:)`` created, if
    /// still empty: called when the operation failed.
    func discardCreatedDirectory() {
        if createdDirectory { try? FileSystem.removeEmptyDirectory(path) }
    }

    func removeStaleTemporaries(in folder: String) {
        removeStaleTempFiles(in: location(of: folder), prefix: tempPrefix)
    }

    // MARK: - Keys

    /// The folder of `key`, open (created when `creating`), and the key's
    /// last component; nil when a folder is missing and not created.
    private func folder(of key: String, creating: Bool) throws -> (folder: DirectoryDescriptor, name: String, owned: Bool)? {
        let components = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = components.last, components.allSatisfy(DirectoryDescriptor.isPlainName) else {
            throw DBToolError(.software, "\(key) is not a key of a store")
        }
        var current = try root()
        var owned = false
        for component in components.dropLast() {
            let next: DirectoryDescriptor
            do {
                next = creating ? try current.openOrCreateDirectory(component) : try current.openDirectory(component)
            } catch where !creating && error.errno == .noSuchFileOrDirectory {
                if owned { current.close() }
                return nil
            } catch {
                if owned { current.close() }
                throw error.reported(.cantCreate, hint: "Check \(current.path(of: component)): dbtool never writes through a link there.")
            }
            if owned { current.close() }
            current = next
            owned = true
        }
        return (current, name, owned)
    }

    /// Runs `body` with the folder of `key` and its name.
    private func withFolder<T>(of key: String, creating: Bool, _ body: (DirectoryDescriptor, String) throws -> T) throws -> T? {
        guard let (folder, name, owned) = try folder(of: key, creating: creating) else { return nil }
        defer { if owned { folder.close() } }
        return try body(folder, name)
    }

    // MARK: - Store

    /// - throws: ``DBToolError`` 66 when the store's directory does not exist.
    func list(_ folder: String, startAfter: String?, endBefore: String?) throws -> [StoredObject] {
        if handle == nil && !FileSystem.isDirectory(path) {
            throw DBToolError(.noInput, "no directory \(path)", hint: "Give the directory dbtool wrote (or an s3:// prefix).")
        }
        let entries: [StoredObject]?
        do {
            // The folder of a key inside it.
            entries = try withFolder(of: folder + "x", creating: false) { directory, _ in
                try directory.entries().compactMap { entry -> StoredObject? in
                    // Objects only: not the temp files of writes under way.
                    guard let name = entry.name, !name.hasPrefix(tempPrefix), let info = try directory.status(of: name), info.kind == .regular
                    else { return nil }
                    return StoredObject(key: folder + name, size: info.size, modified: info.modificationDate)
                }
            }
        } catch let error as FileSystemError {
            throw error.reported(.noInput, hint: "Check the permissions of \(location(of: folder)).")
        }
        return (entries ?? []).filter { object in
            (startAfter.map { $0.utf8.lexicographicallyPrecedes(object.key.utf8) } ?? true)
                && (endBefore.map { object.key.utf8.lexicographicallyPrecedes($0.utf8) } ?? true)
        }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    func metadata(of key: String) throws -> StoredObject? {
        try withFolder(of: key, creating: false) { directory, name -> StoredObject? in
            guard let info = try directory.status(of: name), info.kind == .regular else { return nil }
            return StoredObject(key: key, size: info.size, modified: info.modificationDate)
        } ?? nil
    }

    func readSmall(_ key: String, limit: Int) throws -> Data? {
        try withFolder(of: key, creating: false) { directory, name -> Data? in
            guard let info = try directory.status(of: name), info.kind == .regular, info.size <= limit else { return nil }
            let (file, _) = try directory.openRegularFile(name)
            defer { file.close() }
            return Data(try file.readToEnd(limit: limit))
        } ?? nil
    }

    func create(_ key: String, _ options: StoreWriteOptions) throws -> any StoreUpload {
        guard let (folder, name, owned) = try folder(of: key, creating: true) else { throw DBToolError(.software, "no folder for \(key)") }
        var closeFolder = owned
        defer { if closeFolder { folder.close() } }
        if !options.replacing && !options.exclusive, try folder.status(of: name) != nil {
            throw DBToolError(.cantCreate, "\(location(of: key)) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        tempCount += 1
        let temp = tempName(prefix: tempPrefix, for: name, suffix: ".\(tempCount)")
        let descriptor: FileDescriptor
        do {
            descriptor = try folder.createFile(temp)
        } catch {
            throw DBToolError(writeFailureStatus(error.errno), "can not create \(folder.path(of: temp)): \(error.errno)")
        }
        closeFolder = false
        return FileUpload(store: self, key: key, folder: folder, ownsFolder: owned, name: name, temp: temp, descriptor: descriptor, options: options)
    }

    func open(_ key: String) throws -> (source: any ArchiveSource, size: Int64?) {
        let path = location(of: key)
        if FileSystem.isDirectory(path) {
            throw DBToolError(.dataError, "\(path) is a directory, not an archive", hint: "Give the archive file; `dbtool backup list \(path)` lists those it holds.")
        }
        let file = try ArchiveFile(path: path)
        return (file, file.size)
    }

    func stream(_ key: String) throws -> any ArchiveSource {
        try open(key).source
    }

    func delete(_ key: String) throws -> Bool {
        do {
            return try withFolder(of: key, creating: false) { directory, name in try directory.removeFile(name) } ?? false
        } catch let error as FileSystemError {
            throw error.reported(.cantCreate, hint: "Check the permissions of \(path).")
        }
    }

    func abortAbandoned(key: String, token: String?) -> Bool { false }

    // MARK: - Files SQLite fills (snapshots)

    /// A new empty private temp file for `name` at the root (which SQLite
    /// then fills), to ``publish(temp:as:replacing:)`` or remove. Returns its path.
    func temporaryFile(for name: String) throws -> String {
        let tempName = tempName(prefix: tempPrefix, for: name)
        do {
            try root().createFile(tempName).close()
        } catch let error as FileSystemError {
            throw DBToolError(writeFailureStatus(error.errno), "can not create \(location(of: tempName)): \(error.errno)")
        }
        return location(of: tempName)
    }

    /// Syncs the complete temp file and renames it to `name`, then syncs
    /// the directory: the file appears whole under its name, or not at all.
    func publish(temp: String, as name: String, replacing: Bool) throws {
        let directory = try root()
        if try !replacing && directory.status(of: name) != nil {
            throw DBToolError(.cantCreate, "\(location(of: name)) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        try Self.publish(LocalPath.name(of: temp), as: name, in: directory, modified: nil, exclusive: false)
    }

    /// Syncs `temp` in `folder`, gives it its time, and renames (or, when
    /// `exclusive`, links) it to `name`, then syncs the folder.
    ///
    /// - throws: ``StoreConflict`` when `exclusive` and `name` exists.
    fileprivate static func publish(_ temp: String, as name: String, in folder: DirectoryDescriptor, modified: Date?, exclusive: Bool) throws {
        do {
            let (file, _) = try folder.openRegularFile(temp)
            defer { file.close() }
            try file.sync()
            if let modified {
                // To the microsecond, rounded: a time made from an LTX header's
                // milliseconds is then exactly those milliseconds, as Litestream
                // reads it (truncated, 12:00:00.659 became 12:00:00.658999919,
                // before a restore target of 12:00:00.659 for Litestream only).
                let microseconds = modified.microsecondsSince1970
                let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
                let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((microseconds - seconds * 1_000_000) * 1000))
                try file.setTimes(access: time, modification: time)
            }
        } catch let error as FileSystemError {
            throw error.reported(.cantCreate)
        }
        var conflict = false
        do {
            if exclusive {
                do {
                    try folder.link(temp, as: name)
                } catch where error.errno == .fileExists {
                    conflict = true
                }
                _ = try? folder.removeFile(temp)
            } else {
                try folder.rename(temp, to: folder, as: name)
            }
            try folder.sync()
        } catch {
            throw error.reported(.cantCreate)
        }
        if conflict { throw StoreConflict(key: name) }
    }

    /// An object being written to its temp file, on a thread of its own
    /// (``BackgroundWriter``).
    private final class FileUpload: StoreUpload {
        let store: DirectoryStore
        let key: String
        let folder: DirectoryDescriptor
        let ownsFolder: Bool
        let name: String
        let temp: String
        let descriptor: FileDescriptor
        let writer: BackgroundWriter
        let options: StoreWriteOptions
        private(set) var size: Int64 = 0
        var sha256: String? { nil }
        var abortFailure: String? { nil }
        private var isDone = false

        init(
            store: DirectoryStore, key: String, folder: DirectoryDescriptor, ownsFolder: Bool, name: String, temp: String,
            descriptor: FileDescriptor, options: StoreWriteOptions
        ) {
            self.store = store
            self.key = key
            self.folder = folder
            self.ownsFolder = ownsFolder
            self.name = name
            self.temp = temp
            self.descriptor = descriptor
            self.options = options
            writer = BackgroundWriter(descriptor: descriptor)
        }

        deinit {
            abort()
            if ownsFolder { folder.close() }
        }

        func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
            size += Int64(count)
            return writer.write(bytes, count: count)
        }

        func finish() throws { try writer.finish() }

        var error: DBToolError? { writer.error }

        func publish(as otherKey: String?) throws {
            try writer.finish()
            descriptor.close()
            isDone = true
            do {
                let target = otherKey.map { String($0.split(separator: "/").last ?? "") } ?? name
                try DirectoryStore.publish(temp, as: target, in: folder, modified: options.modified, exclusive: options.exclusive)
            } catch {
                _ = try? folder.removeFile(temp)
                throw error
            }
        }

        func abort() {
            guard !isDone else { return }
            isDone = true
            _ = try? writer.finish()
            descriptor.close()
            _ = try? folder.removeFile(temp)
        }
    }
}
