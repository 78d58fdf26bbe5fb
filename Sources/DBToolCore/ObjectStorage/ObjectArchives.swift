import Foundation

/// The archives under an object storage prefix: what `backup list` shows,
/// and what `latest` resolves to.
enum ObjectArchives {
    /// `s3://BUCKET/PREFIX/latest` names the newest archive under PREFIX;
    /// any other location names itself.
    static func resolve(_ location: ObjectLocation, in store: ObjectStore) throws -> ObjectLocation {
        guard location.name == "latest" else { return location }
        let prefix = ObjectLocation(bucket: location.bucket, key: location.parentPrefix)
        let archives = try store.list(bucket: prefix.bucket, prefix: prefix.prefix).compactMap { object -> (String, String)? in
            let candidate = ObjectLocation(bucket: prefix.bucket, key: object.key)
            guard candidate.parentPrefix == prefix.prefix, let parsed = ArchiveName(candidate.name) else { return nil }
            return (object.key, parsed.timestamp)
        }
        guard let newest = archives.max(by: { $0.1 < $1.1 }) else {
            throw DBToolError(
                .noInput, "no archive under \(prefix) for latest to name", hint: "Check the prefix with: dbtool backup list \(prefix)")
        }
        return ObjectLocation(bucket: location.bucket, key: newest.0)
    }
}

/// The name of an archive of `dbtool backup --output-dir` or `--to`:
/// `STEM-yyyyMMddTHHmmss.mmmZ.EXT`.
struct ArchiveName: Equatable {
    var stem: String
    /// Sortable: `yyyyMMddHHmmssSSS`.
    var timestamp: String
    var format: ArchiveFormat

    init?(_ name: String) {
        // The longest extension: `.tar.gz` rather than `.gz`.
        guard let format = ArchiveFormat.allCases.filter({ name.hasSuffix("." + $0.fileExtension) })
            .max(by: { $0.fileExtension.count < $1.fileExtension.count })
        else { return nil }
        let base = name.dropLast(format.fileExtension.count + 1)
        for length in [20, 16] where base.count > length + 1 {
            let stem = String(base.dropLast(length + 1))
            let series = TimestampedName(stem: stem, fileExtension: format.fileExtension)
            if base.dropLast(length).hasSuffix("-"), let timestamp = series.timestamp(of: name) {
                self.stem = stem
                self.timestamp = timestamp
                self.format = format
                return
            }
        }
        return nil
    }

    /// The time in the name, ISO 8601.
    var date: Date? { TimestampedName.date(ofTimestamp: timestamp) }
}
