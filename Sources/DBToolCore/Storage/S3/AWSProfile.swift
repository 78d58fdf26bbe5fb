import FoundationEssentials

/// The profile of the AWS shared files that applies, chosen as botocore
/// (the AWS CLI v1, boto3) chooses it: `--profile`, else
/// `AWS_DEFAULT_PROFILE`, else `AWS_PROFILE`, else `default`. A profile
/// named explicitly must exist in `~/.aws/credentials`
/// (`AWS_SHARED_CREDENTIALS_FILE`) or `~/.aws/config` (`AWS_CONFIG_FILE`):
/// signing with another account's keys, or sending backups to another
/// endpoint, must never be the silent fallback of a typo.
struct AWSProfile: Sendable {
    /// The profile's name.
    let name: String
    /// What selected it, for messages: `--profile`, a variable, or nothing.
    let selectedBy: String?
    /// The shared credentials file, and the profile's section there.
    let credentialsFile: String
    let credentials: [String: String]?
    /// The config file, and the profile's section there (`[profile NAME]`,
    /// or `[default]`).
    let configFile: String
    let config: [String: String]?
    /// The `[services NAME]` section the profile's `services` names: keys
    /// such as `s3.endpoint_url`.
    let services: [String: String]?

    /// The profile selected by `option` (`--profile`) or `environment`.
    init(option: String?, environment: [String: String]) throws {
        if let option {
            try self.init(name: option, selectedBy: "--profile", environment: environment)
        } else if let value = environment.awsVariable("AWS_DEFAULT_PROFILE") {
            try self.init(name: value, selectedBy: "AWS_DEFAULT_PROFILE", environment: environment)
        } else if let value = environment.awsVariable("AWS_PROFILE") {
            try self.init(name: value, selectedBy: "AWS_PROFILE", environment: environment)
        } else {
            try self.init(name: "default", selectedBy: nil, environment: environment)
        }
    }

    /// The profile `name`, which must exist when `selectedBy` names what
    /// chose it (an option, a variable, another profile's `source_profile`).
    init(name: String, selectedBy: String?, environment: [String: String]) throws {
        let home = environment["HOME"] ?? SystemProcess.homeDirectory ?? "/"
        credentialsFile = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        configFile = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        (self.name, self.selectedBy) = (name, selectedBy)
        guard !name.isEmpty else {
            throw DBToolError(.usage, "\(selectedBy ?? "--profile") is empty", hint: "Name a profile of \(configFile).")
        }
        let configSections = try ProfileFile(path: configFile)
        credentials = try ProfileFile(path: credentialsFile)?.sections[name]
        config = configSections?.sections[name == "default" ? "default" : "profile \(name)"]
        services = config?["services"].flatMap { configSections?.sections["services \($0)"] }
        if let selectedBy, credentials == nil, config == nil {
            throw DBToolError(
                .usage, "the profile \(name) (from \(selectedBy)) is in neither \(credentialsFile) nor \(configFile)",
                hint: "Check its name, or unset \(selectedBy) to use the default profile.")
        }
    }

    /// Whether `--profile` named it: then it outranks the key variables.
    var isNamedByOption: Bool { selectedBy == "--profile" }

    /// How messages name the profile.
    var description: String { "profile \(name)" + (selectedBy.map { " (from \($0))" } ?? "") }

    /// The profile's `region`.
    var region: String? { config?["region"] }

    /// The endpoint the profile configures for `service` (`s3`, `sts`): its
    /// services section's `SERVICE.endpoint_url`, else its own
    /// `endpoint_url`; none when the profile sets
    /// `ignore_configured_endpoint_urls`.
    func endpoint(service: String) -> String? {
        if ignoresConfiguredEndpoints { return nil }
        return services?["\(service).endpoint_url"] ?? config?["endpoint_url"]
    }

    /// A setting of the profile: the credentials file's, else the config
    /// file's (`role_arn`, `source_profile`...).
    subscript(_ key: String) -> String? {
        credentials?[key].flatMap { $0.isEmpty ? nil : $0 } ?? config?[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the profile turns configured endpoints off (variables included).
    var ignoresConfiguredEndpoints: Bool { config?["ignore_configured_endpoint_urls"]?.lowercased() == "true" }
}

/// An INI file of the AWS tools: `[section]` lines, `key = value` lines, and
/// indented `key = value` lines under a key with no value, stored as
/// `parent.key` (`s3 =` then `  endpoint_url = …` gives `s3.endpoint_url`).
struct ProfileFile {
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
        self.init(text: text)
    }

    /// Parses the text of a file.
    init(text: String) {
        var sections: [String: [String: String]] = [:]
        var current: String?
        var parent: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingSpaces()
                parent = nil
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces().lowercased()
            let value = line[line.index(after: equals)...].trimmingSpaces()
            if indented, let parent {
                sections[current, default: [:]]["\(parent).\(key)"] = value
                continue
            }
            parent = value.isEmpty ? key : nil
            sections[current, default: [:]][key] = value
        }
        self.sections = sections
    }
}

extension [String: String] {
    /// The AWS variable `name`, nil when unset or empty: the AWS tools read
    /// an empty variable as an unset one.
    func awsVariable(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
