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

extension ArchiveFormat {
    /// The compression levels libarchive accepts for the format.
    public var levels: ClosedRange<Int>? {
        switch self {
        case .tarZstd: 1...22
        case .tarGzip, .tarXz, .zip: 0...9
        case .tar: nil
        }
    }

    /// Throws a usage error (64) for a level the format does not take.
    func validate(level: Int) throws {
        guard let levels else {
            throw DBToolError(.usage, "--level does not apply to --format tar (it is not compressed)")
        }
        guard levels.contains(level) else {
            throw DBToolError(
                .usage, "--level \(level) is out of range for --format \(rawValue): use \(levels.lowerBound) to \(levels.upperBound)")
        }
    }
}
