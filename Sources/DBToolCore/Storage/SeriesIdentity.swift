import Crypto
import Foundation

/// Which database a series of snapshots or archives belongs to: the host
/// and the database file's resolved path, and a short id of both.
///
/// Names are not enough: every `dbtool init` database is `db.sqlite`, and
/// two database directories may share a name, so their files share a name
/// pattern in a shared output directory. Retention counts and deletes only
/// the files whose record (``SeriesRecord``) carries this database's id.
/// The host is part of it, so that servers whose databases have the same
/// path never prune each other's archives in a shared bucket.
public struct SeriesIdentity: Codable, Sendable, Equatable {
    /// 16 hex digits of the SHA-256 of the host and the path.
    public var id: String
    /// The host name.
    public var host: String
    /// The database file, with every link resolved.
    public var database: String

    /// The identity of the database at `location`, on this host.
    public init(location: DatabaseLocation) {
        let path = FileSystem.resolvingLinks(location.filePath) ?? location.filePath
        self.init(host: SystemProcess.hostName, database: path)
    }

    init(host: String, database: String) {
        self.host = host
        self.database = database
        let digest = SHA256.hash(data: Data("dbtool-series-1\u{0}\(host)\u{0}\(database)".utf8))
        id = String(digest.hexString.prefix(16))
    }
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
