import Foundation
import Testing

/// The container credentials endpoint and the EC2 instance metadata service
/// (IMDSv2) on loopback (scripts/credential-test-server.py): each answer is
/// a new real key of an IAM user of `storage`, which stops working at its
/// expiry. Stopped when released.
public final class CredentialServer: @unchecked Sendable {  // immutable after init
    /// `http://127.0.0.1:PORT`.
    public let base: String
    /// The Authorization the container endpoint requires.
    public let containerToken = "container-token-\(UInt32.random(in: 0...UInt32.max))"
    private let process: Process
    private let input: Pipe
    private let logPath: String

    /// Keys that live `lifetime` seconds; requests logged in `log`.
    public init(storage: ObjectStorageServer, lifetime: Double = 3600, log: String) throws {
        logPath = log
        let values: [String: String]
        (process, input, values) = try ObjectStorageServer.start(
            "credential-test-server.py",
            [storage.endpoint, storage.adminAccessKeyId, storage.adminSecretAccessKey, String(lifetime), containerToken, log])
        base = "http://127.0.0.1:" + (values["port"] ?? "")
    }

    deinit {
        try? input.fileHandleForWriting.close()
        let deadline = Date(timeIntervalSinceNow: 5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// One request the server answered.
    public struct Request: Decodable, Sendable {
        public var time: Double
        public var method: String
        public var path: String
        public var status: Int
        /// The access key it handed out, if any.
        public var issued: String?
    }

    /// Every request so far, in order.
    public func requests() throws -> [Request] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }
}
