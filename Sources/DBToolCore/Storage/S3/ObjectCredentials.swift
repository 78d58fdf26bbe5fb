import Foundation

/// The access key dbtool signs requests with, found as botocore (the AWS
/// CLI v1, boto3) finds it: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`
/// (with `AWS_SESSION_TOKEN`) unless `--profile` names a profile, else the
/// profile's keys in the shared credentials file, then in the config file
/// (see ``AWSProfile`` for which profile).
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
        if profile.selectedBy != "--profile", let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"],
            !key.isEmpty, !secret.isEmpty
        {
            return ObjectCredentials(
                accessKeyId: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
                source: "AWS_ACCESS_KEY_ID")
        }
        for (file, values) in [(profile.credentialsFile, profile.credentials), (profile.configFile, profile.config)] {
            guard let values, let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else { continue }
            return ObjectCredentials(
                accessKeyId: key, secretAccessKey: secret, sessionToken: values["aws_session_token"], source: "\(profile.description) in \(file)")
        }
        throw DBToolError(
            .noPermission,
            "no credentials for object storage: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the \(profile.description) has no key in \(profile.credentialsFile) or \(profile.configFile)",
            hint: "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a profile with aws_access_key_id and aws_secret_access_key (--profile, AWS_PROFILE).")
    }
}
