import FoundationEssentials

/// Where dbtool finds its key: the AWS SDKs' default credential chain, in
/// botocore's order (the AWS CLI v1, boto3). The first source present wins:
///
/// 1. `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with
///    `AWS_SESSION_TOKEN`), unless `--profile` names a profile;
/// 2. the profile's `role_arn` with `source_profile` or
///    `credential_source` (STS `AssumeRole`);
/// 3. a web identity: `AWS_WEB_IDENTITY_TOKEN_FILE` and `AWS_ROLE_ARN`, or
///    the profile's `web_identity_token_file` and `role_arn` (STS
///    `AssumeRoleWithWebIdentity`);
/// 4. the profile's keys in the shared credentials file, then its
///    `credential_process`, then its keys in the config file;
/// 5. container credentials (ECS, EKS pod identity);
/// 6. the EC2 instance's role (IMDSv2).
///
/// Temporary keys are refreshed ahead of their expiry by the
/// ``CredentialProvider`` the chain returns.
enum CredentialChain {
    /// The provider of the first source present.
    ///
    /// - throws: ``DBToolError`` 77 when no source has a key or one refuses
    ///   (naming it), 64 for a profile that is configured wrong, 75 when a
    ///   configured source does not answer.
    static func provider(_ options: ObjectStoreOptions, profile: AWSProfile, caBundle: String?) throws -> CredentialProvider {
        let environment = options.environment
        // An explicit --profile outranks the key variables, as in botocore;
        // a profile chosen by a variable does not.
        if !profile.isNamedByOption, let keys = environmentKeys(environment) { return CredentialProvider(fixed: keys) }
        let service = { try SecurityTokenService(options, profile: profile, caBundle: caBundle) }
        if let roleArn = profile["role_arn"], profile["source_profile"] != nil || profile["credential_source"] != nil {
            return try assumedRole(roleArn, of: profile, options: options, service: service(), visited: [])
        }
        if let tokenFile = environment.awsVariable("AWS_WEB_IDENTITY_TOKEN_FILE") ?? profile["web_identity_token_file"],
            let roleArn = environment.awsVariable("AWS_ROLE_ARN") ?? profile["role_arn"]
        {
            let sessionName =
                environment.awsVariable("AWS_ROLE_SESSION_NAME") ?? profile["role_session_name"]
                ?? SecurityTokenService.defaultSessionName()
            return try CredentialProvider(
                source: WebIdentityCredentials(
                    roleArn: roleArn, tokenFile: tokenFile, sessionName: sessionName, service: service(),
                    source: "web identity of role \(roleArn) (token \(tokenFile))"))
        }
        if let found = try profileKeys(profile) { return found }
        if let container = try ContainerCredentials(environment: environment, caBundle: caBundle) {
            return try CredentialProvider(source: container)
        }
        var instanceAnswer = "disabled (AWS_EC2_METADATA_DISABLED)"
        if let instance = InstanceMetadataCredentials(environment: environment, profile: profile) {
            do {
                if let first = try instance.fetchIfAvailable() { return CredentialProvider(first: first, source: instance) }
                instanceAnswer = "no metadata service answered at \(instance.endpoint): this machine is not an EC2 instance"
            } catch let noRole as InstanceMetadataCredentials.NoRole {
                instanceAnswer = "the metadata service at \(instance.endpoint) answered, but gives no role (HTTP \(noRole.status))"
            }
        }
        throw noCredentials(environment, profile: profile, instance: instanceAnswer)
    }

    /// Every place the chain looked, in its order, and what each lacked.
    private static func noCredentials(_ environment: [String: String], profile: AWSProfile, instance: String) -> DBToolError {
        let keyVariables = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].filter { environment.awsVariable($0) == nil }
        let sources = [
            "1. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: "
                + (profile.isNamedByOption
                    ? "skipped, --profile outranks them" : "\(keyVariables.joined(separator: " and ")) not set"),
            "2. a role of the \(profile.description) (role_arn with source_profile or credential_source): none",
            "3. a web identity (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN): not set",
            "4. keys of the \(profile.description) in \(profile.credentialsFile), its credential_process, keys in \(profile.configFile): none",
            "5. container credentials (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI): not set",
            "6. the EC2 instance's role: \(instance)",
        ]
        return DBToolError(
            .noPermission, "no credentials for object storage; dbtool looked, in this order:\n  " + sources.joined(separator: "\n  "),
            hint:
                "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile with keys, a credential_process or a role (--profile, AWS_PROFILE)."
        )
    }

    /// The key variables, when both are set.
    static func environmentKeys(_ environment: [String: String]) -> ObjectCredentials? {
        guard let key = environment.awsVariable("AWS_ACCESS_KEY_ID"), let secret = environment.awsVariable("AWS_SECRET_ACCESS_KEY") else {
            return nil
        }
        return ObjectCredentials(
            accessKeyId: key, secretAccessKey: secret, sessionToken: environment.awsVariable("AWS_SESSION_TOKEN"),
            source: "AWS_ACCESS_KEY_ID")
    }

    /// A profile's own keys, in botocore's order: the credentials file's,
    /// then its `credential_process`, then the config file's.
    private static func profileKeys(_ profile: AWSProfile) throws -> CredentialProvider? {
        if let found = staticKeys(profile.credentials, profile: profile, file: profile.credentialsFile) {
            return CredentialProvider(fixed: found)
        }
        if let command = profile.credentials?["credential_process"] ?? profile.config?["credential_process"] {
            return try CredentialProvider(source: ProcessCredentials(command: command, profile: profile))
        }
        if let found = staticKeys(profile.config, profile: profile, file: profile.configFile) {
            return CredentialProvider(fixed: found)
        }
        return nil
    }

    /// The static keys of a profile's section, if it has both.
    private static func staticKeys(_ values: [String: String]?, profile: AWSProfile, file: String) -> ObjectCredentials? {
        guard let values, let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"], !key.isEmpty, !secret.isEmpty
        else { return nil }
        return ObjectCredentials(
            accessKeyId: key, secretAccessKey: secret, sessionToken: values["aws_session_token"],
            source: "\(profile.description) in \(file)")
    }

    /// The role `roleArn` of `profile`, assumed with the keys of its
    /// `source_profile` (itself possibly a role: role chaining) or of its
    /// `credential_source`.
    private static func assumedRole(
        _ roleArn: String, of profile: AWSProfile, options: ObjectStoreOptions, service: SecurityTokenService, visited: Set<String>
    ) throws -> CredentialProvider {
        let environment = options.environment
        let base: CredentialProvider
        if let sourceName = profile["source_profile"] {
            guard !visited.contains(sourceName) else {
                throw DBToolError(
                    .usage, "the source_profile of the \(profile.description) loops back to the profile \(sourceName)",
                    hint: "End the chain of source_profile settings with a profile that has keys.")
            }
            let source = try AWSProfile(
                name: sourceName, selectedBy: "source_profile of the profile \(profile.name)", environment: environment)
            if sourceName != profile.name, let nextRole = source["role_arn"],
                source["source_profile"] != nil || source["credential_source"] != nil
            {
                base = try assumedRole(nextRole, of: source, options: options, service: service, visited: visited.union([profile.name]))
            } else if let found = try profileKeys(source) {
                base = found
            } else {
                throw DBToolError(
                    .noPermission, "the \(source.description) has no keys to assume the role \(roleArn) with",
                    hint: "Give it aws_access_key_id and aws_secret_access_key, or a credential_process.")
            }
        } else {
            base = try credentialSource(profile["credential_source"] ?? "", of: profile, options: options)
        }
        return try CredentialProvider(
            source: AssumedRoleCredentials(
                roleArn: roleArn, sessionName: profile["role_session_name"] ?? SecurityTokenService.defaultSessionName(),
                externalId: profile["external_id"], duration: profile["duration_seconds"].flatMap { Int($0) }, base: base, service: service,
                source: "role \(roleArn) of the \(profile.description), assumed with the \(base)"))
    }

    /// The keys a `credential_source` names.
    private static func credentialSource(_ name: String, of profile: AWSProfile, options: ObjectStoreOptions) throws -> CredentialProvider {
        let environment = options.environment
        switch name {
        case "Environment":
            if let keys = environmentKeys(environment) { return CredentialProvider(fixed: keys) }
        case "EcsContainer":
            if let container = try ContainerCredentials(environment: environment, caBundle: nil) {
                return try CredentialProvider(source: container)
            }
        case "Ec2InstanceMetadata":
            if let instance = InstanceMetadataCredentials(environment: environment, profile: profile) {
                return try CredentialProvider(source: instance)
            }
        default:
            throw DBToolError(
                .usage,
                "the credential_source \(name) of the \(profile.description) is not Environment, EcsContainer or Ec2InstanceMetadata")
        }
        throw DBToolError(.noPermission, "the credential_source \(name) of the \(profile.description) has no keys")
    }
}
