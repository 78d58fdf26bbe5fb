import FoundationEssentials

/// The keys of a role assumed with other keys (`role_arn` with
/// `source_profile` or `credential_source` in a profile): STS `AssumeRole`,
/// asked again before they expire, with the base keys of that moment.
struct AssumedRoleCredentials: CredentialSource {
    var roleArn: String
    var sessionName: String
    var externalId: String?
    var duration: Int?
    var base: CredentialProvider
    var service: SecurityTokenService
    var source: String

    func fetch() throws -> ObjectCredentials {
        try service.assumeRole(
            roleArn, sessionName: sessionName, externalId: externalId, duration: duration, credentials: try base.current(), source: source)
    }
}

/// The keys of a role for the holder of a web identity token (Kubernetes
/// service accounts, EKS): STS `AssumeRoleWithWebIdentity` with the token
/// file's content, read again at each refresh since the cluster rotates it.
struct WebIdentityCredentials: CredentialSource {
    var roleArn: String
    var tokenFile: String
    var sessionName: String
    var service: SecurityTokenService
    var source: String

    func fetch() throws -> ObjectCredentials {
        let token: String
        do {
            let (descriptor, _) = try FileDescriptor.openRegularFile(tokenFile)
            defer { descriptor.close() }
            token = String(decoding: try descriptor.readToEnd(limit: 64 * 1024), as: UTF8.self).trimmingWhitespace()
        } catch {
            let reason = (error as? FileSystemError).map { "\($0.errno)" } ?? "it is not a regular file"
            throw DBToolError(
                .noPermission, "no credentials from the \(source): can not read the token file \(tokenFile): \(reason)",
                hint: "Check AWS_WEB_IDENTITY_TOKEN_FILE (or the profile's web_identity_token_file) and the file's permissions.")
        }
        guard !token.isEmpty else {
            throw DBToolError(.noPermission, "no credentials from the \(source): the token file \(tokenFile) is empty")
        }
        return try service.assumeRoleWithWebIdentity(roleArn, sessionName: sessionName, token: token, source: source)
    }
}
