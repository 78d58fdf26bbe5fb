import Foundation
import Testing
import TestSupport

/// An on-premises store behind a private CA: a real S3-API server (moto)
/// over TLS on loopback, its certificate signed by a CA made for the test.
@Suite("Object storage over TLS with a private CA", .serialized)
struct ObjectStorageTLSTests {
    let scratch = TemporaryDirectory()

    /// Runs a program to its end; throws unless it exits 0.
    @discardableResult
    func program(_ path: String, _ arguments: [String]) throws -> String {
        let result = try run(path, arguments)
        try #require(result.status == 0, "\(path) \(arguments): \(result.stderr)")
        return result.stdout
    }

    @Test("https:// endpoints are checked: refused without the CA, trusted with AWS_CA_BUNDLE or --ca-bundle; a missing bundle is 66")
    func privateCA() throws {
        let ca = scratch.file("ca.pem")
        let caKey = scratch.file("ca.key")
        let key = scratch.file("server.key")
        let request = scratch.file("server.csr")
        let certificate = scratch.file("server.pem")
        let extensions = scratch.file("san.cnf")
        try "subjectAltName = IP:127.0.0.1\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        try program("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca, "-days", "2", "-subj", "/CN=dbtool test CA"])
        try program("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"])
        try program(
            "/usr/bin/openssl",
            ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", certificate, "-days", "2", "-extfile", extensions])

        // A free port, then moto on it over TLS (no authentication: any key signs).
        let port = try program(
            ObjectStorageServer.python, ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        // Through exec-unblocked: the test runner's children inherit SIGTERM
        // blocked, and moto would never end.
        let server = Process()
        server.executableURL = workloadURL
        server.arguments = [
            "exec-unblocked", (ObjectStorageServer.python as NSString).deletingLastPathComponent + "/moto_server", "-H", "127.0.0.1", "-p", port,
            "-c", certificate, "-k", key,
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            if !waitUntil(timeout: 5, { !server.isRunning }) { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
        let endpoint = "https://127.0.0.1:\(port)"
        let ready = waitUntil(timeout: 30) {
            (try? run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--cacert", ca, endpoint]))?.status == 0
        }
        try #require(ready, "moto did not start over TLS on \(endpoint)")
        try program("/usr/bin/curl", ["-s", "--cacert", ca, "-X", "PUT", "\(endpoint)/vault"])

        let environment = [
            "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "AKIATLS", "AWS_SECRET_ACCESS_KEY": "tls-secret", "AWS_REGION": "us-east-1",
            "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_CONFIG_FILE": "/nonexistent/config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials",
            "AWS_CA_BUNDLE": "",
        ]
        let database = try scratch.makeDatabase()
        let untrusted = try dbtool(["backup", "--database", database, "--to", "s3://vault/app/"], environment: environment)
        #expect(untrusted.status == 77, "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("is not trusted") && untrusted.stderr.contains("--ca-bundle"), "\(untrusted.stderr)")

        var trusted = environment
        trusted["AWS_CA_BUNDLE"] = ca
        let backup = try dbtool(["backup", "--database", database, "--to", "s3://vault/app/"], environment: trusted)
        #expect(backup.status == 0, "\(backup.stderr)")
        let list = try dbtool(["backup", "list", "s3://vault/app/", "--ca-bundle", ca], environment: environment)
        #expect(list.status == 0 && list.stdout.contains("(latest)"), "\(list.stderr)")
        let restore = try dbtool(["restore", "s3://vault/app/latest", scratch.file("restored"), "--ca-bundle", ca], environment: environment)
        #expect(restore.status == 0, "\(restore.stderr)")

        let missing = try dbtool(["backup", "list", "s3://vault/app/", "--ca-bundle", scratch.file("none.pem")], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("none.pem (from --ca-bundle)"), "\(missing.stderr)")
    }
}
