/// The archive formats of `dbtool backup`.
public enum ArchiveFormat: String, Sendable, CaseIterable {
    case tarZstd = "tar.zst"
    case tarGzip = "tar.gz"
    case tarXz = "tar.xz"
    case tar
    case zip

    /// The file name extension, without the leading dot.
    public var fileExtension: String { rawValue }

    /// The extensions of every format: the names an archive of a series may have.
    static var fileExtensions: [String] { allCases.map(\.fileExtension) }

    /// The format a file name's extension names (`.tgz` is tar.gz), or nil
    /// when the name has none of the archive extensions.
    public init?(fileName: String) {
        let name = fileName.lowercased()
        if name.hasSuffix(".tgz") {
            self = .tarGzip
            return
        }
        // The longest extension first: `.tar.gz` ends in neither `.tar` nor `.gz` alone.
        let candidates = Self.allCases.sorted { $0.fileExtension.count > $1.fileExtension.count }
        guard let format = candidates.first(where: { name.hasSuffix("." + $0.fileExtension) }) else { return nil }
        self = format
    }

    /// The format of an archive written to `output`: the one its extension
    /// names, which an explicit format must not contradict (64); `explicit`
    /// for a name without an archive extension (without it: 64, naming the
    /// extensions); `explicit`, or tar.zst, for a timestamped name (no `output`).
    public static func resolve(explicit: ArchiveFormat?, output: String?) throws -> ArchiveFormat {
        guard let output else { return explicit ?? .tarZstd }
        guard let named = ArchiveFormat(fileName: output) else {
            if let explicit { return explicit }
            let known = allCases.map { "." + $0.fileExtension } + [".tgz"]
            throw DBToolError(
                .usage, "--output \(output) does not end with an archive extension (\(known.joined(separator: ", ")))",
                hint: "Name the file after its format, such as \(LocalPath.name(of: output)).tar.zst, or give --archive-format.")
        }
        if let explicit, explicit != named {
            throw DBToolError(
                .usage, "--archive-format \(explicit.rawValue) contradicts the extension of --output \(output), which names \(named.rawValue)",
                hint: "Drop --archive-format (the extension decides), or name the file .\(explicit.fileExtension).")
        }
        return named
    }
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
            throw DBToolError(.usage, "--level does not apply to --archive-format tar (it is not compressed)")
        }
        guard levels.contains(level) else {
            throw DBToolError(
                .usage, "--level \(level) is out of range for --archive-format \(rawValue): use \(levels.lowerBound) to \(levels.upperBound)")
        }
    }
}
