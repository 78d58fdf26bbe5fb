import ArgumentParser
import DBToolCore
import FoundationEssentials

/// Where the passphrase of an encrypted archive comes from: a file, a
/// command, or $DBTOOL_PASSPHRASE; never an argument, which `ps` shows.
struct PassphraseOptions: ParsableArguments {
    @Option(name: .long, help: "The file whose first line is the passphrase (a pipe works: <(pass show backup)).", completion: .file(),
        transform: nonEmptyPath)
    var passphraseFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A command that prints the passphrase, run without a shell (default: $DBTOOL_PASSPHRASE when set).", valueName: "command"))
    var passphraseCommand: String?

    func validate() throws {
        if passphraseFile != nil && passphraseCommand != nil {
            throw ValidationError("--passphrase-file and --passphrase-command exclude each other: give one")
        }
    }

    /// Whether an option names a source (the variable aside).
    var isGiven: Bool { passphraseFile != nil || passphraseCommand != nil }

    /// Whether a passphrase will be found: an option, or the variable.
    var isAvailable: Bool { isGiven || Passphrase.isSet(in: RunEnvironment.variables) }

    /// The passphrase, read from its source; nil when none is given.
    func passphrase() throws -> String? {
        try Passphrase.resolve(file: passphraseFile, command: passphraseCommand, environment: RunEnvironment.variables)
    }
}
