import DatabaseKit
import Foundation
import TestSupport
import Testing

/// The credential chain end to end: the built binary against real servers
/// on loopback — moto for S3 and STS (authentication on: a key it does not
/// know, or an expired one, is refused), and the container credentials and
/// IMDSv2 protocols of scripts/credential-test-server.py, whose every key
/// is a real key of moto that stops working at its expiry.
@Suite("Credentials: web identity, roles, containers, instances, refresh", .serialized)
struct CredentialChainTests {
    let server: ObjectStorageServer
    let scratch = TemporaryDirectory()
    let database: String

    init() throws {
        server = try ObjectStorageServer(requestLog: scratch.file("slow-requests.log"))
        database = try scratch.makeDatabase()
    }

    /// The server's environment without any key: each test adds one source.
    var keyless: [String: String] {
        var environment = server.environment
        environment["AWS_ACCESS_KEY_ID"] = ""
        environment["AWS_SECRET_ACCESS_KEY"] = ""
        return environment
    }

    /// Runs Python with `iam`, a boto3 client of the administrator.
    func admin(_ code: String) throws -> String {
        let prelude = """
            import boto3, json
            iam = boto3.client("iam", endpoint_url="\(server.endpoint)", region_name="us-east-1", \
            aws_access_key_id="\(server.adminAccessKeyId)", aws_secret_access_key="\(server.adminSecretAccessKey)")

            """
        let result = try run(ObjectStorageServer.python, ["-c", prelude + code])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A user allowed only `actions`, and its key (id, secret).
    func user(allowed actions: [String]) throws -> (String, String) {
        let name = "user-\(UInt32.random(in: 0...UInt32.max))"
        let policy = #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": \#(actions), "Resource": "*"}]}"#
        let output = try admin(
            """
            iam.create_user(UserName="\(name)")
            iam.put_user_policy(UserName="\(name)", PolicyName="p", PolicyDocument='\(policy)')
            k = iam.create_access_key(UserName="\(name)")["AccessKey"]
            print(k["AccessKeyId"], k["SecretAccessKey"])
            """)
        let parts = output.split(separator: " ").map(String.init)
        try #require(parts.count == 2)
        return (parts[0], parts[1])
    }

    func backup(_ prefix: String, _ environment: [String: String], extra: [String] = []) throws -> ToolResult {
        try dbtool(["backup", "--database", database, "--to", "s3://backups/\(prefix)/"] + extra, environment: environment)
    }

    @Test("web identity: the token file and AWS_ROLE_ARN give the role's keys through STS; an unreadable token is 77 naming it")
    func webIdentity() throws {
        let token = scratch.file("token")
        try "eyJhbGciOiJSUzI1NiJ9.pod-token.signature\n".write(toFile: token, atomically: true, encoding: .utf8)
        var environment = keyless
        environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = token
        environment["AWS_ROLE_ARN"] = server.roleArn
        environment["AWS_ROLE_SESSION_NAME"] = "pod-7"
        let result = try backup("wi", environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.keys("wi/").count == 2)

        environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = scratch.file("no-such-token")
        let missing = try backup("wi", environment)
        #expect(missing.status == 77, "\(missing.stderr)")
        #expect(
            missing.stderr.contains("web identity of role \(server.roleArn)") && missing.stderr.contains("no-such-token"),
            "\(missing.stderr)")
    }

    @Test("role_arn + source_profile: a key that may only assume the role gets S3 through it; a bad source key is refused naming the role")
    func assumeRole() throws {
        // The source key may call sts:AssumeRole and nothing else: a backup
        // that works was signed with the role's keys.
        let (key, secret) = try user(allowed: ["sts:AssumeRole"])
        let config = """
            [profile ops]
            role_arn = \(server.roleArn)
            source_profile = base
            role_session_name = nightly
            [profile chained]
            role_arn = \(server.roleArn)
            source_profile = ops
            [profile broken]
            role_arn = \(server.roleArn)
            source_profile = wrong
            [profile loop]
            role_arn = \(server.roleArn)
            source_profile = loop2
            [profile loop2]
            role_arn = \(server.roleArn)
            source_profile = loop
            """
        let credentials = """
            [base]
            aws_access_key_id = \(key)
            aws_secret_access_key = \(secret)
            [wrong]
            aws_access_key_id = \(key)
            aws_secret_access_key = not-the-secret
            """
        try config.write(toFile: scratch.file("config"), atomically: true, encoding: .utf8)
        try credentials.write(toFile: scratch.file("credentials"), atomically: true, encoding: .utf8)
        var environment = keyless
        environment["AWS_CONFIG_FILE"] = scratch.file("config")
        environment["AWS_SHARED_CREDENTIALS_FILE"] = scratch.file("credentials")

        let direct = try dbtool(
            ["backup", "--database", database, "--to", "s3://backups/direct/"],
            environment: environment.merging([
                "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
            ]) { $1 })
        #expect(direct.status == 77, "the source key alone may not use S3: \(direct.stderr)")

        for profile in ["ops", "chained"] {
            let result = try backup("role-\(profile)", environment, extra: ["--profile", profile])
            #expect(result.status == 0, "\(profile): \(result.stderr)")
            #expect(try server.keys("role-\(profile)/").count == 2)
        }
        let broken = try backup("role-broken", environment, extra: ["--profile", "broken"])
        #expect(broken.status == 77, "\(broken.stderr)")
        #expect(broken.stderr.contains("role \(server.roleArn) of the profile broken"), "\(broken.stderr)")
        #expect(!broken.stderr.contains("not-the-secret"))
        let loop = try backup("role-loop", environment, extra: ["--profile", "loop"])
        #expect(loop.status == 64 && loop.stderr.contains("loops back"), "\(loop.stderr)")
    }

    @Test("container credentials: the full URI with the token file's Authorization; a wrong token is 77; a remote plain URI is refused")
    func container() throws {
        let credentials = try CredentialServer(storage: server, log: scratch.file("container.log"))
        try credentials.containerToken.write(toFile: scratch.file("container-token"), atomically: true, encoding: .utf8)
        var environment = keyless
        environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = credentials.base + "/container/credentials"
        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = scratch.file("container-token")
        let result = try backup("container", environment)
        #expect(result.status == 0, "\(result.stderr)")
        let requests = try credentials.requests()
        #expect(requests.count == 1 && requests.first?.issued != nil, "\(requests)")

        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = ""
        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "stolen"
        let refused = try backup("container", environment)
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("container credentials at \(credentials.base)/container/credentials"), "\(refused.stderr)")

        environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://198.51.100.7/credentials"
        let remote = try backup("container", environment)
        #expect(remote.status == 64, "\(remote.stderr)")
    }

    @Test("IMDSv2: a session token first, then the role and its keys with it")
    func instanceMetadata() throws {
        let credentials = try CredentialServer(storage: server, log: scratch.file("imds.log"))
        var environment = keyless
        environment["AWS_EC2_METADATA_DISABLED"] = ""
        environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = credentials.base
        let result = try backup("imds", environment)
        #expect(result.status == 0, "\(result.stderr)")
        let requests = try credentials.requests()
        #expect(
            requests.map { "\($0.method) \($0.path) \($0.status)" } == [
                "PUT /latest/api/token 200", "GET /latest/meta-data/iam/security-credentials/ 200",
                "GET /latest/meta-data/iam/security-credentials/instance-role 200",
            ], "\(requests)")

        // Off EC2 (nothing answers), the chain ends with the error that lists every source.
        environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = "http://127.0.0.1:9"
        let none = try backup("imds", environment)
        #expect(none.status == 77 && none.stderr.contains("dbtool looked, in this order:"), "\(none.stderr)")
        #expect(
            none.stderr.contains("1. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY not set"),
            "\(none.stderr)")
        #expect(none.stderr.contains("6. the EC2 instance's role: no metadata service answered at http://127.0.0.1:9"), "\(none.stderr)")
        #expect(!none.stderr.contains("instance profile"), "no advice for an EC2 instance off EC2: \(none.stderr)")
    }

    @Test("the chain's order: of two sources present, the earlier wins and the later is never asked")
    func order() throws {
        let credentials = try CredentialServer(storage: server, log: scratch.file("order.log"))
        try credentials.containerToken.write(toFile: scratch.file("container-token"), atomically: true, encoding: .utf8)
        let container = [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": credentials.base + "/container/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": scratch.file("container-token"),
        ]
        let instance = ["AWS_EC2_METADATA_DISABLED": "", "AWS_EC2_METADATA_SERVICE_ENDPOINT": credentials.base]
        try "[default]\naws_access_key_id = \(server.accessKeyId)\naws_secret_access_key = \(server.secretAccessKey)\n"
            .write(toFile: scratch.file("credentials"), atomically: true, encoding: .utf8)
        let profile = ["AWS_SHARED_CREDENTIALS_FILE": scratch.file("credentials")]
        try "token-of-the-pod".write(toFile: scratch.file("token"), atomically: true, encoding: .utf8)
        let webIdentity = ["AWS_WEB_IDENTITY_TOKEN_FILE": scratch.file("token"), "AWS_ROLE_ARN": server.roleArn]

        // (earlier, later): the later one is the credential server's.
        let cases: [(String, [String: String], [String: String])] = [
            ("variables before the container", server.environment, container),
            ("web identity before the container", keyless.merging(webIdentity) { $1 }, container),
            ("the profile's keys before the instance", keyless.merging(profile) { $1 }, instance),
            ("the container before the instance", keyless, container.merging(instance) { $1 }),
        ]
        for (index, (name, earlier, later)) in cases.enumerated() {
            let before = try credentials.requests().count
            let result = try backup("order-\(index)", earlier.merging(later) { $1 })
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let asked = try credentials.requests().dropFirst(before)
            if name.hasPrefix("the container") {
                #expect(asked.map(\.path) == ["/container/credentials"], "\(name): \(Array(asked))")
            } else {
                #expect(asked.isEmpty, "\(name): \(Array(asked))")
            }
        }
    }

    @Test("temporary keys that expire during a long upload are refreshed ahead of their expiry; each expired key stops working")
    func refreshDuringUpload() throws {
        let lifetime = 2.0
        let credentials = try CredentialServer(storage: server, lifetime: lifetime, log: scratch.file("refresh.log"))
        try credentials.containerToken.write(toFile: scratch.file("container-token"), atomically: true, encoding: .utf8)
        // Random pages: an archive of about 30 MB, in parts of 5 MiB, one at
        // a time, over the server's slow link (0.5 s a request).
        let grow = try dbtool([
            "exec", "--database", database,
            "CREATE TABLE noise(b); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30) INSERT INTO noise SELECT randomblob(1000000) FROM n",
        ])
        #expect(grow.status == 0, "\(grow.stderr)")
        var environment = keyless
        environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = credentials.base + "/container/credentials"
        environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = scratch.file("container-token")
        let started = Date()
        let result = try backup(
            "slow/refresh", environment, extra: ["--archive-format", "tar", "--part-size", "5", "--upload-threads", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        let issued = try credentials.requests().filter { $0.issued != nil }
        // The upload outlived several keys: each was replaced before it expired.
        try #require(elapsed > 2 * lifetime, "the upload took \(elapsed) s: too short to outlive a key")
        #expect(issued.count >= Int(elapsed / lifetime), "\(issued.count) keys in \(elapsed) s")
        // Every request of the upload was signed with a key that had not expired.
        let expiry = Dictionary(issued.map { ($0.issued ?? "", $0.time + lifetime) }) { first, _ in first }
        let text = try String(contentsOfFile: scratch.file("slow-requests.log"), encoding: .utf8)
        let requests = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(requests.count > 5)
        for request in requests {
            let key = request["key"] as? String ?? ""
            let time = request["time"] as? Double ?? 0
            #expect(time < (expiry[key] ?? 0), "a request at \(time) was signed with \(key), expired at \(expiry[key] ?? 0)")
        }
        let restore = try dbtool(
            ["restore", "s3://backups/slow/refresh/latest", scratch.file("restored")], environment: server.environment)
        #expect(restore.status == 0, "\(restore.stderr)")
    }
}
