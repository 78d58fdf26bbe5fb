import Crypto
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One pass over an archive of `dbtool backup`: every entry is checked,
/// written into a staging directory and hashed as it is read, and at the
/// end the files written must be exactly those the manifest lists, with
/// their sizes and SHA-256. An archive is never read twice: a pipe
/// (`/dev/stdin`), a FIFO or an object stream restores the same as a file,
/// and an archive replaced during the run can not yield a subset.
///
/// Refused (65, naming the entry): absolute paths, `..` components,
/// entries outside one top-level folder, symbolic links, hard links,
/// devices and other special entries, an entry twice or as a file and a
/// folder, a file or folder whose folder has no entry before it, a missing
/// or unreadable manifest, and any file whose size or SHA-256 differs from
/// the manifest, or that the manifest does not list.
///
/// Everything is written relative to the staging directory's descriptor:
/// each folder is created with `mkdirat` and opened with `O_NOFOLLOW`, each
/// file created with `O_CREAT|O_EXCL|O_NOFOLLOW`, so nothing is ever written
/// through a link, whatever another user plants meanwhile. The staging
/// directory keeps its private mode (0700) throughout; files are created
/// 0600 and folders 0700, and get the archive's permissions only once
/// written (files) or at the very end (folders), by descriptor. Unless
/// ``Options/keepsModes``, nothing is left readable or writable by others,
/// and setuid, setgid and sticky bits are always dropped.
struct ArchiveUnpacking {
    /// How the extracted files are written.
    struct Options {
        /// Give files and folders the archive's permissions and times; a
        /// verify's scratch copy takes neither.
        var appliesModes = true
        /// Keep the permissions of others (`--keep-modes`).
        var keepsModes = false
        /// Make the extraction durable before returning (one `syncfs` of
        /// the staging file system): a restore's staging is, a verify's
        /// scratch copy is not.
        var isDurable = true
    }

    /// The archive's name, for messages.
    let archive: String
    let manifest: BackupManifest
    /// The permissions of the archive's top-level folder (masked as the
    /// options say), for DIR itself.
    let folderMode: mode_t?

    /// The largest manifest accepted.
    private static let manifestLimit = 16 << 20

    /// Reads the whole archive into `staging` (an empty directory). On
    /// error, what was written stays there: the caller removes the directory.
    init(archive: String, reader: ArchiveReader, into staging: DirectoryDescriptor, options: Options, progress: (Int64) -> Void = { _ in }) throws {
        self.archive = archive
        var extracted: Int64 = 0
        var folder: String?
        var folderMode: mode_t?
        var kinds: [String: ArchiveReader.Kind] = [:]
        var directories: [(path: String, mode: mode_t, modified: Int)] = []
        var hashes: [String: String] = [:]
        var sizes: [String: Int64] = [:]
        var manifestData: Data?
        var parents = DirectoryCache(root: staging)
        defer { parents.close() }
        let mask: mode_t = options.keepsModes ? 0o777 : 0o770
        while let entry = try reader.nextEntry() {
            try Interruption.check()
            let (top, path) = try Self.split(entry.name, archive: archive)
            if folder == nil { folder = top }
            guard top == folder else {
                throw DBToolError(
                    .dataError, "the archive \(archive) has entries outside one top-level folder (\(folder ?? "") and \(top))",
                    hint: "It is not an archive made by `dbtool backup`.")
            }
            switch entry.kind {
            case .directory, .file: break
            case .symbolicLink, .hardLink, .other:
                let kind =
                    entry.kind == .symbolicLink
                    ? "a symbolic link" : entry.kind == .hardLink ? "a hard link" : "a special file (device, FIFO or socket)"
                throw DBToolError(
                    .dataError, "the archive \(archive) holds \(kind), \(entry.name), which restore refuses",
                    hint: "dbtool backups hold regular files and directories only; this archive was made or altered by something else.")
            }
            if path.isEmpty {
                guard entry.kind == .directory, folderMode == nil else {
                    throw DBToolError(.dataError, "the archive \(archive) holds \(entry.name) twice, or as a file and a folder")
                }
                folderMode = entry.mode & mask
                continue
            }
            guard kinds[path] == nil else {
                throw DBToolError(
                    .dataError, "the archive \(archive) holds \(entry.name) twice, or as a file and a folder",
                    hint: "It is not an archive made by `dbtool backup`.")
            }
            let (parent, name) = Self.splitLast(path)
            if !parent.isEmpty && kinds[parent] != .directory {
                throw DBToolError(
                    .dataError,
                    "the archive \(archive) holds \(entry.name), but \(kinds[parent] == nil ? "no entry for its folder \(top)/\(parent) comes before it" : "\(top)/\(parent) is a file")",
                    hint: "It is not an archive made by `dbtool backup`.")
            }
            kinds[path] = entry.kind
            if entry.kind == .directory {
                try parents.directory(parent).createDirectory(name)
                directories.append((path, entry.mode & mask, entry.modified))
                continue
            }
            let isManifest = path == BackupManifest.entryName
            var hash = SHA256()
            var size: Int64 = 0
            var data = Data()
            let output = isManifest ? nil : try parents.directory(parent).createFile(name)
            defer { output?.close() }
            try reader.readData { chunk in
                hash.update(bufferPointer: chunk)
                size += Int64(chunk.count)
                if isManifest {
                    guard size <= Self.manifestLimit else { throw DBToolError(.dataError, "the manifest of \(archive) is too large") }
                    data.append(contentsOf: chunk)
                } else if let output {
                    try output.writeAll(chunk)
                    extracted += Int64(chunk.count)
                    progress(extracted)
                }
            }
            if isManifest {
                manifestData = data
                continue
            }
            if let output, options.appliesModes {
                let modified = timespec(tv_sec: entry.modified, tv_nsec: 0)
                try output.setPermissions(entry.mode & mask)
                try output.setTimes(access: modified, modification: modified)
            }
            hashes[path] = hash.finalize().hexString
            sizes[path] = size
        }
        guard let folder else {
            throw DBToolError(.dataError, "the archive \(archive) is empty", hint: "It is not an archive made by `dbtool backup`.")
        }
        guard let manifestData else {
            throw DBToolError(
                .dataError, "the archive \(archive) has no manifest (\(folder)/\(BackupManifest.entryName))",
                hint: "It is not an archive made by `dbtool backup`, or it was cut short.")
        }
        let manifest = try BackupManifest.decode(manifestData, archive: archive)
        try Self.compare(manifest, hashes: hashes, sizes: sizes, folder: folder, archive: archive)
        if options.appliesModes {
            // Folders last, deepest first: creating entries inside changed their times.
            for directory in directories.reversed() {
                let (parent, name) = Self.splitLast(directory.path)
                let handle = try parents.directory(parent)
                let opened = try handle.openDirectory(name)
                defer { opened.close() }
                try opened.setPermissions(directory.mode)
                try? handle.setTimes(of: name, seconds: directory.modified)  // cosmetic: the content is what matters
            }
        }
        if options.isDurable {
            try staging.syncFileSystem()
        }
        self.manifest = manifest
        self.folderMode = folderMode
    }

    /// The top-level folder and the path inside it, or an error for names
    /// that could escape the destination.
    static func split(_ name: String, archive: String) throws -> (String, String) {
        let refuse = { (why: String) in
            DBToolError(
                .dataError, "the archive \(archive) holds an entry with \(why): \(name)",
                hint: "Restore refuses it: it could write outside the destination.")
        }
        if name.hasPrefix("/") { throw refuse("an absolute path") }
        let components = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if components.contains("..") { throw refuse("a `..` component") }
        if name.utf8.contains(0) { throw refuse("a NUL byte") }
        let clean = components.filter { $0 != "." }
        guard let top = clean.first else { throw refuse("an empty path") }
        return (top, clean.dropFirst().joined(separator: "/"))
    }

    /// The folder of `path` ("" at the top) and its last component.
    private static func splitLast(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    private static func compare(
        _ manifest: BackupManifest, hashes: [String: String], sizes: [String: Int64], folder: String, archive: String
    ) throws {
        guard manifest.folder == folder else {
            throw DBToolError(.dataError, "the manifest of \(archive) names the folder \(manifest.folder), but the archive holds \(folder)")
        }
        for file in manifest.files {
            guard let hash = hashes[file.path], let size = sizes[file.path] else {
                throw DBToolError(
                    .dataError, "the archive \(archive) lacks \(folder)/\(file.path), listed in its manifest",
                    hint: "The archive is incomplete; use another backup.")
            }
            guard size == file.size else {
                throw DBToolError(
                    .dataError, "\(folder)/\(file.path) in \(archive) has \(size) bytes, its manifest says \(file.size)",
                    hint: "The archive is damaged; use another backup.")
            }
            guard hash == file.sha256 else {
                throw DBToolError(
                    .dataError, "\(folder)/\(file.path) in \(archive) does not match its SHA-256 in the manifest",
                    hint: "The archive is damaged; use another backup.")
            }
        }
        let listed = Set(manifest.files.map(\.path))
        if let extra = hashes.keys.sorted().first(where: { !listed.contains($0) }) {
            throw DBToolError(
                .dataError, "the archive \(archive) holds \(folder)/\(extra), which its manifest does not list",
                hint: "The archive was altered after the backup; use another backup.")
        }
        guard listed.contains(manifest.databaseFile) else {
            throw DBToolError(.dataError, "the manifest of \(archive) lists no database file \(manifest.databaseFile)")
        }
    }
}

/// The folders of a staging directory, opened one component at a time
/// from its descriptor (never through a link); the last one opened is kept,
/// since an archive's files come folder by folder.
private struct DirectoryCache {
    let root: DirectoryDescriptor
    private var last: (path: String, descriptor: DirectoryDescriptor)?

    init(root: DirectoryDescriptor) { self.root = root }

    /// The folder at `path` inside the root ("": the root itself).
    mutating func directory(_ path: String) throws -> DirectoryDescriptor {
        if path.isEmpty { return root }
        if let last, last.path == path { return last.descriptor }
        var current = root
        var opened: [DirectoryDescriptor] = []
        do {
            for component in path.split(separator: "/") {
                current = try current.openDirectory(String(component))
                opened.append(current)
            }
        } catch {
            for descriptor in opened { descriptor.close() }
            throw error
        }
        for descriptor in opened.dropLast() { descriptor.close() }
        close()
        last = (path, current)
        return current
    }

    /// Closes the folder kept open.
    mutating func close() {
        last?.descriptor.close()
        last = nil
    }
}
