import FoundationEssentials

/// An access key dbtool signs requests with, where it was found, and when
/// it expires (temporary keys: STS, containers, instances, processes).
///
/// The secret never appears in a description, a message or a report.
struct ObjectCredentials: Sendable, CustomStringConvertible {
    var accessKeyId: String
    var secretAccessKey: String
    var sessionToken: String?
    /// Where the key was found, for messages.
    var source: String
    /// When a temporary key stops working; nil for a long-term key.
    var expiration: Date?

    var description: String { "access key \(accessKeyId) (from \(source))" }

    /// The JSON the AWS tools exchange temporary keys in: a
    /// `credential_process`'s output (`Version` 1) and the container and
    /// instance metadata services' replies (`Token` for the session token).
    struct Document: Decodable {
        var version: Int?
        var accessKeyId: String
        var secretAccessKey: String
        var sessionToken: String?
        var token: String?
        var expiration: String?

        enum CodingKeys: String, CodingKey {
            case version = "Version", accessKeyId = "AccessKeyId", secretAccessKey = "SecretAccessKey"
            case sessionToken = "SessionToken", token = "Token", expiration = "Expiration"
        }
    }

    /// The key of a credential ``Document``, or why it is not one.
    ///
    /// - throws: a ``DocumentProblem`` saying what is wrong, for the caller
    ///   to name its source with.
    static func decode(_ data: Data, source: String, now: Date = Date()) throws(DocumentProblem) -> ObjectCredentials {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else {
            throw DocumentProblem("its reply is not the AWS credential JSON")
        }
        guard !document.accessKeyId.isEmpty, !document.secretAccessKey.isEmpty else { throw DocumentProblem("its JSON has an empty key") }
        var expiration: Date?
        if let text = document.expiration {
            guard let date = ISOTime.parse(text) else { throw DocumentProblem("its Expiration \(text) is not an ISO 8601 time") }
            guard date > now else { throw DocumentProblem("its keys expired at \(text)") }
            expiration = date
        }
        return ObjectCredentials(
            accessKeyId: document.accessKeyId, secretAccessKey: document.secretAccessKey,
            sessionToken: (document.sessionToken ?? document.token).flatMap { $0.isEmpty ? nil : $0 }, source: source,
            expiration: expiration)
    }

    /// What is wrong with a credential document.
    struct DocumentProblem: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
