import Crypto
import FoundationEssentials

/// Which database a series of snapshots or archives, or a replica, belongs
/// to: the database's identity (``DatabaseIdentity``), and the host and
/// resolved path it was recorded at, for people.
///
/// Names are not enough: every `dbtool init` database is `db.sqlite`, and
/// two database directories may share a name, so their files share a name
/// pattern in a shared output directory. Retention counts and deletes only
/// the files whose record (``SeriesRecord``) names this database.
///
/// Before databases had identities, the id was a hash of the host and the
/// path (16 hex digits): such records still name this database when its
/// host and path are theirs. A database that can have no identity file (in
/// a place dbtool may not write) is named that way too.
public struct SeriesIdentity: Codable, Sendable, Equatable {
    /// The database's identity (32 hex digits), or, for a database without
    /// one, 16 hex digits of the SHA-256 of the host and the path.
    public var id: String
    /// The host name.
    public var host: String
    /// The database file, with every link resolved.
    public var database: String

    /// The identity of the database at `location`, on this host: its
    /// identity file's, created if it has none, `establishing` it, and
    /// dbtool may write there (a run that writes nothing passes false).
    public init(location: DatabaseLocation, establishing: Bool = true) {
        let path = FileSystem.resolvingLinks(location.filePath) ?? location.filePath
        let identity = establishing ? DatabaseIdentity.establish(location) : DatabaseIdentity.read(location)
        self.init(host: SystemProcess.hostName, database: path, identity: identity)
    }

    /// The series of the database at `location`, on this host, named by
    /// `identity` (its own, or one about to be kept beside it).
    init(location: DatabaseLocation, identity: DatabaseIdentity?) {
        let path = FileSystem.resolvingLinks(location.filePath) ?? location.filePath
        self.init(host: SystemProcess.hostName, database: path, identity: identity)
    }

    init(host: String, database: String, identity: DatabaseIdentity? = nil) {
        self.host = host
        self.database = database
        id = identity?.id ?? Self.legacyID(host: host, database: database)
    }

    /// The id of a host and path, as records named databases before
    /// identities: 16 hex digits.
    static func legacyID(host: String, database: String) -> String {
        let digest = SHA256.hash(data: Data("dbtool-series-1\u{0}\(host)\u{0}\(database)".utf8))
        return String(digest.hexString.prefix(16))
    }

    /// Whether the id is a database identity, not a host and path's.
    var hasIdentity: Bool { DatabaseIdentity.isValid(id) }

    /// The id this series would have had before identities.
    var legacyID: String { Self.legacyID(host: host, database: database) }

    /// Whether `other` (a record's) names this database: by identity when
    /// both have one; by host and path when either was recorded without.
    func names(_ other: SeriesIdentity) -> Bool {
        if hasIdentity && other.hasIdentity { return id == other.id }
        return legacyID == other.legacyID
    }

    /// The identity as the node ID of the LTX files dbtool writes (0 without one).
    var nodeID: UInt64 { hasIdentity ? DatabaseIdentity(id)?.nodeID ?? 0 : 0 }

    /// "host:path (id)", for messages.
    var summary: String { "\(host):\(database) (id \(id))" }
}

/// What dbtool records beside each file it adds to a series
/// (`NAME.dbtool.json`, written once the file is complete): whose it is
/// and what it holds. A file of the series counts for retention only when
/// its record names this database and its size matches the file's: a file
/// copied there by hand, a truncated one, or another database's, is never
/// counted, nor deleted.
public struct SeriesRecord: Codable, Sendable, Equatable {
    /// The record's own format.
    public var format = 1
    public var series: SeriesIdentity
    /// The file's name.
    public var file: String
    /// The file's size in bytes.
    public var size: Int64
    /// The file's SHA-256, when it was computed as it was written.
    public var sha256: String?
    /// ISO 8601, UTC.
    public var created: String
    public var dbtoolVersion: String
    public var pageCount: Int?
    /// `VERSION NAME` of the last migration applied, if any.
    public var lastMigration: String?
    /// True for an encrypted archive.
    public var encrypted: Bool?
    /// The server-side encryption the store was asked for (`AES256`,
    /// `aws:kms`), when one was.
    public var serverSideEncryption: String?
    /// The KMS key it was asked for with `aws:kms`, when one was named.
    public var serverSideEncryptionKeyID: String?

    /// The record's name beside the file named `file`.
    static func name(of file: String) -> String { file + ".dbtool.json" }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The record at `path`; nil when there is none or it is not one
    /// (never trusted then).
    static func read(_ path: String) -> SeriesRecord? {
        guard let data = try? FileSystem.contents(path), data.count < 1 << 20 else { return nil }
        return try? JSONDecoder().decode(SeriesRecord.self, from: Data(data))
    }
}
