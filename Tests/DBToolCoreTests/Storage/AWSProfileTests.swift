import Foundation
import Testing
import TestSupport

@testable import DBToolCore

/// Which profile, key, region and endpoint the shared AWS files give, in
/// botocore's order (checked against boto3 itself in `AWSProfileEndToEndTests`).
@Suite("AWS profiles and endpoints")
struct AWSProfileTests {
    let scratch = TemporaryDirectory()

    /// Writes the two shared files and returns the environment naming them.
    func files(config: String, credentials: String) throws -> [String: String] {
        try config.write(toFile: scratch.file("config"), atomically: true, encoding: .utf8)
        try credentials.write(toFile: scratch.file("credentials"), atomically: true, encoding: .utf8)
        return ["AWS_CONFIG_FILE": scratch.file("config"), "AWS_SHARED_CREDENTIALS_FILE": scratch.file("credentials"), "HOME": scratch.path]
    }

    static let config = """
        [default]
        region = us-east-1
        [profile prod]
        region = eu-west-3
        endpoint_url = https://prod.example.com
        [profile svc]
        services = local
        endpoint_url = https://outranked.example.com
        [services local]
        s3 =
          endpoint_url = https://minio.example.com:9000
        sts =
          endpoint_url = https://sts.example.com
        [profile quiet]
        endpoint_url = https://prod.example.com
        ignore_configured_endpoint_urls = true
        """
    static let credentials = """
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default-secret
        [prod]
        aws_access_key_id = AKIAPROD
        aws_secret_access_key = prod-secret
        """

    func resolve(_ environment: [String: String], option: String? = nil) throws -> (AWSProfile, ObjectCredentials?, ObjectEndpoint) {
        var options = ObjectStoreOptions(environment: try files(config: Self.config, credentials: Self.credentials).merging(environment) { $1 })
        options.profile = option
        let profile = try AWSProfile(option: option, environment: options.environment)
        options.environment["AWS_EC2_METADATA_DISABLED"] = "true"
        let credentials = try? CredentialChain.provider(options, profile: profile, caBundle: nil).current()
        return (profile, credentials, try ObjectEndpoint(options, profile: profile))
    }

    @Test("AWS_DEFAULT_PROFILE outranks AWS_PROFILE, --profile outranks both and the key variables; a variable's profile does not")
    func selection() throws {
        #expect(try resolve([:]).0.name == "default")
        #expect(try resolve(["AWS_PROFILE": "prod"]).1?.accessKeyId == "AKIAPROD")
        let both = try resolve(["AWS_DEFAULT_PROFILE": "prod", "AWS_PROFILE": "default"])
        #expect(both.0.name == "prod" && both.0.selectedBy == "AWS_DEFAULT_PROFILE")
        #expect(both.1?.accessKeyId == "AKIAPROD" && both.2.region == "eu-west-3")
        let keys = ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]
        #expect(try resolve(keys.merging(["AWS_PROFILE": "prod"]) { $1 }).1?.accessKeyId == "AKIAENV")
        let explicit = try resolve(keys.merging(["AWS_PROFILE": "default"]) { $1 }, option: "prod")
        #expect(explicit.1?.accessKeyId == "AKIAPROD" && explicit.1?.source.contains("profile prod (from --profile)") == true)
        #expect(try resolve(["AWS_PROFILE": ""]).0.name == "default", "an empty variable is unset")
    }

    @Test("a profile named but found nowhere is a usage error naming it and what named it, even with keys in the environment")
    func missingProfile() throws {
        let keys = ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]
        for (environment, option, source) in [
            (["AWS_PROFILE": "prdo"], nil, "AWS_PROFILE"), (["AWS_DEFAULT_PROFILE": "prdo"], nil, "AWS_DEFAULT_PROFILE"), ([:], "prdo", "--profile"),
        ] as [([String: String], String?, String)] {
            let error = #expect(throws: DBToolError.self) { try resolve(keys.merging(environment) { $1 }, option: option) }
            #expect(error?.status == .usage)
            #expect(error?.message.contains("profile prdo (from \(source))") == true, "\(String(describing: error))")
        }
    }

    @Test("endpoints: --endpoint, then the variables, then the services section, then the profile's endpoint_url; ignore turns configured ones off")
    func endpoints() throws {
        #expect(try resolve(["AWS_PROFILE": "prod"]).2.base == "https://prod.example.com")
        #expect(try resolve(["AWS_PROFILE": "svc"]).2.base == "https://minio.example.com:9000")
        #expect(try resolve(["AWS_PROFILE": "prod", "AWS_ENDPOINT_URL": "https://env.example.com"]).2.base == "https://env.example.com")
        #expect(
            try resolve(["AWS_PROFILE": "prod", "AWS_ENDPOINT_URL": "https://env.example.com", "AWS_ENDPOINT_URL_S3": "https://s3env.example.com"]).2
                .base == "https://s3env.example.com")
        #expect(try resolve(["AWS_PROFILE": "prod", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"]).2.base == "https://s3.eu-west-3.amazonaws.com")
        #expect(
            try resolve(["AWS_PROFILE": "quiet", "AWS_ENDPOINT_URL": "https://env.example.com"]).2.base == "https://s3.us-east-1.amazonaws.com")
        var options = ObjectStoreOptions(environment: try files(config: Self.config, credentials: Self.credentials).merging(["AWS_PROFILE": "quiet"]) { $1 })
        options.endpoint = "https://given.example.com"
        #expect(try ObjectEndpoint(options, profile: AWSProfile(option: nil, environment: options.environment)).base == "https://given.example.com")
        #expect(try resolve([:]).2.base == "https://s3.us-east-1.amazonaws.com")
    }

    @Test("nested keys of the shared files belong to their parent; a top-level key after them does not")
    func nestedKeys() {
        let file = ProfileFile(text: "[services x]\ns3 =\n  endpoint_url = https://a\n\taddressing_style = path\nregion = r\n  stray = 1\n")
        #expect(file.sections["services x"]?["s3.endpoint_url"] == "https://a")
        #expect(file.sections["services x"]?["s3.addressing_style"] == "path")
        #expect(file.sections["services x"]?["region"] == "r")
        #expect(file.sections["services x"]?["endpoint_url"] == nil)
    }

    @Test("credential_process: the AWS tools' JSON gives the key; another version, bad JSON, expired keys or a failure is 77")
    func credentialProcess() throws {
        let environment = try files(config: Self.config, credentials: Self.credentials)
        let profile = try AWSProfile(option: "prod", environment: environment)
        func run(_ json: String) throws -> ObjectCredentials {
            let script = scratch.file("print-\(abs(json.hashValue))")
            try "#!/bin/sh\ncat <<'EOF'\n\(json)\nEOF\n".write(toFile: script, atomically: true, encoding: .utf8)
            chmod(script, 0o700)
            return try ProcessCredentials(command: "'\(script)'", profile: profile).fetch()
        }
        let good = try run(#"{"Version": 1, "AccessKeyId": "AKIAPROC", "SecretAccessKey": "s", "SessionToken": "t"}"#)
        #expect(good.accessKeyId == "AKIAPROC" && good.sessionToken == "t")
        #expect(good.description == "access key AKIAPROC (from credential_process of the profile prod (from --profile))")
        for json in [
            #"{"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "s"}"#, "not json",
            #"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "Expiration": "2001-01-01T00:00:00Z"}"#,
            #"{"Version": 1, "AccessKeyId": "", "SecretAccessKey": "s"}"#,
        ] {
            let error = #expect(throws: DBToolError.self, "\(json)") { try run(json) }
            #expect(error?.status == .noPermission)
            #expect(error?.message.contains("credential_process of the profile prod") == true, "\(String(describing: error))")
        }
        let failing = #expect(throws: DBToolError.self) { try ProcessCredentials(command: "false", profile: profile).fetch() }
        #expect(failing?.message.contains("exited with status 1") == true, "\(String(describing: failing))")
        let missing = #expect(throws: DBToolError.self) { try ProcessCredentials(command: "no-such-credential-helper", profile: profile).fetch() }
        #expect(missing?.status == .noPermission)
    }
}
