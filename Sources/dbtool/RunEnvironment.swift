import FoundationEssentials

/// The environment variables a run takes its defaults from
/// (`$DBTOOL_DATABASE`, `$DBTOOL_MIGRATIONS`, `$DBTOOL_PASSPHRASE`,
/// `$DBTOOL_MIGRATE_SNAPSHOT`): the process's own, or those a parse test
/// binds for its task, so that the fallbacks are tested in process without
/// changing the environment every other test shares.
enum RunEnvironment {
    /// Every variable, by name.
    @TaskLocal static var variables: [String: String] = ProcessInfo.processInfo.environment

    /// The variable `name`, or nil when it is unset or empty (an empty
    /// variable is no default, as in the shell's `${NAME:-...}`).
    static func value(_ name: String) -> String? {
        variables[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
