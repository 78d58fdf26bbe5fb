import FoundationEssentials

/// Retention applied to a repository: the one code behind `backup --keep…`
/// (after a successful backup) and `backup prune`.
///
/// Only the archives the catalog trusts and attributes to the database
/// count and can be deleted (with their records); an unverified archive is
/// left alone unless `deletingUnverified`. The archive just written is
/// never deleted.
public enum Pruning {
    /// What retention did to one database's archives (or would do, in a dry run).
    public struct Report: Codable, Sendable, Equatable {
        /// The database, when its archives were found.
        public var series: SeriesIdentity?
        /// The archives kept, oldest first.
        public var kept: [String] = []
        /// The archives deleted.
        public var deleted: [String] = []
        /// `location: reason` of each archive that should have gone and is still there.
        public var failures: [String] = []
        /// In a dry run: the archives that would be deleted.
        public var wouldDelete: [String] = []
    }

    /// Applies `policy` to the archives of the database `identity` names in `catalog`; `adding`
    /// counts an archive about to be written (a dry run's).
    static func run(
        _ catalog: ArchiveCatalog, series identity: SeriesIdentity, policy: RetentionPolicy, protecting newName: String? = nil, dryRun: Bool,
        now: Date = Date(), adding: (name: String, date: Date)? = nil
    ) -> Report {
        let archives = catalog.series(identity)
        var report = Report(series: archives.last?.record?.series)
        let kept = policy.kept(archives.map(\.date) + (adding.map { [$0.date] } ?? []), now: now)
        for (index, archive) in archives.enumerated() {
            if kept.contains(index) || archive.name == newName {
                report.kept.append(archive.location)
            } else if dryRun {
                report.wouldDelete.append(archive.location)
            } else {
                delete(archive, from: catalog.repository, into: &report)
            }
        }
        return report
    }

    /// Deletes the unverified archives of `catalog` (`--prune-unverified`).
    static func deleteUnverified(_ catalog: ArchiveCatalog, dryRun: Bool) -> Report {
        var report = Report()
        for archive in catalog.unverified {
            if dryRun {
                report.wouldDelete.append(archive.location)
            } else {
                delete(archive, from: catalog.repository, into: &report)
            }
        }
        return report
    }

    private static func delete(_ archive: ArchiveCatalog.Archive, from repository: ArchiveRepository, into report: inout Report) {
        do {
            // Gone already (another run pruned it): not ours to report.
            if try repository.delete(archive.name) { report.deleted.append(archive.location) }
            _ = try? repository.delete(SeriesRecord.name(of: archive.name))
        } catch {
            report.failures.append("\(archive.location): \(DBToolError.wrapping(error).message)")
        }
    }
}
