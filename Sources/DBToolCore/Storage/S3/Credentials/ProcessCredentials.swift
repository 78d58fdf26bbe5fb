import FoundationEssentials

/// A profile's `credential_process`: the command run without a shell (its
/// words split as a shell splits them), its output the AWS tools' JSON
/// (`Version` 1, `AccessKeyId`, `SecretAccessKey`, optional `SessionToken`
/// and `Expiration`). Run again before the keys it printed expire.
struct ProcessCredentials: CredentialSource {
    var command: String
    var source: String

    init(command: String, profile: AWSProfile) {
        self.command = command
        source = "credential_process of the \(profile.description)"
    }

    /// - throws: ``DBToolError`` 77 naming the command and the profile when
    ///   it can not run, fails, prints something else, or expired keys.
    func fetch() throws -> ObjectCredentials {
        func refusal(_ reason: String) -> DBToolError {
            DBToolError(
                .noPermission, "no credentials from the \(source) (\(command)): \(reason)",
                hint: "Run the command by hand: it must print the AWS tools' credential JSON (Version 1).")
        }
        guard let words = ShellWords.split(command), !words.isEmpty else { throw refusal("it is not a command line") }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(words, outputLimit: 64 * 1024)
        } catch let error as FileSystemError {
            if error.errno == .interrupted { throw Interruption.error }
            throw refusal("it can not run: \(error.errno)")
        }
        guard outcome.status == 0 else { throw refusal("it exited with status \(outcome.status)") }
        let output = Data(outcome.output)
        if let version = (try? JSONDecoder().decode(ProcessAnswer.self, from: output))?.Version, version != 1 {
            throw refusal("its JSON has Version \(version), not 1")
        }
        do {
            return try ObjectCredentials.decode(output, source: source)
        } catch {
            throw refusal(error.reason)
        }
    }
}

/// The version field of a `credential_process` program's output.
private struct ProcessAnswer: Decodable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var Version: Int?
}
