import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The rest of a backup archive: the database directory's subdirectories
/// and files other than the database, WAL and SHM (which ``ConsistentCopy``
/// provides).
///
/// The directory is walked through descriptors (`openat` with `O_NOFOLLOW`
/// at every component), and each file is opened later the same way, without
/// blocking, and archived only if it is still the regular file the walk saw
/// (same device and inode): a link or a FIFO swapped in during the backup is
/// skipped with a warning, never followed, never waited on.
///
/// Left out: dbtool's lock files and temp files, the rollback journal (never
/// part of a committed state once the copy's lock was taken), and entries
/// that restore refuses (symbolic links, sockets, devices, FIFOs) or whose
/// name is not UTF-8, which are reported as skipped.
struct ArchivePlan {
    struct Directory {
        var path: String
        var mode: mode_t
        var modified: timespec
    }

    struct File {
        /// The path inside the archive's folder.
        var path: String
        var size: Int64
        /// The file the walk saw: the one archived must be the same.
        var identity: FileStatus.Identity
    }

    /// The top-level folder: the database directory's name.
    let folder: String
    let folderMode: mode_t
    let folderModified: timespec
    private(set) var directories: [Directory] = []
    private(set) var files: [File] = []
    /// The entries left out, by their path inside the folder.
    private(set) var skipped: [String] = []
    /// Why entries were left out, one sentence each.
    private(set) var warnings: [String] = []
    /// The database directory, open for the whole backup.
    private let root: DirectoryDescriptor?

    var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

    init(location: DatabaseLocation) throws {
        let rootPath = location.directoryPath
        let root: DirectoryDescriptor
        do {
            root = try DirectoryDescriptor.open(rootPath)
        } catch {
            throw error.reported(.noInput, hint: error.errno == .noSuchFileOrDirectory ? "Check --database." : nil)
        }
        let info: FileStatus
        do {
            info = try root.status()
        } catch {
            root.close()
            throw error.reported(.noInput)
        }
        folder = LocalPath.name(of: rootPath)
        folderMode = info.permissions
        folderModified = info.modificationTime
        self.root = root
        // A database named as a file: only its own files, not its neighbours
        // (its identity file goes with it, so that a restore keeps it).
        guard location.namesDirectory else {
            let identity = LocalPath.name(of: DatabaseIdentity.path(for: location))
            if let info = (try? root.status(of: identity)) ?? nil, info.kind == .regular {
                files.append(File(path: identity, size: info.size, identity: info.identity))
            }
            return
        }
        let databaseName = LocalPath.name(of: location.filePath)
        let excluded = Set([databaseName, databaseName + "-journal"] + DatabaseFiles.walSuffixes.map { databaseName + $0 })
        try walk(root, relative: "", excluding: excluded)
    }

    /// Closes the database directory.
    func close() { root?.close() }

    private mutating func walk(_ directory: DirectoryDescriptor, relative: String, excluding excluded: Set<String>) throws {
        let entries: [DirectoryDescriptor.Entry]
        do {
            entries = try directory.entries()
        } catch {
            throw error.reported(.noPermission)
        }
        for entry in entries {
            guard let name = entry.name else {
                let path = relative.isEmpty ? entry.displayName : relative + "/" + entry.displayName
                skip(path, "its name is not UTF-8")
                continue
            }
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            if relative.isEmpty && (excluded.contains(name) || Self.isDBToolScratch(name)) { continue }
            guard let info = try? directory.status(of: name) else { continue }  // removed meanwhile
            switch info.kind {
            case .regular:
                files.append(File(path: relativePath, size: info.size, identity: info.identity))
            case .directory:
                guard let child = try? directory.openDirectory(name) else {
                    skip(relativePath, "it could not be opened as a folder")
                    continue
                }
                defer { child.close() }
                directories.append(Directory(path: relativePath, mode: info.permissions, modified: info.modificationTime))
                try walk(child, relative: relativePath, excluding: excluded)
            default:
                skip(relativePath, "it is \(info.kind.description)")
            }
        }
    }

    private mutating func skip(_ path: String, _ reason: String) {
        skipped.append(path)
        warnings.append("skipped \(folder)/\(path): \(reason)")
    }

    /// Opens `file` for archiving, by descriptor from the database
    /// directory: nil (with the reason) when it is no longer the regular
    /// file the walk saw.
    func open(_ file: File) -> Result<(FileDescriptor, FileStatus), SkipReason> {
        guard let root else { return .failure(SkipReason("the database directory is not open")) }
        let components = file.path.split(separator: "/").map(String.init)
        var directory = root
        var opened: [DirectoryDescriptor] = []
        defer { for descriptor in opened { descriptor.close() } }
        for component in components.dropLast() {
            guard let child = try? directory.openDirectory(component) else {
                return .failure(SkipReason("its folder \(component) was replaced during the backup"))
            }
            opened.append(child)
            directory = child
        }
        do {
            let (descriptor, info) = try directory.openRegularFile(components.last ?? "")
            guard info.identity == file.identity else {
                descriptor.close()
                return .failure(SkipReason("it was replaced during the backup"))
            }
            return .success((descriptor, info))
        } catch let error as NotRegularFile {
            return .failure(SkipReason("it became \(error.kind.description) during the backup"))
        } catch let error as FileSystemError where error.errno == .tooManySymbolicLinkLevels {
            return .failure(SkipReason("it became a symbolic link during the backup"))
        } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
            return .failure(SkipReason("it was removed during the backup"))
        } catch {
            return .failure(SkipReason("it could not be opened: \(DBToolError.wrapping(error).message)"))
        }
    }

    /// Why a planned file was not archived.
    struct SkipReason: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// dbtool's lock files, the temp files of its commands, replication's
    /// outbox and state, and a follower's state (which describe a replica,
    /// not the database).
    private static func isDBToolScratch(_ name: String) -> Bool {
        if name.hasPrefix(".") && name.hasSuffix(FollowerState.suffix) { return true }
        guard name.hasPrefix(".dbtool-") else { return false }
        return name.hasSuffix(".lock") || name.hasPrefix(".dbtool-snapshot-") || name.hasPrefix(BackupOperation.tempPrefix)
            || name.hasPrefix(DatabaseIdentity.tempPrefix) || name.hasPrefix(RestoreOperation.tempPrefix)
            || name.hasPrefix(FollowerState.tempPrefix) || name == ReplicateOperation.outboxName || name == ReplicaState.fileName
    }
}
