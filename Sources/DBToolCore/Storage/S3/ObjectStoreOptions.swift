import FoundationEssentials

/// How to reach the object store: the options every `s3://` command shares,
/// with the AWS environment variables as defaults.
public struct ObjectStoreOptions: Sendable {
    /// `--endpoint URL`, else `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the
    /// profile's (its services section's `s3` `endpoint_url`, then its own
    /// `endpoint_url`), else AWS's own for the region. A true
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` (or the profile's
    /// `ignore_configured_endpoint_urls`) leaves only `--endpoint`.
    public var endpoint: String?
    /// `--profile NAME`, else `AWS_DEFAULT_PROFILE`, else `AWS_PROFILE`,
    /// else `default` (botocore's order).
    public var profile: String?
    /// `--region`, else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's
    /// `region`, else `us-east-1`.
    public var region: String?
    /// `--ca-bundle FILE`, else `AWS_CA_BUNDLE`, else the profile's
    /// `ca_bundle`: the PEM certificates a TLS endpoint is checked against
    /// (a private CA of an on-premises store), instead of the system's.
    public var caBundle: String?
    /// Allow plain HTTP to an endpoint that is not on loopback.
    public var allowInsecureEndpoint = false
    /// How many times a request is retried after a network error, a 5xx or
    /// a SlowDown, with exponential backoff, before dbtool gives up (75).
    public var retries = ObjectStoreOptions.defaultRetries
    /// The environment the AWS variables are read from.
    public var environment: [String: String]

    /// The retries when `--retries` is not given.
    public static let defaultRetries = 5

    /// Options with every value from `environment` (or AWS's defaults).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }
}

/// An endpoint resolved from ``ObjectStoreOptions``: where requests go, and
/// how buckets are addressed.
struct ObjectEndpoint: Sendable, Equatable {
    /// `scheme://host[:port]`, without a trailing slash.
    var base: String
    var region: String
    /// `endpoint/bucket/key` (S3-compatible stores) rather than
    /// `bucket.endpoint/key` (AWS).
    var pathStyle: Bool

    init(_ options: ObjectStoreOptions, profile: AWSProfile) throws {
        region = try Self.region(options, profile: profile)
        if let given = options.endpoint ?? Self.configured(service: "s3", options, profile: profile) {
            base = try Self.checkedBase(given, options)
            pathStyle = true
        } else {
            base = "https://s3.\(region).amazonaws.com"
            pathStyle = false
        }
    }

    /// `--region`, else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's,
    /// else `us-east-1`.
    static func region(_ options: ObjectStoreOptions, profile: AWSProfile) throws -> String {
        let variable = options.environment.awsVariable
        let region = options.region ?? variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? profile.region ?? "us-east-1"
        guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw DBToolError(.usage, "the region \(region) is not a region name", hint: "Pass --region (us-east-1, eu-west-3...).")
        }
        return region
    }

    /// The endpoint configured for `service` (`s3`, `sts`) as botocore finds
    /// it: `AWS_ENDPOINT_URL_<SERVICE>`, `AWS_ENDPOINT_URL`, then the
    /// profile's; nil when none is, or when configured endpoints are off.
    static func configured(service: String, _ options: ObjectStoreOptions, profile: AWSProfile) -> String? {
        let variable = options.environment.awsVariable
        if variable("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")?.lowercased() == "true" || profile.ignoresConfiguredEndpoints { return nil }
        return variable("AWS_ENDPOINT_URL_\(service.uppercased())") ?? variable("AWS_ENDPOINT_URL") ?? profile.endpoint(service: service)
    }

    /// `given` as `scheme://host[:port]`, refused (64) when it is not an
    /// http(s) URL without a path, or plain HTTP off loopback without
    /// `--allow-insecure-endpoint`.
    static func checkedBase(_ given: String, _ options: ObjectStoreOptions) throws -> String {
        guard let url = URL(string: given), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
        else {
            throw DBToolError(
                .usage, "the endpoint \(given) is not an http(s)://HOST[:PORT] URL",
                hint: "Pass --endpoint https://s3.example.com (no path, no credentials).")
        }
        if scheme == "http" && !options.allowInsecureEndpoint && !Self.isLoopback(host) {
            throw DBToolError(
                .usage, "the endpoint \(given) is plain HTTP: credentials and backups would cross the network unencrypted",
                hint: "Use https://, or pass --allow-insecure-endpoint if this network is trusted.")
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)" + (url.port.map { ":\($0)" } ?? "")
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The URL of `key` in `bucket` (a bucket's root with an empty key).
    func url(bucket: String, key: String, query: [(String, String)] = []) -> String {
        // Bucket names with dots break AWS's TLS certificates: path style for those.
        let path = "/" + key.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode(String($0)) }.joined(separator: "/")
        var url: String
        if pathStyle || bucket.contains(".") {
            url = base + "/" + bucket + (key.isEmpty ? "" : path)
        } else {
            url = base.replacing("://", with: "://\(bucket).") + path
        }
        if !query.isEmpty {
            // Sorted and fully encoded: that is SigV4's canonical query string,
            // so the string libcurl signs is the one S3 computes.
            url += "?" + query.sorted { $0.0 < $1.0 }.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        return url
    }

    /// RFC 3986 encoding as SigV4 wants it: everything but `A-Za-z0-9-._~`.
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(Character(UnicodeScalar(byte)))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}
