/// The archive formats of `dbtool backup`.
public enum ArchiveFormat: String, Sendable, CaseIterable {
    case tarZstd = "tar.zst"
    case tarGzip = "tar.gz"
    case tarXz = "tar.xz"
    case tar
    case zip

    /// The file name extension, without the leading dot.
    public var fileExtension: String { rawValue }
}
