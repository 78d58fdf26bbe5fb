import Foundation
import Testing

/// A real S3-API server on loopback (moto, started by scripts/s3-test-server.py
/// with the Python of `make s3-deps`), with a bucket `backups` and a key
/// allowed to use it. Stopped when released.
public final class ObjectStorageServer: @unchecked Sendable {  // immutable after init
    public let endpoint: String
    public let accessKeyId: String
    public let secretAccessKey: String
    private let process: Process
    private let input: Pipe

    /// The package's root (this file is Tests/TestSupport/ObjectStorageServer.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    public static let python = ProcessInfo.processInfo.environment["DBTOOL_S3_PYTHON"] ?? packageRoot + "/.build/s3-venv/bin/python"

    /// The administrator's key (anything allowed), for the tests' set-up.
    public let adminAccessKeyId: String
    public let adminSecretAccessKey: String
    /// A role allowed s3:* that anyone may assume.
    public let roleArn: String

    /// A server; `requestLog` gets a JSON line (`time`, `key`) for each
    /// request under `backups/slow/`, which takes 0.5 s more (a slow link).
    public init(requestLog: String? = nil) throws {
        (process, input, values) = try Self.start("s3-test-server.py", requestLog.map { [$0] } ?? [])
        endpoint = values["endpoint"] ?? ""
        accessKeyId = values["accessKeyId"] ?? ""
        secretAccessKey = values["secretAccessKey"] ?? ""
        adminAccessKeyId = values["adminAccessKeyId"] ?? ""
        adminSecretAccessKey = values["adminSecretAccessKey"] ?? ""
        roleArn = values["roleArn"] ?? ""
    }

    private let values: [String: String]

    /// Starts `scripts/NAME` with the Python of `make s3-deps` and returns
    /// the JSON line it prints once it serves; it stops when `input` closes.
    static func start(_ script: String, _ arguments: [String]) throws -> (Process, Pipe, [String: String]) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "no \(Self.python): run `make s3-deps` first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.packageRoot + "/scripts/" + script] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The JSON line, after whatever the server prints first.
        var buffer = Data()
        var line: [String: String]?
        while line == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            for text in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where text.hasPrefix("{") {
                line = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
            }
        }
        if line == nil {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        return (process, input, try #require(line, "\(script) did not start"))
    }

    deinit {
        stop()
    }

    /// Kills the server at once (the tests of a store that goes away).
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            let deadline = Date(timeIntervalSinceNow: 5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            kill()
        }
    }

    /// The environment dbtool reads: this endpoint and key, and no profile,
    /// shared file, web identity, container or instance role of the machine.
    public var environment: [String: String] {
        [
            "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": accessKeyId, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_SESSION_TOKEN": "",
            "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": "",
            "AWS_CONFIG_FILE": "/nonexistent/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
            "AWS_EC2_METADATA_DISABLED": "true", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
        ]
    }

    /// Runs Python with `s3`, a boto3 client of this server, defined: for
    /// what dbtool does not do (write arbitrary objects, list uploads).
    public func python(_ code: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        let prelude = """
            import boto3, json, sys
            s3 = boto3.client("s3", endpoint_url="\(endpoint)", region_name="us-east-1", \
            aws_access_key_id="\(accessKeyId)", aws_secret_access_key="\(secretAccessKey)")

            """
        process.arguments = ["-c", prelude + code]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python failed: \(code)")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The keys under `prefix` in `backups`.
    public func keys(_ prefix: String) throws -> [String] {
        let text = try python(
            "print(json.dumps([o['Key'] for o in s3.list_objects_v2(Bucket='backups', Prefix='\(prefix)').get('Contents', [])]))")
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String] ?? []
    }

    /// The multipart uploads open under `prefix`.
    public func openUploads(_ prefix: String) throws -> Int {
        Int(try python("print(len(s3.list_multipart_uploads(Bucket='backups', Prefix='\(prefix)').get('Uploads', [])))")) ?? -1
    }
}
