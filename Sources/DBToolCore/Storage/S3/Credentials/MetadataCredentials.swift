import FoundationEssentials

/// The keys of an ECS task or an EKS pod identity: the container
/// credentials endpoint, `http://169.254.170.2` +
/// `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`, or
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI` (HTTPS, or HTTP to loopback or to
/// the ECS and EKS agents' addresses only), with the `Authorization` token
/// of `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read at each refresh) or
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN`.
struct ContainerCredentials: CredentialSource {
    var url: String
    var tokenFile: String?
    var token: String?
    var caBundle: String?
    var source: String { "container credentials at \(url)" }

    /// The source the environment configures, or nil when it configures none.
    ///
    /// - throws: ``DBToolError`` 64 for a full URI dbtool must not send a
    ///   token to.
    init?(environment: [String: String], caBundle: String?) throws {
        if let relative = environment.awsVariable("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            url = "http://169.254.170.2" + (relative.hasPrefix("/") ? relative : "/" + relative)
        } else if let full = environment.awsVariable("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            guard let parsed = URL(string: full), let scheme = parsed.scheme?.lowercased(), let host = parsed.host,
                scheme == "https" || (scheme == "http" && Self.allowedPlainHosts(host))
            else {
                throw DBToolError(
                    .usage, "AWS_CONTAINER_CREDENTIALS_FULL_URI \(full) is neither HTTPS nor a loopback or container agent address",
                    hint: "The AWS SDKs refuse it too: the credentials would cross the network unencrypted.")
            }
            url = full
        } else {
            return nil
        }
        tokenFile = environment.awsVariable("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
        token = environment.awsVariable("AWS_CONTAINER_AUTHORIZATION_TOKEN")
        self.caBundle = caBundle
    }

    /// Loopback, and the addresses of the ECS and EKS agents.
    static func allowedPlainHosts(_ host: String) -> Bool {
        ObjectEndpoint.isLoopback(host) || ["169.254.170.2", "169.254.170.23", "fd00:ec2::23", "[fd00:ec2::23]"].contains(host)
    }

    func fetch() throws -> ObjectCredentials {
        var headers: [String] = []
        var authorization = token
        if let tokenFile {
            do {
                let (descriptor, _) = try FileDescriptor.openRegularFile(tokenFile)
                defer { descriptor.close() }
                authorization = String(decoding: try descriptor.readToEnd(limit: 16 * 1024), as: UTF8.self)
                    .trimmingWhitespace()
            } catch {
                throw DBToolError(
                    .noPermission, "no credentials from the \(source): can not read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(tokenFile)")
            }
        }
        if let authorization {
            guard !authorization.contains(where: \.isNewline) else {
                throw DBToolError(.noPermission, "no credentials from the \(source): the authorization token holds a line break")
            }
            headers.append("Authorization: \(authorization)")
        }
        let client = MetadataClient(base: url, caBundle: caBundle, timeout: 5, attempts: 3)
        let response: HTTPResponse
        do {
            response = try client.request("GET", "", headers: headers)
        } catch is MetadataClient.Unreachable {
            throw DBToolError(
                .tempFail, "no credentials from the \(source): it did not answer", hint: "Check that the container agent runs.")
        }
        guard response.status == 200 else {
            throw DBToolError(
                .noPermission, "no credentials from the \(source): it answered HTTP \(response.status)",
                hint: "Check the task's or pod's role, and the authorization token.")
        }
        do {
            return try ObjectCredentials.decode(response.body, source: source)
        } catch {
            throw DBToolError(.noPermission, "no credentials from the \(source): \(error.reason)")
        }
    }
}

/// The keys of an EC2 instance's role, from the instance metadata service
/// with IMDSv2's session token (a `PUT` for the token, then `GET`s with
/// it); IMDSv1 only when the service does not offer tokens. The endpoint is
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT` (or the profile's
/// `ec2_metadata_service_endpoint`), else `http://169.254.169.254`; each
/// request waits `AWS_METADATA_SERVICE_TIMEOUT` seconds (1) and is tried
/// `AWS_METADATA_SERVICE_NUM_ATTEMPTS` times (1), as in the SDKs, so that
/// off EC2 the chain ends quickly. `AWS_EC2_METADATA_DISABLED=true` turns
/// it off.
struct InstanceMetadataCredentials: CredentialSource {
    var endpoint: String
    var timeout: Int
    var attempts: Int
    var source: String { "the instance role of the EC2 metadata service at \(endpoint)" }

    /// The source the environment and the profile configure; nil when
    /// `AWS_EC2_METADATA_DISABLED` is true.
    init?(environment: [String: String], profile: AWSProfile) {
        if environment.awsVariable("AWS_EC2_METADATA_DISABLED")?.lowercased() == "true" { return nil }
        let given = environment.awsVariable("AWS_EC2_METADATA_SERVICE_ENDPOINT") ?? profile["ec2_metadata_service_endpoint"]
        endpoint = given.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "http://169.254.169.254"
        timeout = max(1, environment.awsVariable("AWS_METADATA_SERVICE_TIMEOUT").flatMap { Int($0) } ?? 1)
        attempts = max(1, environment.awsVariable("AWS_METADATA_SERVICE_NUM_ATTEMPTS").flatMap { Int($0) } ?? 1)
    }

    /// Whether the service answers with a role: false when it does not
    /// answer at all (not on EC2), so that the chain can say so.
    func fetchIfAvailable() throws -> ObjectCredentials? {
        do {
            return try fetchOrUnreachable()
        } catch is MetadataClient.Unreachable {
            return nil
        }
    }

    func fetch() throws -> ObjectCredentials {
        do {
            return try fetchOrUnreachable()
        } catch is MetadataClient.Unreachable {
            throw DBToolError(.tempFail, "no credentials from \(source): it did not answer", hint: "Check the instance's metadata options.")
        } catch let noRole as NoRole {
            throw DBToolError(
                .noPermission, "no credentials from \(source): the instance has no role (HTTP \(noRole.status))",
                hint: "Attach an instance profile with a role to the instance, or give dbtool keys another way.")
        }
    }

    /// A metadata service that answered, for an instance without a role
    /// (or a machine that is no EC2 instance and answers at that address).
    struct NoRole: Error {
        var status: Int
    }

    private func fetchOrUnreachable() throws -> ObjectCredentials {
        let client = MetadataClient(base: endpoint, caBundle: nil, timeout: timeout, attempts: attempts)
        var headers: [String] = []
        let token = try client.request("PUT", "/latest/api/token", headers: ["X-aws-ec2-metadata-token-ttl-seconds: 21600"])
        if token.status == 200 {
            headers = ["X-aws-ec2-metadata-token: \(String(decoding: token.body, as: UTF8.self))"]
        } else if ![403, 404, 405].contains(token.status) {
            throw DBToolError(.tempFail, "no credentials from \(source): its token request answered HTTP \(token.status)")
        }
        let path = "/latest/meta-data/iam/security-credentials/"
        let roles = try client.request("GET", path, headers: headers)
        let role = String(decoding: roles.body, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
        guard roles.status == 200, let role, !role.isEmpty else { throw NoRole(status: roles.status) }
        let keys = try client.request("GET", path + ObjectEndpoint.encode(role), headers: headers)
        let source = "role \(role) of the EC2 metadata service at \(endpoint)"
        guard keys.status == 200 else {
            throw DBToolError(.noPermission, "no credentials from the \(source): it answered HTTP \(keys.status)")
        }
        if let code = (try? JSONDecoder().decode(MetadataAnswer.self, from: keys.body))?.Code, code != "Success" {
            throw DBToolError(.noPermission, "no credentials from the \(source): it answered \(code)")
        }
        do {
            return try ObjectCredentials.decode(keys.body, source: source)
        } catch {
            throw DBToolError(.noPermission, "no credentials from the \(source): \(error.reason)")
        }
    }
}

/// Small unsigned requests to a metadata endpoint, with a short timeout
/// and a few attempts.
struct MetadataClient {
    var base: String
    var caBundle: String?
    var timeout: Int
    var attempts: Int

    /// The endpoint did not answer after every attempt.
    struct Unreachable: Error {}

    func request(_ method: String, _ path: String, headers: [String]) throws -> HTTPResponse {
        let connection = try HTTPConnection(caBundle: caBundle)
        var request = HTTPRequest(method: method, url: base + path)
        request.headers = headers
        request.timeout = timeout
        for attempt in 1...attempts {
            try Interruption.check()
            do {
                let response = try connection.perform(request)
                if response.status < 500 || attempt == attempts { return response }
            } catch is HTTPTransportError {
                if attempt == attempts { throw Unreachable() }
            }
            try Interruption.sleep(seconds: 0.2 * Double(attempt))
        }
        throw Unreachable()
    }
}

/// The status field of the metadata service's credentials document.
private struct MetadataAnswer: Decodable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var Code: String?
}
