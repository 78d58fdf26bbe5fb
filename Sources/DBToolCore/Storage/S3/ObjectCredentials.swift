import Foundation

/// The access key dbtool signs requests with, found as the AWS tools find
/// it: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with
/// `AWS_SESSION_TOKEN`), else the profile `AWS_PROFILE` (or `default`) in
/// `~/.aws/credentials` (`AWS_SHARED_CREDENTIALS_FILE`), then in
/// `~/.aws/config` (`AWS_CONFIG_FILE`).
///
/// The secret never appears in a description, a message or a report.
struct ObjectCredentials: Sendable, CustomStringConvertible {
    var accessKeyId: String
    var secretAccessKey: String
    var sessionToken: String?
    /// The profile's `region`, if its config names one.
    var region: String?
    /// Where the key was found, for messages.
    var source: String

    var description: String { "access key \(accessKeyId) (from \(source))" }

    static func resolve(environment: [String: String]) throws -> ObjectCredentials {
        let profile = environment["AWS_PROFILE"] ?? "default"
        let home = environment["HOME"] ?? NSHomeDirectory()
        let credentialsFile = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let configFile = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        let config = try ProfileFile(path: configFile)?.section(profile == "default" ? "default" : "profile \(profile)")
        if let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"], !key.isEmpty, !secret.isEmpty {
            return ObjectCredentials(
                accessKeyId: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
                region: config?["region"], source: "AWS_ACCESS_KEY_ID")
        }
        for (file, section) in [(credentialsFile, profile), (configFile, profile == "default" ? "default" : "profile \(profile)")] {
            guard let values = try ProfileFile(path: file)?.section(section),
                let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"]
            else { continue }
            return ObjectCredentials(
                accessKeyId: key, secretAccessKey: secret, sessionToken: values["aws_session_token"], region: config?["region"],
                source: "profile \(profile) in \(file)")
        }
        throw DBToolError(
            .noPermission, "no credentials for object storage: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the profile \(profile) has no key in \(credentialsFile) or \(configFile)",
            hint: "Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or set AWS_PROFILE to a profile with aws_access_key_id and aws_secret_access_key.")
    }
}

/// An INI file of the AWS tools: `[section]` lines and `key = value` lines.
private struct ProfileFile {
    let sections: [String: [String: String]]

    /// Nil when the file does not exist.
    init?(path: String) throws {
        guard FileSystem.exists(path) else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DBToolError(.noPermission, "can not read \(path)", hint: "Check its permissions.")
        }
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            sections[current, default: [:]][key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        self.sections = sections
    }

    func section(_ name: String) -> [String: String]? { sections[name] }
}
