/// Which database this is, whatever its host, path or container: a random
/// identifier created with the database and kept beside it, in
/// `.NAME.dbtool-id` (NAME the database file's name), so that backups
/// archive it and restores bring it back with the database.
///
/// Backup series and replicas are attributed by it: a database keeps its
/// series across a new host name, a new container or a restore onto a new
/// machine, and two databases never share one, even at the same path.
/// `dbtool init` creates it; the first run that needs it creates it for an
/// older database, where dbtool may write (elsewhere the host and path stand
/// in, as they did before identities existed).
///
/// The file is readable by every user (0644): it holds nothing secret, and
/// every user who runs dbtool on the database must see the same identity.
public struct DatabaseIdentity: Sendable, Equatable, CustomStringConvertible {
    /// 32 lowercase hexadecimal digits (128 random bits).
    public let id: String

    public var description: String { id }

    /// The identity file's name beside `databaseFile` (a file name).
    static func fileName(for databaseFile: String) -> String { "." + databaseFile + ".dbtool-id" }

    /// The identity file of the database at `location`.
    static func path(for location: DatabaseLocation) -> String {
        let directory = location.directoryPath == "/" ? "" : location.directoryPath
        return directory + "/" + fileName(for: LocalPath.name(of: location.filePath))
    }

    /// The identity as 64 bits: what the LTX files dbtool writes carry as
    /// their node ID, so that a file of another database is recognised.
    var nodeID: UInt64 { UInt64(id.prefix(16), radix: 16) ?? 0 }

    /// Whether `text` is an identity: 32 lowercase hexadecimal digits.
    static func isValid(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        id = text
    }

    /// The prefix of the temp file an identity is written to.
    static let tempPrefix = ".dbtool-id-"

    /// A new random identity.
    static func random() -> DatabaseIdentity {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        return DatabaseIdentity(digits)!
    }

    /// The identity of the database at `location`; nil when it has none,
    /// or when the file is not one dbtool wrote (a link, a FIFO, other
    /// content: never trusted, never replaced).
    public static func read(_ location: DatabaseLocation) -> DatabaseIdentity? {
        guard let directory = try? DirectoryDescriptor.open(location.directoryPath) else { return nil }
        defer { directory.close() }
        return read(in: directory, fileName: fileName(for: LocalPath.name(of: location.filePath)))
    }

    private static func read(in directory: DirectoryDescriptor, fileName: String) -> DatabaseIdentity? {
        guard let (file, info) = try? directory.openRegularFile(fileName) else { return nil }
        defer { file.close() }
        guard info.size <= 64, let bytes = try? file.readToEnd(limit: 64) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return DatabaseIdentity(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Writes this identity beside the database file `databaseFile` of a
    /// staging directory (a restore from a replica: the database it rebuilt
    /// is the replica owner's).
    func write(in directory: DirectoryDescriptor, for databaseFile: String) throws {
        let name = Self.fileName(for: databaseFile)
        do {
            let file = try directory.createFile(name, permissions: 0o644)
            defer { file.close() }
            try file.writeAll(Array((id + "\n").utf8))
            try file.sync()
        } catch {
            throw error.reported(.cantCreate)
        }
    }

    /// The identity of the database at `location`, created when it has none
    /// and dbtool may write beside it; nil where it may not.
    public static func establish(_ location: DatabaseLocation) -> DatabaseIdentity? {
        read(location) ?? random().persist(location)
    }

    /// Keeps this identity beside the database at `location`, unless it has
    /// one already (a link, a FIFO or other content there is left as it is,
    /// and nil returned). Returns the identity the database has then: this
    /// one, or the one another run created first.
    ///
    /// Created whole or not at all: written to a temp file, synced, then
    /// linked to its name, which fails when another run created it first.
    func persist(_ location: DatabaseLocation) -> DatabaseIdentity? {
        guard let directory = try? DirectoryDescriptor.open(location.directoryPath) else { return nil }
        defer { directory.close() }
        let name = Self.fileName(for: LocalPath.name(of: location.filePath))
        if (try? directory.status(of: name)) ?? nil != nil { return Self.read(in: directory, fileName: name) }
        removeStaleTempFiles(in: location.directoryPath, prefix: Self.tempPrefix)
        let temp = tempName(prefix: Self.tempPrefix, for: "new")
        guard let file = try? directory.createFile(temp, permissions: 0o644) else { return nil }
        defer { _ = try? directory.removeFile(temp) }
        do {
            defer { file.close() }
            try file.writeAll(Array((id + "\n").utf8))
            try file.sync()
        } catch {
            return nil
        }
        do {
            try directory.link(temp, as: name)
            try? directory.sync()
            return self
        } catch where error.errno == .fileExists {
            return Self.read(in: directory, fileName: name)
        } catch {
            return nil
        }
    }
}
