import Foundation

/// The access key dbtool signs requests with, found as botocore (the AWS
/// CLI v1, boto3) finds it: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`
/// (with `AWS_SESSION_TOKEN`) unless `--profile` names a profile, else the
/// profile's keys in the shared credentials file, then what its
/// `credential_process` prints, then its keys in the config file (see
/// ``AWSProfile`` for which profile).
///
/// The secret never appears in a description, a message or a report.
struct ObjectCredentials: Sendable, CustomStringConvertible {
    var accessKeyId: String
    var secretAccessKey: String
    var sessionToken: String?
    /// Where the key was found, for messages.
    var source: String

    var description: String { "access key \(accessKeyId) (from \(source))" }

    static func resolve(profile: AWSProfile, environment: [String: String]) throws -> ObjectCredentials {
        // An explicit --profile outranks the key variables, as in botocore;
        // a profile chosen by a variable does not.
        if !profile.isNamedByOption, let key = environment.awsVariable("AWS_ACCESS_KEY_ID"),
            let secret = environment.awsVariable("AWS_SECRET_ACCESS_KEY")
        {
            return ObjectCredentials(
                accessKeyId: key, secretAccessKey: secret, sessionToken: environment.awsVariable("AWS_SESSION_TOKEN"),
                source: "AWS_ACCESS_KEY_ID")
        }
        // botocore's order: the credentials file's keys, then a
        // credential_process, then the config file's keys.
        if let found = staticKeys(profile.credentials, profile: profile, file: profile.credentialsFile) { return found }
        if let command = profile.credentials?["credential_process"] ?? profile.config?["credential_process"] {
            return try fromProcess(command, profile: profile)
        }
        if let found = staticKeys(profile.config, profile: profile, file: profile.configFile) { return found }
        throw DBToolError(
            .noPermission,
            "no credentials for object storage: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the \(profile.description) has no key in \(profile.credentialsFile) or \(profile.configFile)",
            hint:
                "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile with aws_access_key_id and aws_secret_access_key (--profile, AWS_PROFILE)."
        )
    }

    /// The static keys of a profile's section, if it has both.
    private static func staticKeys(_ values: [String: String]?, profile: AWSProfile, file: String) -> ObjectCredentials? {
        guard let values, let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else { return nil }
        return ObjectCredentials(
            accessKeyId: key, secretAccessKey: secret, sessionToken: values["aws_session_token"],
            source: "\(profile.description) in \(file)")
    }

    /// The keys a profile's `credential_process` prints: the command run
    /// without a shell (its words split as a shell splits them), its
    /// output the AWS tools' JSON (`Version` 1, `AccessKeyId`,
    /// `SecretAccessKey`, optional `SessionToken` and `Expiration`).
    ///
    /// - throws: ``DBToolError`` 77 naming the command and the profile when
    ///   it can not run, fails, prints something else, or expired keys.
    static func fromProcess(_ command: String, profile: AWSProfile, now: Date = Date()) throws -> ObjectCredentials {
        let source = "credential_process of the \(profile.description)"
        func refusal(_ reason: String) -> DBToolError {
            DBToolError(
                .noPermission, "no credentials from the \(source) (\(command)): \(reason)",
                hint: "Run the command by hand: it must print the AWS tools' credential JSON (Version 1).")
        }
        guard let words = ShellWords.split(command), !words.isEmpty else { throw refusal("it is not a command line") }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(words, outputLimit: 64 * 1024)
        } catch let error as FileSystemError {
            if error.errno == .interrupted { throw Interruption.error }
            throw refusal("it can not run: \(error.errno)")
        }
        guard outcome.status == 0 else { throw refusal("it exited with status \(outcome.status)") }
        struct Output: Decodable {
            var version: Int
            var accessKeyId: String
            var secretAccessKey: String
            var sessionToken: String?
            var expiration: String?

            enum CodingKeys: String, CodingKey {
                case version = "Version", accessKeyId = "AccessKeyId", secretAccessKey = "SecretAccessKey"
                case sessionToken = "SessionToken", expiration = "Expiration"
            }
        }
        guard let output = try? JSONDecoder().decode(Output.self, from: Data(outcome.output)) else {
            throw refusal("its output is not the credential JSON")
        }
        guard output.version == 1 else { throw refusal("its JSON has Version \(output.version), not 1") }
        guard !output.accessKeyId.isEmpty, !output.secretAccessKey.isEmpty else { throw refusal("its JSON has an empty key") }
        if let expiration = output.expiration {
            guard let date = ISO8601DateFormatter().date(from: expiration) else {
                throw refusal("its Expiration \(expiration) is not an ISO 8601 time")
            }
            guard date > now else { throw refusal("its keys expired at \(expiration)") }
        }
        return ObjectCredentials(
            accessKeyId: output.accessKeyId, secretAccessKey: output.secretAccessKey, sessionToken: output.sessionToken, source: source)
    }
}
