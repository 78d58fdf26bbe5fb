import FoundationEssentials

/// An exclusive lock between dbtool processes: `flock` on a lock file in the
/// database's directory. Never on the database, WAL or SHM files: closing a
/// descriptor on those would drop SQLite's own POSIX locks. The holder
/// writes its pid into the file, so that a waiting run can name it.
///
/// The holder removes the file before unlocking it, so that no file is left
/// behind. A waiting run may then hold a lock on the removed file: it checks,
/// once locked, that the path still names the file it locked, and retries
/// otherwise.
///
/// The directory may be writable by others (or the run may be root's, in a
/// directory an application user owns): the lock file is never opened
/// through a symbolic link, must be a regular file with one link, owned by
/// the user who runs dbtool and holding at most a pid, or it is refused
/// (73). Nothing else is ever truncated, written or removed.
final class ExclusiveLock {
    private let descriptor: FileDescriptor
    private let path: String
    private var command = ""

    /// What is locked, for messages: `dbtool migrate` is migrating, `dbtool backup` is backing up.
    struct Purpose {
        /// The lock file's name in the database's directory.
        var fileName: String
        /// The command that holds it, e.g. `dbtool migrate`.
        var command: String
        /// What the holder is doing, e.g. "is migrating".
        var activity: String
        /// What it guards, named in the lock's directory, when that is not
        /// the database there (a restore's target); nil for the database.
        var target: String? = nil

        static let migrate = Purpose(fileName: ".dbtool-migrate.lock", command: "dbtool migrate", activity: "is migrating")
        static let backup = Purpose(fileName: ".dbtool-backup.lock", command: "dbtool backup", activity: "is backing up")
        static let replicate = Purpose(fileName: ".dbtool-replicate.lock", command: "dbtool replicate", activity: "is replicating")
        /// The migration lock, taken by a full vacuum: a migration or a
        /// restore never runs while the file is rewritten.
        static let vacuum = Purpose(fileName: migrate.fileName, command: "dbtool vacuum", activity: "is vacuuming")

        /// The migration lock, taken by a restore: a migration never runs
        /// while the database it migrates is restored.
        static let restoreDatabase = Purpose(fileName: migrate.fileName, command: "dbtool restore", activity: "is restoring")

        /// The lock of a restore into `name`, beside it in its parent:
        /// held from the first check of the target to the swap.
        static func restore(into name: String) -> Purpose {
            Purpose(
                fileName: boundedFileName(".dbtool-restoring-", name, ".lock"), command: "dbtool restore", activity: "is restoring",
                target: name)
        }

        /// The restore lock of `name`, taken by a follower for as long as it
        /// applies updates there: no restore, and no second follower, meanwhile.
        static func follow(into name: String) -> Purpose {
            var purpose = restore(into: name)
            purpose.command = "dbtool restore --follow"
            purpose.activity = "is following a replica"
            return purpose
        }

        /// The lock of the metrics file `name`, beside it: held while a run
        /// reads, merges and writes it.
        static func metrics(_ name: String) -> Purpose {
            Purpose(fileName: boundedFileName(".dbtool-metrics-", name, ".lock"), command: "dbtool", activity: "is writing the metrics file of")
        }
    }

    /// The longest content of a lock file: a pid, the command that holds
    /// it, and a note (the upload a backup started).
    private static let maximumContentSize = 4096

    /// The note the previous holder left in the lock file, when it was
    /// killed holding it (its temp files, its upload): nil otherwise.
    private(set) var previousNote: String?

    /// Waits up to `timeout` for the lock (0: fail at once).
    ///
    /// - throws: ``DBToolError`` 75 past the timeout, naming the holder's
    ///   pid and command; 77 when the lock file may not be created, 73 when
    ///   it can not, or is not one; 130 on SIGINT or SIGTERM.
    init(directory: String, purpose: Purpose, timeout: TimeInterval) throws {
        let path = directory + "/" + purpose.fileName
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            guard let descriptor = try Self.openLockFile(path, directory: directory) else { continue }
            let isLocked: Bool
            do {
                isLocked = try descriptor.tryLockExclusively()
            } catch {
                descriptor.close()
                throw error.reported(.cantCreate)
            }
            if isLocked {
                guard Self.isLinked(descriptor, at: path) else {
                    descriptor.close()  // removed by the holder we waited for: lock the new file
                    continue
                }
                // A killed holder's note (its upload), for this run to clean up after it.
                let previous = (try? descriptor.read(fromAbsoluteOffset: 0, count: Self.maximumContentSize)) ?? []
                let note = String(decoding: previous, as: UTF8.self).split(separator: "\n", maxSplits: 1).dropFirst().first
                previousNote = note.map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
                // For messages only: a failure to write it is harmless.
                try? descriptor.resize(to: 0)
                try? descriptor.writeAll(toAbsoluteOffset: 0, Array("\(SystemProcess.currentID) \(purpose.command)\n".utf8))
                self.command = purpose.command
                self.descriptor = descriptor
                self.path = path
                return
            }
            guard Date() < deadline else {
                let content = (try? descriptor.read(fromAbsoluteOffset: 0, count: Self.maximumContentSize)) ?? []
                let holder = Self.holder(String(decoding: content, as: UTF8.self), default: purpose)
                descriptor.close()
                let object = purpose.target.map { "into \(directory)/\($0)" } ?? "the database in \(directory)"
                throw DBToolError(
                    .tempFail, "another `\(holder.command)` (pid \(holder.pid)) \(holder.activity) \(object)",
                    hint: timeout > 0 ? "Retry later, or wait longer with --timeout SECONDS." : "Retry when it has finished.")
            }
            descriptor.close()
            try Interruption.sleep(seconds: 0.02)
        }
    }

    /// The lock of `purpose` for the database at `location`: in its
    /// directory, or, where dbtool may not write there (read-only media, a
    /// directory of another user), in the runtime directory
    /// (`$XDG_RUNTIME_DIR`, `/run/dbtool` for root, else the temp
    /// directory), named after the database's identity so that every run
    /// on this database meets the same file.
    convenience init(for location: DatabaseLocation, purpose: Purpose, timeout: TimeInterval) throws {
        let directory = location.directoryPath
        guard !FileSystem.isWritable(directory) || FileSystem.isOnReadOnlyMedia(directory) else {
            try self.init(directory: directory, purpose: purpose, timeout: timeout)
            return
        }
        let runtime = Self.runtimeDirectory()
        try createMissingDirectories(runtime)
        let id = SeriesIdentity(location: location, establishing: false).id
        var elsewhere = purpose
        elsewhere.fileName = String(purpose.fileName.dropLast(".lock".count)) + "-" + id + ".lock"
        try self.init(directory: runtime, purpose: elsewhere, timeout: timeout)
    }

    /// Where the locks of databases in read-only places live.
    private static func runtimeDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, FileSystem.isWritable(runtime) { return runtime + "/dbtool" }
        if SystemProcess.effectiveUserID == 0 && FileSystem.isWritable("/run") { return "/run/dbtool" }
        return SystemProcess.temporaryDirectory.replacing("//", with: "/") + "dbtool-\(SystemProcess.effectiveUserID)"
    }

    /// Keeps `text` (one line) in the lock file, for the next run if this
    /// one is killed; an empty text clears it. Best effort: a failure to
    /// write it only loses the clean-up after a kill.
    func note(_ text: String) {
        let line = text.replacing("\n", with: " ")
        let content = "\(SystemProcess.currentID) \(command)\n" + (line.isEmpty ? "" : line + "\n")
        guard content.utf8.count <= Self.maximumContentSize else { return }
        try? descriptor.resize(to: 0)
        try? descriptor.writeAll(toAbsoluteOffset: 0, Array(content.utf8))
    }

    /// Who holds a lock, from its file's content: `PID COMMAND` (a pid alone
    /// from dbtool 0.4).
    private static func holder(_ content: String, default purpose: Purpose) -> (pid: String, command: String, activity: String) {
        let fields = content.trimmingWhitespace().split(separator: " ", maxSplits: 1).map(String.init)
        let pid = fields.first.flatMap { Int32($0) }.map(String.init) ?? "unknown"
        guard fields.count == 2, fields[1].hasPrefix("dbtool "), fields[1] != purpose.command else {
            return (pid, purpose.command, purpose.activity)
        }
        let known: [Purpose] = [.migrate, .backup, .replicate, .vacuum, .restoreDatabase, .follow(into: "")]
        let activity = known.first { $0.command == fields[1] }?.activity ?? "is using"
        return (pid, fields[1], activity)
    }

    /// Creates the lock file, or opens the one another dbtool run created;
    /// nil when it vanished in between (try again).
    private static func openLockFile(_ path: String, directory: String) throws -> FileDescriptor? {
        // Non-blocking: opening a FIFO planted there must not hang the run.
        do {
            return try FileDescriptor.open(path, .readWrite, options: [.exclusiveCreate, .noFollow, .nonBlocking])
        } catch where error.errno != .fileExists {
            throw DBToolError(
                error.errno.isPermissionDenied ? .noPermission : error.errno == .interrupted ? .interrupted : .cantCreate,
                "can not create the lock file \(path): \(error.errno)", hint: "Check the permissions of \(directory).")
        } catch {}
        let descriptor: FileDescriptor
        do {
            guard let opened = try FileDescriptor.openIfExists(path, .readWrite, options: [.noFollow, .nonBlocking]) else { return nil }
            descriptor = opened
        } catch {
            throw notALockFile(path, reason: error.errno == .tooManySymbolicLinkLevels ? "it is a symbolic link" : error.errno.description)
        }
        let info: FileStatus
        do {
            info = try descriptor.status()
        } catch {
            descriptor.close()
            throw notALockFile(path, reason: error.errno.description)
        }
        if info.kind == .regular && info.linkCount == 0 {
            descriptor.close()  // removed by its holder since we opened it: try again
            return nil
        }
        let user = SystemProcess.effectiveUserID
        let reason: String? =
            if info.kind != .regular {
                "it is not a regular file"
            } else if info.linkCount > 1 {
                "it has \(info.linkCount) hard links"
            } else if info.owner != user {
                "it belongs to user \(info.owner), not to the user running dbtool (\(user))"
            } else if info.size > maximumContentSize {
                "it holds \(info.size) bytes, more than a pid"
            } else {
                nil
            }
        if let reason {
            descriptor.close()
            throw notALockFile(path, reason: reason)
        }
        return descriptor
    }

    private static func notALockFile(_ path: String, reason: String) -> DBToolError {
        DBToolError(
            .cantCreate, "the lock file \(path) is not one dbtool created: \(reason); nothing was changed",
            hint: "Check who put it there; remove it once no dbtool runs on this database.")
    }

    /// Whether `path` still names the file open on `descriptor` (without
    /// following a link put in its place).
    private static func isLinked(_ descriptor: FileDescriptor, at path: String) -> Bool {
        guard let opened = try? descriptor.status(), let named = (try? FileSystem.status(path, followingLinks: false)) ?? nil else {
            return false
        }
        return opened.identity == named.identity
    }

    deinit {
        // While still locked (see the type's documentation), and only when
        // the path still names the file this run locked.
        if Self.isLinked(descriptor, at: path) { _ = try? FileSystem.remove(path) }
        descriptor.unlock()
        descriptor.close()
    }
}
