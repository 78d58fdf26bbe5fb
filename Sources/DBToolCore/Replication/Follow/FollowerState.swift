import FoundationEssentials

/// Where a follower's copy stands, kept beside it in `.NAME.dbtool-follow`
/// (NAME the database file's name), so that `restore REPLICA DIR --follow`
/// run again (a restart, a reboot, a kill) goes on from the copy's TXID
/// instead of restoring the whole database anew.
///
/// Written at the start, at most every ten seconds while the copy moves, and
/// at the stop (a temp file, synced, renamed over the last), not after each
/// update: it would add a synced file to each. A follower killed in between
/// leaves a TXID some updates behind its copy: going on from there merges
/// those updates' files again (each page's newest version) into one update,
/// which writes the same pages the copy holds and the same size, then what
/// is new. A follower killed before an update's commit leaves a hot journal,
/// rolled back before anything else.
///
/// The state names the replica (its description) and the copy's database
/// file (device and inode): a copy replaced since, or a replica other than
/// the one followed, is never gone on from.
struct FollowerState: Codable, Equatable {
    /// The replica followed, as ``Replica/description`` spells it.
    var replica: String
    /// The TXID the copy holds, hexadecimal.
    var txid: String
    /// The copy's database file: device and inode.
    var device: UInt
    var inode: UInt

    /// The state file's name beside `databaseFile`.
    static func fileName(for databaseFile: String) -> String { "." + databaseFile + suffix }

    /// How every state file's name ends.
    static let suffix = ".dbtool-follow"

    /// The prefix of the temp file a state is written to.
    static let tempPrefix = ".dbtool-follow-state-"

    /// A state larger than this is not one dbtool wrote.
    private static let sizeLimit = 64 << 10

    init(replica: String, txid: UInt64, database: FileStatus.Identity) {
        self.replica = replica
        self.txid = LTXFileName.hex(txid)
        device = database.device
        inode = database.inode
    }

    /// The TXID as a number; nil when the text is not one.
    var txidValue: UInt64? { UInt64(txid, radix: 16) }

    var database: FileStatus.Identity { FileStatus.Identity(device: device, inode: inode) }

    /// The state beside `databaseFile` in `folder`; nil when there is none.
    ///
    /// - throws: ``DBToolError`` (65) when the file is not a state dbtool
    ///   wrote (a link, a FIFO, other content).
    static func read(in folder: DirectoryDescriptor, for databaseFile: String) throws -> FollowerState? {
        let name = fileName(for: databaseFile)
        guard try folder.status(of: name) != nil else { return nil }
        let damaged = DBToolError(
            .dataError, "\(folder.path(of: name)) is not the state of a follower dbtool wrote",
            hint: "Remove it and run restore --follow with --force: the copy is restored anew.")
        guard let (file, info) = try? folder.openRegularFile(name) else { throw damaged }
        defer { file.close() }
        guard info.size <= sizeLimit, let bytes = try? file.readToEnd(limit: sizeLimit),
            let state = try? JSONDecoder().decode(FollowerState.self, from: Data(bytes)), state.txidValue != nil
        else { throw damaged }
        return state
    }

    /// Writes this state beside `databaseFile` in `folder`, whole or not at
    /// all: a temp file (0600), synced, renamed over the previous state.
    func write(in folder: DirectoryDescriptor, for databaseFile: String) throws {
        let temp = tempName(prefix: Self.tempPrefix, for: databaseFile)
        let text = Array(try JSONEncoder().encode(self)) + [0x0A]
        do {
            let file = try folder.createFile(temp)
            defer { file.close() }
            try file.writeAll(text)
            try file.sync()
            try folder.rename(temp, to: folder, as: Self.fileName(for: databaseFile))
        } catch {
            _ = try? folder.removeFile(temp)
            throw error.reported(.cantCreate, hint: "Check the permissions and the free space of \(folder.path).")
        }
    }
}
