import Foundation
import Testing
import TestSupport

/// Profiles and configured endpoints end to end: dbtool against the real
/// S3-API server, and boto3 (botocore, as the AWS CLI v1) asked, with the
/// same environment and files, which key and endpoint it would use.
@Suite("AWS profiles, as botocore chooses them", .serialized)
struct AWSProfileEndToEndTests {
    let server: ObjectStorageServer
    let scratch = TemporaryDirectory()
    let base: [String: String]

    init() throws {
        server = try ObjectStorageServer()
        let config = """
            [default]
            endpoint_url = \(server.endpoint)
            [profile prod]
            endpoint_url = \(server.endpoint)
            [profile svc]
            services = local
            [services local]
            s3 =
              endpoint_url = \(server.endpoint)
            [profile elsewhere]
            endpoint_url = http://127.0.0.1:9
            [profile process]
            endpoint_url = \(server.endpoint)
            credential_process = "\(scratch.file("credentials.sh"))" good
            [profile badprocess]
            endpoint_url = \(server.endpoint)
            credential_process = "\(scratch.file("credentials.sh"))" fail
            """
        let credentials = """
            [default]
            aws_access_key_id = AKIAWRONGDEFAULT
            aws_secret_access_key = wrong-default-secret
            [prod]
            aws_access_key_id = \(server.accessKeyId)
            aws_secret_access_key = \(server.secretAccessKey)
            [svc]
            aws_access_key_id = \(server.accessKeyId)
            aws_secret_access_key = \(server.secretAccessKey)
            [elsewhere]
            aws_access_key_id = \(server.accessKeyId)
            aws_secret_access_key = \(server.secretAccessKey)
            """
        // A credential_process as the AWS tools run it: its first argument
        // says whether to print the good key or to fail.
        let script = """
            #!/bin/sh
            [ "$1" = good ] || { echo "vault sealed" >&2; exit 3; }
            printf '{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s", "Expiration": "2099-01-01T00:00:00Z"}' \
              "\(server.accessKeyId)" "\(server.secretAccessKey)"

            """
        try script.write(toFile: scratch.file("credentials.sh"), atomically: true, encoding: .utf8)
        chmod(scratch.file("credentials.sh"), 0o700)
        try config.write(toFile: scratch.file("config"), atomically: true, encoding: .utf8)
        try credentials.write(toFile: scratch.file("credentials"), atomically: true, encoding: .utf8)
        var environment = server.environment
        environment["AWS_ENDPOINT_URL"] = ""
        environment["AWS_ACCESS_KEY_ID"] = ""
        environment["AWS_SECRET_ACCESS_KEY"] = ""
        environment["AWS_CONFIG_FILE"] = scratch.file("config")
        environment["AWS_SHARED_CREDENTIALS_FILE"] = scratch.file("credentials")
        base = environment
    }

    /// The access key and endpoint boto3 resolves with `environment`.
    func boto3(_ environment: [String: String], profile: String? = nil) throws -> (key: String, endpoint: String) {
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // boto3 reads an empty variable as a value: unset the empty ones.
        for (name, value) in environment where value.isEmpty { merged[name] = nil }
        let session = profile.map { "boto3.Session(profile_name='\($0)')" } ?? "boto3.Session()"
        let result = try run(
            ObjectStorageServer.python,
            ["-c", "import boto3\ns = \(session)\nprint(s.get_credentials().access_key, s.client('s3').meta.endpoint_url)"],
            environment: merged)
        let words = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(result.status == 0 && words.count == 2, "boto3: \(result.stderr)")
        return (words[0], words[1])
    }

    @Test(
        "AWS_DEFAULT_PROFILE, AWS_PROFILE, --profile and configured endpoints choose the key and endpoint boto3 chooses",
        arguments: [
            (["AWS_DEFAULT_PROFILE": "prod"], nil, 0, "prod"),
            (["AWS_DEFAULT_PROFILE": "default", "AWS_PROFILE": "prod"], nil, 77, "profile default (from AWS_DEFAULT_PROFILE)"),
            (["AWS_PROFILE": "svc"], nil, 0, "svc"),
            (["AWS_PROFILE": "elsewhere"], nil, 75, "127.0.0.1:9"),
            (["AWS_PROFILE": "elsewhere", "AWS_ENDPOINT_URL": "SERVER"], nil, 0, "env endpoint"),
            (["AWS_ACCESS_KEY_ID": "AKIAWRONGENV", "AWS_SECRET_ACCESS_KEY": "wrong"], "prod", 0, "--profile over the keys"),
            (["AWS_ACCESS_KEY_ID": "AKIAWRONGENV", "AWS_SECRET_ACCESS_KEY": "wrong", "AWS_PROFILE": "prod"], nil, 77, "AWS_ACCESS_KEY_ID"),
            (["AWS_PROFILE": "process"], nil, 0, "credential_process"),
            ([:], "badprocess", 77, "credential_process of the profile badprocess (from --profile)"),
        ] as [([String: String], String?, Int32, String)])
    func chain(variables: [String: String], profile: String?, status: Int32, expected: String) throws {
        var environment = base.merging(variables) { $1 }
        if environment["AWS_ENDPOINT_URL"] == "SERVER" { environment["AWS_ENDPOINT_URL"] = server.endpoint }
        let arguments = ["backup", "list", "s3://backups/profiles/", "--retries", "0"] + (profile.map { ["--profile", $0] } ?? [])
        let result = try dbtool(arguments, environment: environment)
        #expect(result.status == status, "\(variables) \(profile ?? ""): \(result.stderr)")
        if status != 0 { #expect(result.stderr.contains(expected), "\(result.stderr)") }
        #expect(!(result.stdout + result.stderr).contains(server.secretAccessKey))

        // boto3 picks the same key and endpoint: the good key where dbtool
        // succeeded (boto3 fails as dbtool does on the failing process).
        if profile == "badprocess" { return }
        let chosen = try boto3(environment, profile: profile)
        if status == 0 {
            #expect(chosen.key == server.accessKeyId && chosen.endpoint == server.endpoint, "boto3 chose \(chosen)")
        } else if status == 75 {
            #expect(chosen.endpoint == "http://127.0.0.1:9", "boto3 chose \(chosen)")
        } else {
            #expect(chosen.key != server.accessKeyId, "boto3 chose \(chosen)")
        }
    }

    @Test("a profile that exists nowhere is 64 naming it, as the AWS CLI refuses it, whatever else is set")
    func missing() throws {
        var environment = base
        environment["AWS_PROFILE"] = "prdo"
        environment["AWS_ACCESS_KEY_ID"] = server.accessKeyId
        environment["AWS_SECRET_ACCESS_KEY"] = server.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = server.endpoint
        let result = try dbtool(["backup", "list", "s3://backups/profiles/"], environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("profile prdo (from AWS_PROFILE)"))
    }
}
