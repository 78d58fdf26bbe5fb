import FoundationEssentials

/// What a directory that a restore would replace holds: the SQLite
/// databases in it, found by their header whatever their name (`db.sqlite`,
/// `app.db`, a link to a database elsewhere), and the identity of every
/// file in it, so that a process that has any of them open is seen.
///
/// The directory is walked through descriptors, without following a link
/// to a directory; a link to a file is followed once, to see whether it
/// leads to a database (an application writes into what the link names).
struct DirectoryDatabases {
    /// A database found in the directory.
    struct Database: Equatable {
        /// Its path in the directory (a link, or the file itself).
        var path: String
        /// Its name in the directory, when at the top.
        var name: String?
        /// The file SQLite opens through that path.
        var resolvedPath: String
    }

    /// The databases, in path order.
    private(set) var databases: [Database] = []
    /// Every file of the directory and every file its links lead to.
    private(set) var identities: Set<FileStatus.Identity> = []
    /// The number of entries, dbtool's lock files left out.
    private(set) var entryCount = 0

    /// The most entries walked: a directory bigger than that is still
    /// checked, for the databases found so far and the processes using them.
    private static let entryLimit = 200_000

    /// Scans `directory` (an absolute path); an empty result when it does not exist.
    init(scanning directory: String) throws {
        guard let info = try FileSystem.status(directory, followingLinks: false), info.kind == .directory else { return }
        let root = try DirectoryDescriptor.open(directory, followingLinks: false)
        defer { root.close() }
        try walk(root, relative: "", depth: 0)
    }

    /// dbtool's lock files, which a restore itself may hold in the directory.
    static func isLockFile(_ name: String) -> Bool {
        name.hasPrefix(".dbtool-") && name.hasSuffix(".lock")
    }

    private mutating func walk(_ directory: DirectoryDescriptor, relative: String, depth: Int) throws {
        for entry in try directory.entries() {
            guard entryCount < Self.entryLimit else { return }
            guard let name = entry.name else {
                entryCount += 1
                continue
            }
            // dbtool's locks, and a restore's own folders (staged inside a mount point).
            if relative.isEmpty && (Self.isLockFile(name) || name.hasPrefix(RestoreOperation.tempPrefix)) { continue }
            entryCount += 1
            guard let info = try directory.status(of: name) else { continue }  // removed meanwhile
            let path = relative.isEmpty ? name : relative + "/" + name
            switch info.kind {
            case .directory where depth < 16:
                identities.insert(info.identity)
                guard let child = try? directory.openDirectory(name) else { continue }
                defer { child.close() }
                try walk(child, relative: path, depth: depth + 1)
            case .regular:
                identities.insert(info.identity)
                if Self.isDatabase(directory, name) {
                    databases.append(Database(path: directory.path(of: name), name: relative.isEmpty ? name : nil, resolvedPath: directory.path(of: name)))
                }
            case .symbolicLink:
                // What the link leads to, if it is a database: the application writes there.
                let linkPath = directory.path(of: name)
                guard let resolved = FileSystem.resolvingLinks(linkPath), let target = try? FileSystem.status(resolved),
                    target.kind == .regular
                else { continue }
                identities.insert(target.identity)
                if sqliteHeader(resolved) != nil {
                    databases.append(Database(path: linkPath, name: relative.isEmpty ? name : nil, resolvedPath: resolved))
                }
            default:
                continue
            }
        }
    }

    /// Whether the regular file `name` is a SQLite database: its header says
    /// so, or it is empty and has a WAL or journal beside it.
    private static func isDatabase(_ directory: DirectoryDescriptor, _ name: String) -> Bool {
        guard let (descriptor, info) = try? directory.openRegularFile(name) else { return false }
        defer { descriptor.close() }
        if info.size == 0 {
            return ["-wal", "-journal"].contains { (try? directory.status(of: name + $0)) ?? nil != nil }
        }
        guard let header = try? descriptor.read(fromAbsoluteOffset: 0, count: 16) else { return false }
        return header == Array("SQLite format 3\u{0}".utf8)
    }
}
