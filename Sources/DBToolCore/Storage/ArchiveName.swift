import FoundationEssentials

/// The name of a file of a series: `STEM-yyyyMMddTHHmmss.mmmZ.EXT`, an
/// archive of `dbtool backup --output-dir` or `--to` (EXT: an archive
/// format's), or a snapshot of `dbtool snapshot --output-dir` (`sqlite`).
struct ArchiveName: Equatable {
    var stem: String
    /// Sortable: `yyyyMMddHHmmssSSS`.
    var timestamp: String
    /// The extension, without the leading dot.
    var fileExtension: String

    /// The extension of snapshots.
    static let snapshotExtensions = ["sqlite"]

    /// Parses `name`, a file of a series whose extension is one of
    /// `extensions` (``ArchiveFormat/fileExtensions`` for archives).
    init?(_ name: String, extensions: [String]) {
        // The longest extension: `.tar.gz` rather than `.gz`.
        guard let fileExtension = extensions.filter({ name.hasSuffix("." + $0) }).max(by: { $0.count < $1.count }) else { return nil }
        let base = name.dropLast(fileExtension.count + 1)
        for length in [20, 16] where base.count > length + 1 {
            let stem = String(base.dropLast(length + 1))
            let series = TimestampedName(stem: stem, fileExtension: fileExtension)
            if base.dropLast(length).hasSuffix("-"), let timestamp = series.timestamp(of: name) {
                self.stem = stem
                self.timestamp = timestamp
                self.fileExtension = fileExtension
                return
            }
        }
        return nil
    }

    /// The time in the name.
    var date: Date? { TimestampedName.date(ofTimestamp: timestamp) }
}
