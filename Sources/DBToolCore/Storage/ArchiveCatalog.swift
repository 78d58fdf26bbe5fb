import FoundationEssentials

/// The archives of a repository as dbtool can attribute and trust them.
///
/// An archive is trusted when its record (``SeriesRecord``, written beside
/// it once it was complete) names it, and the size the repository holds is
/// the recorded one. Only trusted archives count for retention and can be
/// `latest`; the others (junk named like an archive, a truncated copy, an
/// archive of dbtool before 0.5, one whose backup found the database
/// corrupt) are listed as unverified, never counted, never deleted unless
/// the operator asks. A name dated more than a day in the future is not
/// trusted either: a clock set wrong must not make it `latest` forever.
struct ArchiveCatalog {
    /// An archive of the repository.
    struct Archive: Equatable {
        var name: String
        /// A path, or an `s3://` URL.
        var location: String
        var size: Int64
        /// When the backup was taken, from the name.
        var date: Date
        /// The extension: an archive format's, or `sqlite` for a snapshot.
        var fileExtension: String
        var record: SeriesRecord?
        /// Why the archive is not trusted; nil when it is.
        var distrust: String?

        var isTrusted: Bool { distrust == nil }
        /// The database it belongs to (trusted archives only).
        var series: SeriesIdentity? { isTrusted ? record?.series : nil }
    }

    /// A name dated further than this in the future is not trusted.
    static let futureTolerance: TimeInterval = 86_400
    /// The largest record read.
    static let recordLimit = 1 << 20

    let repository: ArchiveRepository
    /// Every entry named like an archive, oldest first.
    let archives: [Archive]

    /// Lists `repository` and reads the records of its files named
    /// `STEM-TIMESTAMP.EXT`, with EXT one of `extensions` (those of the
    /// archive formats, or ``ArchiveName/snapshotExtensions``).
    init(_ repository: ArchiveRepository, extensions: [String], now: Date = Date()) throws {
        self.repository = repository
        let entries = try repository.list()
        var archives: [Archive] = []
        for entry in entries {
            guard let parsed = ArchiveName(entry.name, extensions: extensions), let date = parsed.date else { continue }
            var archive = Archive(
                name: entry.name, location: repository.location(of: entry.name), size: entry.size, date: date,
                fileExtension: parsed.fileExtension)
            let recordData = try repository.readSmall(SeriesRecord.name(of: entry.name), limit: Self.recordLimit)
            archive.record = recordData.flatMap { try? JSONDecoder().decode(SeriesRecord.self, from: $0) }
            archive.distrust = Self.distrust(archive, recordFound: recordData != nil, now: now)
            archives.append(archive)
        }
        self.archives = archives.sorted { ($0.date, $0.name) < ($1.date, $1.name) }
    }

    private static func distrust(_ archive: Archive, recordFound: Bool, now: Date) -> String? {
        guard let record = archive.record else {
            return recordFound ? "its record is not one dbtool wrote" : "no record of dbtool (copied by hand, cut short, or written before dbtool 0.5)"
        }
        if record.file != archive.name { return "its record names another file, \(record.file)" }
        if record.size != archive.size { return "it holds \(archive.size) bytes, its record says \(record.size)" }
        if archive.date.timeIntervalSince(now) > futureTolerance { return "it is dated more than a day in the future" }
        return nil
    }

    /// The trusted archives of one database, oldest first.
    func series(_ identity: SeriesIdentity) -> [Archive] {
        archives.filter { $0.series.map(identity.names) ?? false }
    }

    /// The databases whose trusted archives are here: one identity each
    /// (an archive recorded before identities joins the database it names
    /// by host and path).
    var databases: [SeriesIdentity] {
        var found: [SeriesIdentity] = []
        for series in archives.compactMap(\.series) {
            if let index = found.firstIndex(where: { $0.names(series) || series.names($0) }) {
                if series.hasIdentity && !found[index].hasIdentity { found[index] = series }
            } else {
                found.append(series)
            }
        }
        return found
    }

    /// The archives not trusted, with why.
    var unverified: [Archive] { archives.filter { !$0.isTrusted } }

    /// The newest trusted archive: what `latest` names.
    ///
    /// - throws: ``DBToolError`` 66 when there is none; 64 when archives
    ///   of several databases are here (name the archive instead).
    func latest() throws -> Archive {
        let trusted = archives.filter(\.isTrusted)
        guard let newest = trusted.last else {
            let hint =
                archives.isEmpty
                ? "Check the location with: dbtool backup list \(repository.description)"
                : "\(archives.count) archive(s) are there, none that dbtool can trust: see `dbtool backup list \(repository.description)`."
            throw DBToolError(.noInput, "no archive in \(repository.description) for latest to name", hint: hint)
        }
        let databases = self.databases
        if databases.count > 1 {
            let names = databases.map { "\($0.host):\($0.database)" }
            throw DBToolError(
                .usage, "\(repository.description) holds the archives of \(databases.count) databases (\(names.joined(separator: ", "))): latest is ambiguous",
                hint: "Name the archive (see `dbtool backup list \(repository.description)`).")
        }
        return newest
    }

    /// `name` as a restore or a verify reads it: `latest` names the newest
    /// trusted archive; any other name is itself.
    static func resolve(_ name: String, in repository: ArchiveRepository, extensions: [String]) throws -> String {
        guard name == "latest" else { return name }
        return try ArchiveCatalog(repository, extensions: extensions).latest().name
    }
}
