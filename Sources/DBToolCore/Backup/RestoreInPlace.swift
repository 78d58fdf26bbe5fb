import FoundationEssentials

/// A restore into a directory that is a mount point (a volume's root): the
/// directory can not be renamed away, nor receive a directory renamed from
/// another file system, so its content is replaced in place, entry by
/// entry, each by one rename within the volume.
///
/// The restore staged the archive inside the directory itself
/// (`.dbtool-restore-…`). With DIR's databases held unused
/// (``DatabaseExclusion``), DIR's entries move into an aside folder of DIR,
/// then the staged entries move up into DIR; the aside folder is deleted
/// once all is done. Any failure, or a process that opened a file of DIR
/// meanwhile, moves everything back: DIR is as it was.
struct RestoreInPlace {
    /// DIR, open.
    let target: DirectoryDescriptor
    /// The staging directory, inside DIR.
    let staging: DirectoryDescriptor
    let stagingName: String
    /// DIR's databases, to hold unused across the moves (nil when DIR is empty).
    let contents: DirectoryDatabases?

    func run() throws {
        let exclusion = try contents.map { try DatabaseExclusion(everyDatabaseOf: $0, in: target.path) }
        defer { exclusion?.release() }
        let asideName = tempName(prefix: RestoreOperation.tempPrefix, for: "replaced")
        var moved = Moves()
        do {
            // DIR's own entries: everything but dbtool's lock files and work folders.
            let old = try ownNames(of: target)
            if !old.isEmpty {
                try target.createDirectory(asideName)
                moved.createdAside = true
                let aside = try target.openDirectory(asideName)
                defer { aside.close() }
                for name in old {
                    try target.rename(name, to: aside, as: name)
                    moved.aside.append(name)
                }
            }
            for name in try ownNames(of: staging) {
                try staging.rename(name, to: target, as: name)
                moved.restored.append(name)
            }
        } catch {
            undo(moved, asideName: asideName)
            throw (error as? FileSystemError)?.reported(.cantCreate, hint: "Check the permissions of \(target.path); it is as it was.") ?? error
        }
        // A process that opened an old file meanwhile would write into files about to be deleted.
        if let exclusion, let users = exclusion.latecomers() {
            undo(moved, asideName: asideName)
            throw DatabaseExclusion.inUse(target.path, by: users)
        }
        if moved.createdAside { target.removeTree(asideName) }
        do {
            try target.sync()
        } catch {
            throw error.reported(.ioError)
        }
    }

    /// What was moved so far, to move back.
    private struct Moves {
        var createdAside = false
        var aside: [String] = []
        var restored: [String] = []
    }

    /// Puts DIR back as it was: the restored entries back into staging, the
    /// old ones back from aside (best effort: each that fails stays where it is).
    private func undo(_ moved: Moves, asideName: String) {
        for name in moved.restored.reversed() { try? target.rename(name, to: staging, as: name) }
        guard moved.createdAside, let aside = try? target.openDirectory(asideName) else { return }
        defer { aside.close() }
        for name in moved.aside.reversed() { try? aside.rename(name, to: target, as: name) }
        try? target.removeEmptyDirectory(asideName)
    }

    /// The entries of `directory` a restore replaces: all but dbtool's lock
    /// files and restore folders.
    ///
    /// - throws: 73 for a name that is not UTF-8 (it could not be moved back
    ///   as it is), before anything moved.
    private func ownNames(of directory: DirectoryDescriptor) throws -> [String] {
        try directory.entries().compactMap { entry -> String? in
            guard let name = entry.name else {
                throw DBToolError(
                    .cantCreate, "\(directory.path) holds \(entry.displayName), whose name is not UTF-8: restore can not move it; nothing was changed",
                    hint: "Rename or remove it, then restore again.")
            }
            return DirectoryDatabases.isLockFile(name) || name.hasPrefix(RestoreOperation.tempPrefix) ? nil : name
        }
    }
}
