import Crypto
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What an AWS Signature Version 4 needs besides the request: the scope
/// and the key.
struct SignatureV4: Sendable {
    var region: String
    /// `s3`, `sts`.
    var service: String
    var accessKeyId: String
    var secretAccessKey: String

    /// The headers that sign `request` at `time` (seconds since 1970):
    /// `x-amz-date` and `Authorization`. Every header of the request is
    /// signed, with `host`; the payload's hash is its
    /// `x-amz-content-sha256` header (the hash of nothing when absent).
    ///
    /// dbtool signs rather than libcurl, whose signer (7.88) orders the
    /// headers by `name:value` where SigV4 orders them by name: a header
    /// whose name extends another's (`x-amz-server-side-encryption` and
    /// `…-aws-kms-key-id`) was signed out of order and refused.
    func headers(for request: HTTPRequest, time: Int) -> [String] {
        let date = Self.timestamp(time)
        let day = String(date.prefix(8))
        let (host, path, query) = Self.parts(of: request.url)
        var headers: [(name: String, value: String)] = [("host", host), ("x-amz-date", date)]
        for header in request.headers {
            guard let colon = header.firstIndex(of: ":") else { continue }
            let name = header[..<colon].lowercased()
            let value = header[header.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            headers.append((name, value))
        }
        headers.sort { $0.name < $1.name }
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        let payloadHash = headers.first { $0.name == "x-amz-content-sha256" }?.value ?? SHA256.hash(data: Data()).hexString
        let canonicalRequest = [
            request.method, path, Self.canonicalQuery(query),
            headers.map { "\($0.name):\($0.value)\n" }.joined(), signedHeaders, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", date, scope, SHA256.hash(data: Data(canonicalRequest.utf8)).hexString].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)
            .map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return [
            "x-amz-date: \(date)",
            "Authorization: AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)",
        ]
    }

    /// `20261127T143000Z`.
    static func timestamp(_ time: Int) -> String {
        let digits = ISOTime.compact(Date(timeIntervalSince1970: Double(time)))
        return digits.prefix(8) + "T" + digits.suffix(6) + "Z"
    }

    /// The host (with its port when the URL gives one, as libcurl sends
    /// it), the path ("/" when empty) and the query of a URL that
    /// ``ObjectEndpoint`` built: its path and query are already encoded as
    /// SigV4 encodes them.
    static func parts(of url: String) -> (host: String, path: String, query: Substring) {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let host = String(rest[..<hostEnd])
        rest = rest[hostEnd...]
        let queryStart = rest.firstIndex(of: "?")
        let path = queryStart.map { rest[..<$0] } ?? rest
        let query = queryStart.map { rest[rest.index(after: $0)...] } ?? ""
        return (host, path.isEmpty ? "/" : String(path), query)
    }

    /// The query's pairs sorted by name then value, each with its `=`.
    static func canonicalQuery(_ query: Substring) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&").map { pair -> (Substring, Substring) in
            guard let equals = pair.firstIndex(of: "=") else { return (pair, "") }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
}
