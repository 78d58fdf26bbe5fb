import Crypto
import Foundation

/// The first pass over an archive before anything is written: every entry is
/// read and hashed, and the archive is refused (65, naming the entry) when it
/// is not a whole dbtool backup or could write outside its destination.
///
/// Refused: absolute paths, `..` components, entries outside one top-level
/// folder, symbolic links, hard links, devices and other special entries,
/// duplicates, a missing or unreadable manifest, and any file whose size or
/// SHA-256 differs from the manifest, or that the manifest does not list.
struct ArchiveInspection {
    let archive: String
    /// The passphrase of an encrypted archive, for the extraction's pass.
    var passphrase: String?
    let manifest: BackupManifest
    /// The directories inside the folder, in archive order.
    let directories: [String]
    /// The hashes of the files read, by path inside the folder.
    let hashes: [String: String]

    init(archive: String, passphrase: String? = nil) throws {
        try self.init(archive: archive, reader: ArchiveReader(path: archive, passphrase: passphrase))
        self.passphrase = passphrase
    }

    /// Inspects the archive `reader` reads; with `directory`, extracts it
    /// there in the same pass (for an archive that can be read only once,
    /// streamed from object storage). The directory must exist and be
    /// empty; on error, what was written stays there: the caller removes it.
    /// Extraction follows ``ArchiveExtraction``'s rules.
    init(
        archive: String, reader: ArchiveReader, extractingInto directory: String? = nil,
        progress: (Int64) -> Void = { _ in }
    ) throws {
        self.archive = archive
        var extracted: Int64 = 0
        var directoryTimes: [(String, Int)] = []
        var folder: String?
        var directories: [String] = []
        var hashes: [String: String] = [:]
        var sizes: [String: Int64] = [:]
        var manifestData: Data?
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
            case .directory:
                if !path.isEmpty { directories.append(path) }
                if let directory {
                    let target = path.isEmpty ? directory : directory + "/" + path
                    if !path.isEmpty && !FileSystem.isDirectory(target) { try FileSystem.createDirectory(target) }
                    try FileSystem.setPermissions(target, entry.mode)
                    directoryTimes.append((target, entry.modified))
                }
                continue
            case .file:
                break
            case .symbolicLink, .hardLink, .other:
                let kind =
                    entry.kind == .symbolicLink
                    ? "a symbolic link" : entry.kind == .hardLink ? "a hard link" : "a special file (device, FIFO or socket)"
                throw DBToolError(
                    .dataError, "the archive \(archive) holds \(kind), \(entry.name), which restore refuses",
                    hint: "dbtool backups hold regular files and directories only; this archive was made or altered by something else.")
            }
            guard !path.isEmpty, hashes[path] == nil, !(path == BackupManifest.entryName && manifestData != nil) else {
                throw DBToolError(.dataError, "the archive \(archive) holds \(entry.name) twice, or as a file and a folder")
            }
            var hash = SHA256()
            var size: Int64 = 0
            var data = Data()
            let isManifest = path == BackupManifest.entryName
            let output = try directory.flatMap { isManifest ? nil : try FileDescriptor.createNew($0 + "/" + path) }
            defer { output?.close() }
            try reader.readData { chunk in
                hash.update(bufferPointer: chunk)
                size += Int64(chunk.count)
                if isManifest {
                    guard size <= 16 << 20 else { throw DBToolError(.dataError, "the manifest of \(archive) is too large") }
                    data.append(contentsOf: chunk)
                } else if let output {
                    try output.writeAll(chunk)
                    extracted += Int64(chunk.count)
                    progress(extracted)
                }
            }
            if let output {
                let modified = timespec(tv_sec: entry.modified, tv_nsec: 0)
                try output.setPermissions(entry.mode)
                try output.setTimes(access: modified, modification: modified)
                try output.sync()
            }
            if isManifest {
                manifestData = data
            } else {
                hashes[path] = hash.finalize().hexString
                sizes[path] = size
            }
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
        if let directory {
            // Directory times last: creating files inside changed them.
            for (path, modified) in directoryTimes.reversed() { try? FileSystem.setTimes(path, seconds: modified) }
            try FileSystem.sync(directory)
        }
        self.manifest = manifest
        self.directories = directories
        self.hashes = hashes
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
        let clean = components.filter { $0 != "." }
        guard let top = clean.first else { throw refuse("an empty path") }
        return (top, clean.dropFirst().joined(separator: "/"))
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
