import Foundation

/// The rest of a backup archive: the database directory's subdirectories
/// and files other than the database, WAL and SHM (which ``ConsistentCopy``
/// provides).
///
/// Left out: dbtool's lock files and temp files, the rollback journal (never
/// part of a committed state once the copy's lock was taken), and entries
/// that restore refuses (symbolic links, sockets, devices), which are
/// reported as skipped.
struct ArchivePlan {
    struct Directory {
        var path: String
        var mode: mode_t
        var modified: timespec
    }

    struct File {
        /// The path inside the archive's folder.
        var path: String
        /// Where to read it.
        var source: String
        var size: Int64
    }

    /// The top-level folder: the database directory's name.
    let folder: String
    let folderMode: mode_t
    let folderModified: timespec
    private(set) var directories: [Directory] = []
    private(set) var files: [File] = []
    private(set) var skipped: [String] = []

    var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

    init(location: DatabaseLocation) throws {
        let root = location.directoryPath
        let found: FileStatus?
        do {
            found = try FileSystem.status(root)
        } catch {
            throw DBToolError(.noInput, "can not read the database directory \(root): \(error.errno)")
        }
        guard let info = found else { throw DBToolError(.noInput, "no database directory at \(root)") }
        folder = URL(fileURLWithPath: root).lastPathComponent
        folderMode = info.permissions
        folderModified = info.modificationTime
        // A database named as a file: only its own files, not its neighbours.
        guard location.namesDirectory else { return }
        let databaseName = URL(fileURLWithPath: location.filePath).lastPathComponent
        let excluded = Set([databaseName, databaseName + "-journal"] + DatabaseFiles.walSuffixes.map { databaseName + $0 })
        try walk(root, relative: "", excluding: excluded)
    }

    private mutating func walk(_ directory: String, relative: String, excluding excluded: Set<String>) throws {
        let names: [String]
        do {
            names = try FileSystem.contentsOfDirectory(directory)
        } catch {
            throw error.reported(.noPermission)
        }
        for name in names {
            let path = directory + "/" + name
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            if relative.isEmpty && (excluded.contains(name) || Self.isDBToolScratch(name)) { continue }
            guard let info = (try? FileSystem.status(path, followingLinks: false)) ?? nil else { continue }  // removed meanwhile
            switch info.kind {
            case .regular:
                files.append(File(path: relativePath, source: path, size: info.size))
            case .directory:
                directories.append(Directory(path: relativePath, mode: info.permissions, modified: info.modificationTime))
                try walk(path, relative: relativePath, excluding: excluded)
            default:
                skipped.append(relativePath)
            }
        }
    }

    /// dbtool's lock files and the temp files of its commands.
    private static func isDBToolScratch(_ name: String) -> Bool {
        name.hasPrefix(".dbtool-")
            && (name.hasSuffix(".lock") || name.hasPrefix(".dbtool-snapshot-") || name.hasPrefix(BackupOperation.tempPrefix))
    }
}
