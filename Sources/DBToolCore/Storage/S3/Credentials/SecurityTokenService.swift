import Crypto
import FoundationEssentials

/// AWS STS, for the temporary keys of a role: `AssumeRole` (signed with
/// another key) and `AssumeRoleWithWebIdentity` (unsigned: the token of
/// the identity provider is the proof). Requests go through
/// ``HTTPConnection`` and ``SignatureV4``, as the object store's do.
///
/// The endpoint is `AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL`, the profile's
/// (`sts.endpoint_url` of its services section, its `endpoint_url`), else
/// the regional `https://sts.REGION.amazonaws.com`.
struct SecurityTokenService: Sendable {
    var base: String
    var region: String
    var caBundle: String?

    init(_ options: ObjectStoreOptions, profile: AWSProfile, caBundle: String?) throws {
        region = try ObjectEndpoint.region(options, profile: profile)
        if let given = ObjectEndpoint.configured(service: "sts", options, profile: profile) {
            base = try ObjectEndpoint.checkedBase(given, options)
        } else {
            base = "https://sts.\(region).amazonaws.com"
        }
        self.caBundle = caBundle
    }

    /// The keys of `roleArn`, asked for with `credentials`.
    func assumeRole(
        _ roleArn: String, sessionName: String, externalId: String?, duration: Int?, credentials: ObjectCredentials, source: String
    ) throws -> ObjectCredentials {
        var parameters = [("Action", "AssumeRole"), ("RoleArn", roleArn), ("RoleSessionName", sessionName)]
        if let externalId { parameters.append(("ExternalId", externalId)) }
        if let duration { parameters.append(("DurationSeconds", String(duration))) }
        return try call(parameters, signedWith: credentials, source: source)
    }

    /// The keys of `roleArn` for the holder of the web identity `token`.
    func assumeRoleWithWebIdentity(_ roleArn: String, sessionName: String, token: String, source: String) throws -> ObjectCredentials {
        try call(
            [("Action", "AssumeRoleWithWebIdentity"), ("RoleArn", roleArn), ("RoleSessionName", sessionName), ("WebIdentityToken", token)],
            signedWith: nil, source: source)
    }

    /// A session name when none is configured: dbtool and the time, as
    /// the SDKs name theirs.
    static func defaultSessionName(now: Date = Date()) -> String { "dbtool-\(Int(now.timeIntervalSince1970))" }

    /// Retries after a network error or a 5xx before giving up (75).
    static let retries = 2

    private func call(_ parameters: [(String, String)], signedWith credentials: ObjectCredentials?, source: String) throws -> ObjectCredentials {
        let action = parameters[0].1
        let body = Data(
            (parameters + [("Version", "2011-06-15")]).map { "\(ObjectEndpoint.encode($0.0))=\(ObjectEndpoint.encode($0.1))" }
                .joined(separator: "&").utf8)
        var request = HTTPRequest(method: "POST", url: base + "/")
        request.timeout = 30
        request.headers = [
            "Content-Type: application/x-www-form-urlencoded; charset=utf-8",
            // The hash SigV4 signs: the body is given whole.
            "x-amz-content-sha256: \(SHA256.hash(data: body).hexString)",
        ]
        if let credentials {
            if let token = credentials.sessionToken { request.headers.append("x-amz-security-token: \(token)") }
            request.signing = SignatureV4(
                region: region, service: "sts", accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey)
        }
        let connection = try HTTPConnection(caBundle: caBundle)
        var attempt = 0
        while true {
            try Interruption.check()
            let response: HTTPResponse
            do {
                response = try body.withUnsafeBytes { try connection.perform(request, body: $0) }
            } catch let error as HTTPTransportError {
                guard !error.isUntrustedCertificate, attempt < Self.retries else {
                    throw DBToolError(
                        .tempFail, "no credentials from the \(source): STS at \(base) did not answer (\(error))",
                        hint: "Check the network, and the STS endpoint (AWS_ENDPOINT_URL_STS).")
                }
                attempt += 1
                try Interruption.sleep(seconds: 0.5 * Double(attempt))
                continue
            }
            if response.status >= 500 && attempt < Self.retries {
                attempt += 1
                try Interruption.sleep(seconds: 0.5 * Double(attempt))
                continue
            }
            let document = XMLNode.parse(response.body)
            guard (200..<300).contains(response.status) else {
                // <ErrorResponse><Error> from AWS; other stores nest it in <Errors>.
                let error = document?.child("Error") ?? document?.child("Errors")?.child("Error")
                let said = [error?["Code"], error?["Message"]].compactMap { $0 }.joined(separator: ": ")
                throw DBToolError(
                    response.status >= 500 ? .tempFail : .noPermission,
                    "no credentials from the \(source): STS at \(base) refused \(action) (\(said.isEmpty ? "HTTP \(response.status)" : said))",
                    hint: "Check the role's trust policy and the permissions of what asks for it.")
            }
            guard let found = document?.child("\(action)Result")?.child("Credentials"), let key = found["AccessKeyId"],
                let secret = found["SecretAccessKey"], let token = found["SessionToken"],
                let expiration = found["Expiration"].flatMap(ISOTime.parse)
            else {
                throw DBToolError(.tempFail, "no credentials from the \(source): the reply of STS at \(base) has no credentials")
            }
            return ObjectCredentials(accessKeyId: key, secretAccessKey: secret, sessionToken: token, source: source, expiration: expiration)
        }
    }
}
