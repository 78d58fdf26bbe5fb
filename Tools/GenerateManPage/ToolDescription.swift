/// The part of ArgumentParser's tool description (`dbtool
/// --experimental-dump-help`, serialization version 0) that the man page
/// shows. ArgumentParser does not export its own types for it.
struct ToolDescription: Decodable {
    var command: Command

    struct Command: Decodable {
        var commandName: String
        var abstract: String?
        var discussion: String?
        var defaultSubcommand: String?
        var shouldDisplay: Bool?
        var arguments: [Argument]?
        var subcommands: [Command]?
    }

    struct Argument: Decodable {
        var kind: Kind
        var shouldDisplay: Bool
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var defaultValue: String?
        var isRepeating: Bool?

        enum Kind: String, Decodable { case positional, option, flag }
    }

    struct Name: Decodable {
        var kind: String
        var name: String

        /// `--name` or `-n`, as typed.
        var typed: String { kind == "long" ? "--" + name : "-" + name }
    }
}
