/// The version of dbtool, printed by `--version` and written in backup manifests.
public enum DBToolVersion {
    /// The version string.
    public static let current = "0.4.0"
}
