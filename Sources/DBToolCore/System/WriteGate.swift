/// The one check every path dbtool writes goes through: an output file,
/// an output directory, a directory a restore replaces, a replica, and
/// dbtool's own lock, temp and staging files.
///
/// A run protects what it reads: the database's files (the file, its
/// `-wal`, `-shm` and `-journal`, its identity), the database's own
/// directory, and the archive or replica being restored. Each is known by
/// its device and inode (through the link, and the link itself) and by its
/// path with every link and `..` resolved, so that a hard link, a symbolic
/// link, a bind mount or a path through `..` names it all the same. A write
/// onto one of them, into a directory nothing may be written into, or that
/// would replace a directory holding one of them, is refused with 64,
/// naming both paths, before anything is written.
///
/// A value: the command builds it from what it reads, the operation adds
/// its own inputs, and it is checked by every writer of the run.
public struct WriteGate: Sendable, Equatable {
    /// How a path is written.
    public enum Write: Sendable {
        /// A file created or replaced at the path (`--output`,
        /// `--metrics-file`, `vacuum --into`).
        case file
        /// A directory whose files are created and replaced (`--output-dir`,
        /// a replica).
        case directory
        /// A directory replaced or emptied whole (a restore's target).
        case replacedDirectory
        /// A lock, temp or staging file of dbtool, by a name of its own: only
        /// the protected objects themselves are refused (it may live in the
        /// database's directory).
        case ownFile
    }

    /// A file or directory the run reads.
    struct Protected: Sendable, Equatable {
        /// The path as the run names it.
        var path: String
        /// What it is, for messages: "the database file of /srv/db".
        var role: String
        /// Its path with every link resolved (what a write there reaches).
        var resolvedPath: String
        /// The link's and its target's identities, when it exists.
        var identities: Set<FileStatus.Identity>
        /// Whether outputs may not go inside it (a replica being read, the
        /// database's own directory).
        var refusesContent: Bool
    }

    private(set) var protected: [Protected] = []

    /// A gate that protects nothing yet.
    public init() {}

    /// A gate that protects the files and the directory of `locations`.
    public init(protecting locations: [DatabaseLocation]) {
        for location in locations { protect(location) }
    }

    /// Protects a database: its file and companions, its identity file, and,
    /// when the path named the directory `dbtool init` creates, that
    /// directory (which backups archive and restores replace: outputs may not
    /// go inside it).
    public mutating func protect(_ location: DatabaseLocation) {
        let file = location.filePath
        add(file, "the database \(file)")
        add(file + "-wal", "the write-ahead log of the database \(file)")
        add(file + "-shm", "the WAL index of the database \(file)")
        add(file + "-journal", "the rollback journal of the database \(file)")
        add(DatabaseIdentity.path(for: location), "the identity file of the database \(file)")
        if location.namesDirectory {
            add(location.directoryPath, "the database directory \(location.directoryPath)", refusesContent: true)
        }
    }

    /// Protects what a restore reads: an archive file, or a replica
    /// directory (nothing may be written into it).
    public mutating func protectSource(_ path: String, role: String) {
        let isDirectory = FileSystem.isDirectory(path)
        add(path, role, refusesContent: isDirectory)
    }

    /// Adds a protected object.
    mutating func add(_ path: String, _ role: String, refusesContent: Bool = false) {
        let resolved = LocalPath.resolvingLinks(path)
        var identities = Set<FileStatus.Identity>()
        if let link = (try? FileSystem.status(path, followingLinks: false)) ?? nil { identities.insert(link.identity) }
        if let target = (try? FileSystem.status(path)) ?? nil { identities.insert(target.identity) }
        protected.append(Protected(path: path, role: role, resolvedPath: resolved, identities: identities, refusesContent: refusesContent))
    }

    /// Checks that writing `path` as `write` touches nothing the run reads.
    ///
    /// - parameters:
    ///   - path: An absolute path, as it will be written.
    ///   - write: How it is written.
    ///   - what: What names it, for the message: `--metrics-file`, `the
    ///     directory to restore into`.
    /// - throws: ``DBToolError`` 64 naming `path` and the object it would
    ///   destroy or write into.
    public func check(_ path: String, _ write: Write, what: String) throws {
        guard !protected.isEmpty else { return }
        let target = Target(path)
        for object in protected where target.isSame(as: object) {
            let consequence =
                object.refusesContent && write != .replacedDirectory ? "nothing this command writes may go there" : "writing there would destroy it"
            throw refusal(what, path, "is \(object.role)", consequence)
        }
        guard write != .ownFile else { return }
        for object in protected where object.refusesContent && target.isInside(object) {
            throw refusal(what, path, "is inside \(object.role)", "nothing this command writes may go there")
        }
        guard write == .replacedDirectory else { return }
        for object in protected where target.contains(object) {
            throw refusal(what, path, "holds \(object.role)", "replacing it would delete it")
        }
    }

    private func refusal(_ what: String, _ path: String, _ relation: String, _ consequence: String) -> DBToolError {
        let because = consequence.isEmpty ? "" : ": \(consequence)"
        return DBToolError(
            .usage, "\(what) \(path) \(relation)\(because); nothing was changed",
            hint: "Choose a path outside the database's files and directory, and outside what this command reads.")
    }

    /// A path about to be written, resolved once for the checks.
    private struct Target {
        let path: String
        let resolvedPath: String
        /// The identities of the path (the link and its target).
        let identities: Set<FileStatus.Identity>
        /// The identities of the directories that hold it, from its parent up.
        let ancestors: [FileStatus.Identity]

        init(_ path: String) {
            self.path = path
            resolvedPath = LocalPath.resolvingLinks(path)
            var identities = Set<FileStatus.Identity>()
            if let link = (try? FileSystem.status(path, followingLinks: false)) ?? nil { identities.insert(link.identity) }
            if let target = (try? FileSystem.status(path)) ?? nil { identities.insert(target.identity) }
            self.identities = identities
            var ancestors: [FileStatus.Identity] = []
            var current = LocalPath.parent(of: resolvedPath)
            while true {
                if let info = (try? FileSystem.status(current)) ?? nil { ancestors.append(info.identity) }
                guard current != "/" else { break }
                current = LocalPath.parent(of: current)
            }
            self.ancestors = ancestors
        }

        func isSame(as object: Protected) -> Bool {
            resolvedPath == object.resolvedPath || !identities.isDisjoint(with: object.identities)
        }

        /// Whether the path is inside `object` (a directory).
        func isInside(_ object: Protected) -> Bool {
            Self.isPrefix(object.resolvedPath, of: resolvedPath) || ancestors.contains { object.identities.contains($0) }
        }

        /// Whether `object` is inside the path (a directory).
        func contains(_ object: Protected) -> Bool {
            if Self.isPrefix(resolvedPath, of: object.resolvedPath) { return true }
            guard !identities.isEmpty else { return false }
            var current = LocalPath.parent(of: object.resolvedPath)
            while true {
                if let info = (try? FileSystem.status(current)) ?? nil, identities.contains(info.identity) { return true }
                guard current != "/" else { return false }
                current = LocalPath.parent(of: current)
            }
        }

        /// Whether `directory` is a proper ancestor of `path` (both resolved).
        static func isPrefix(_ directory: String, of path: String) -> Bool {
            directory == "/" ? path != "/" : path.hasPrefix(directory + "/")
        }
    }
}
