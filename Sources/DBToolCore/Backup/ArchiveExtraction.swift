import Crypto
import Foundation

/// The second pass over an archive that ``ArchiveInspection`` accepted:
/// writes the folder's content into `directory` (created, and empty). Files
/// are created exclusively (never through an existing path), hashed again
/// against the first pass (the archive could have changed in between),
/// and fsynced; permissions (setuid and the like dropped) and times are
/// kept. The manifest is not extracted: it describes the backup, it was not
/// part of the database directory.
struct ArchiveExtraction {
    let inspection: ArchiveInspection

    /// Extracts into `directory`, which must exist and be empty. On error,
    /// what was written stays there: the caller removes the directory.
    func run(into directory: String, progress: (Int64, Int64) -> Void = { _, _ in }) throws {
        let archive = inspection.archive
        let reader = try ArchiveReader(path: archive, passphrase: inspection.passphrase)
        let total = inspection.manifest.files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        var directoryTimes: [(String, Int)] = []
        while let entry = try reader.nextEntry() {
            try Interruption.check()
            let (_, path) = try ArchiveInspection.split(entry.name, archive: archive)
            let target = path.isEmpty ? directory : directory + "/" + path
            switch entry.kind {
            case .directory:
                if !path.isEmpty && !FileSystem.isDirectory(target) {
                    try FileSystem.createDirectory(target)
                }
                try FileSystem.setPermissions(target, entry.mode)
                directoryTimes.append((target, entry.modified))
            case .file where path == BackupManifest.entryName:
                continue
            case .file:
                try extractFile(reader, entry: entry, path: path, to: target) { count in
                    done += count
                    progress(done, total)
                }
            case .symbolicLink, .hardLink, .other:
                // The inspection refused these; the archive changed since.
                throw DBToolError(.dataError, "the archive \(archive) changed while it was being restored (\(entry.name))")
            }
        }
        // Directory times last: creating files inside changed them.
        for (path, modified) in directoryTimes.reversed() {
            try? FileSystem.setTimes(path, seconds: modified)  // cosmetic: the content is what matters
        }
        try FileSystem.sync(directory)
    }

    private func extractFile(
        _ reader: ArchiveReader, entry: ArchiveReader.Entry, path: String, to target: String, copied: (Int64) -> Void
    ) throws {
        let descriptor = try FileDescriptor.createNew(target)
        defer { descriptor.close() }
        var hash = SHA256()
        try reader.readData { chunk in
            try descriptor.writeAll(chunk)
            hash.update(bufferPointer: chunk)
            copied(Int64(chunk.count))
            try Interruption.check()
        }
        guard hash.finalize().hexString == inspection.hashes[path] else {
            throw DBToolError(.dataError, "the archive \(inspection.archive) changed while it was being restored (\(entry.name))")
        }
        let modified = timespec(tv_sec: entry.modified, tv_nsec: 0)
        try descriptor.setPermissions(entry.mode)
        try descriptor.setTimes(access: modified, modification: modified)
        try descriptor.sync()
    }
}
