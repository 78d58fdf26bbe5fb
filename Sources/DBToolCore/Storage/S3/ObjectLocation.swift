import FoundationEssentials

/// An address in S3-compatible object storage: `s3://BUCKET/KEY`.
///
/// For a backup destination or a listing, the key is a prefix (`myapp/`;
/// a missing final slash is added); for verify and restore it names one
/// archive, or `latest`: the newest archive under its prefix.
public struct ObjectLocation: Sendable, Equatable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The object's key, or a prefix (see ``prefix``).
    public var key: String

    /// Parses `s3://BUCKET[/KEY]`.
    ///
    /// - throws: ``DBToolError`` (64) naming the argument when it is not one.
    public init(_ text: String) throws {
        guard let rest = StoreLocation.objectPath(of: text) else {
            throw DBToolError(.usage, "\(text) is not an object storage URL", hint: "Write s3://BUCKET/PREFIX/.")
        }
        let bucket = String(rest.prefix { $0 != "/" })
        let key = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        // S3's rules for bucket names: 3 to 63 lowercase letters, digits, dots and hyphens.
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard (3...63).contains(bucket.count), bucket.allSatisfy(allowed.contains), bucket.first != "-", bucket.first != "." else {
            throw DBToolError(
                .usage, "\(text) does not name a valid bucket (\(bucket.isEmpty ? "none" : bucket))",
                hint: "Bucket names have 3 to 63 lowercase letters, digits, dots and hyphens: s3://BUCKET/PREFIX/.")
        }
        guard !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." }),
            !key.contains("//")
        else {
            throw DBToolError(.usage, "\(text) has an empty, `.` or `..` component", hint: "Write s3://BUCKET/PREFIX/NAME.")
        }
        self.bucket = bucket
        self.key = key
    }

    init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// The key as a prefix: empty, or ending with `/`.
    public var prefix: String { key.isEmpty || key.hasSuffix("/") ? key : key + "/" }

    /// The last component of the key (the archive's name).
    public var name: String { String(key.split(separator: "/").last ?? "") }

    /// The key's prefix, without its last component.
    public var parentPrefix: String {
        guard let slash = key.lastIndex(of: "/") else { return "" }
        return String(key[...slash])
    }

    /// The object `name` under this prefix.
    func appending(_ name: String) -> ObjectLocation { ObjectLocation(bucket: bucket, key: prefix + name) }

    public var description: String { "s3://\(bucket)/\(key)" }
}
