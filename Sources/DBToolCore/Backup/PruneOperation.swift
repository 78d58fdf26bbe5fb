import FoundationEssentials

/// `dbtool backup prune REPOSITORY`: the retention rules applied to the
/// archives of a directory or prefix, as restic's `forget` applies them:
/// to each database's archives on its own (or to one database's, with
/// `--database`), counting and deleting only the archives dbtool trusts
/// (see `ArchiveCatalog`). `backup --keep…` runs the same code after a
/// successful backup.
public struct PruneOperation: Sendable {
    /// A directory, or `s3://BUCKET/PREFIX/`.
    public var target: String
    /// How to reach the object store of an `s3://` target.
    public var objectStore = ObjectStoreOptions()
    public var retention = RetentionPolicy()
    /// Only this database's archives; every database's by default.
    public var database: DatabaseLocation?
    /// Report what would be deleted; delete nothing.
    public var dryRun = false
    /// Also delete the archives dbtool can not trust (`--prune-unverified`).
    public var deletesUnverified = false

    public init(target: String) {
        self.target = target
    }

    /// What prune did.
    public struct Report: Codable, Sendable, Equatable {
        public var target: String
        public var dryRun: Bool
        /// One entry per database whose archives are there.
        public var databases: [Pruning.Report]
        /// The unverified archives deleted (or that would be), with
        /// `--prune-unverified`.
        public var unverified: Pruning.Report?
        /// The unverified archives left alone, with why.
        public var warnings: [String]
    }

    /// - throws: ``DBToolError``: 64 without any rule, 66 for a missing
    ///   directory or bucket, 77 for refused credentials.
    public func run(now: Date = Date()) throws -> Report {
        guard !retention.isEmpty || deletesUnverified else {
            throw DBToolError(
                .usage, "no retention rule: nothing would be deleted", hint: "Give --keep N, --keep-daily N, ... or --keep-within DURATION.")
        }
        let repository = try ArchiveRepository.at(target, objectStore: objectStore, tempPrefix: BackupOperation.tempPrefix)
        let catalog = try ArchiveCatalog(repository, extensions: ArchiveFormat.fileExtensions, now: now)
        let databases = database.map { [SeriesIdentity(location: $0, establishing: false)] } ?? catalog.databases
        var report = Report(target: target, dryRun: dryRun, databases: [], warnings: [])
        if !retention.isEmpty {
            report.databases = databases.map { Pruning.run(catalog, series: $0, policy: retention, dryRun: dryRun, now: now) }
        }
        if deletesUnverified {
            report.unverified = Pruning.deleteUnverified(catalog, dryRun: dryRun)
        } else {
            report.warnings = catalog.unverified.map { "\($0.location) is not counted, nor deleted: \($0.distrust ?? "")" }
        }
        return report
    }
}
