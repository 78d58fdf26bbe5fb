import FoundationEssentials

/// A Litestream configuration file (`litestream.yml`), as `dbtool replicate
/// --config` and the fleet commands read it: the databases (`dbs:`, each with
/// its `path` and one `replica`), the replica settings Litestream shares
/// between them, snapshots and compaction levels, and an optional `dbtool:`
/// section (global or per database) that Litestream itself ignores.
///
/// Environment variables (`$NAME`, `${NAME}`) are expanded first, as
/// Litestream does. A key dbtool does not use is a warning naming its line,
/// never ignored silently; one whose absence would change what is stored
/// (encryption settings, another kind of store) is refused (64), as is a
/// value of the wrong type.
public struct LitestreamConfig: Sendable {
    /// One database of `dbs:`.
    public struct Database: Sendable {
        /// The database file or directory, as written (environment expanded).
        public var path: String
        /// Where its `path` is, in the file.
        public var line: Int
        /// Its replica; nil when it has none (the fleet commands still run on it).
        public var replica: Replica?
        /// `min-checkpoint-page-count`: `replicate --checkpoint-pages`.
        public var checkpointPages: Int64?
        /// The `dbtool:` settings of this database over the global ones.
        public var dbtool: DBToolSettings
    }

    /// A database's replica.
    public struct Replica: Sendable {
        /// `s3://BUCKET/PREFIX/` or a directory.
        public var location: String
        /// `endpoint`: an S3-compatible store's URL.
        public var endpoint: String?
        /// `region`.
        public var region: String?
        /// `access-key-id` and `secret-access-key`, which go together.
        public var accessKeyID: String?
        public var secretAccessKey: String?
        /// `sync-interval`.
        public var syncInterval: TimeInterval?
        /// `retention` of a Litestream 0.3 replica: how far back a restore goes.
        public var retention: TimeInterval?
        /// `snapshot-interval` of a Litestream 0.3 replica.
        public var snapshotInterval: TimeInterval?

        /// `base` with this replica's endpoint, region and keys: keys given
        /// here outrank the environment's and its profiles.
        public func objectStore(over base: ObjectStoreOptions) -> ObjectStoreOptions {
            var options = base
            if let endpoint { options.endpoint = endpoint }
            if let region { options.region = region }
            if let accessKeyID, let secretAccessKey {
                for name in ["AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"] { options.environment[name] = nil }
                options.profile = nil
                options.environment["AWS_ACCESS_KEY_ID"] = accessKeyID
                options.environment["AWS_SECRET_ACCESS_KEY"] = secretAccessKey
            }
            return options
        }
    }

    /// The `dbtool:` section: what Litestream's keys do not say.
    public struct DBToolSettings: Sendable, Equatable {
        /// `metrics-file`: the `--metrics-file` of the commands run on the database.
        public var metricsFile: String?
        /// `keep-last`, `keep-hourly`…`keep-yearly`, `keep-within`: `backup`'s retention.
        public var retention = RetentionPolicy()

        /// These settings with `other`'s where it says something.
        func overridden(by other: DBToolSettings) -> DBToolSettings {
            var merged = self
            if let file = other.metricsFile { merged.metricsFile = file }
            let policy = other.retention
            merged.retention = RetentionPolicy(
                last: policy.last ?? retention.last, hourly: policy.hourly ?? retention.hourly, daily: policy.daily ?? retention.daily,
                weekly: policy.weekly ?? retention.weekly, monthly: policy.monthly ?? retention.monthly,
                yearly: policy.yearly ?? retention.yearly, within: policy.within ?? retention.within)
            return merged
        }
    }

    /// The file read.
    public var file: String
    /// `dbs:`, in the file's order.
    public var databases: [Database]
    /// `snapshot.interval` (a replica's `snapshot-interval` outranks it).
    public var snapshotInterval: TimeInterval?
    /// `snapshot.retention`: how far back a restore can go.
    public var retention: TimeInterval?
    /// `levels:`' intervals: the compaction levels from 1 up.
    public var compactionLevels: [TimeInterval]?
    /// `shutdown-sync-timeout`.
    public var shutdownTimeout: TimeInterval?
    /// What dbtool does not use, with the line: to print as warnings.
    public var warnings: [String]

    /// The database whose path resolves to `location`'s, if the file lists it.
    public func database(at location: DatabaseLocation) -> Database? {
        databases.first { (try? DatabaseLocation(path: $0.path, fileName: location.fileName))?.filePath == location.filePath }
    }

    /// Reads the file at `path`.
    ///
    /// - throws: ``DBToolError`` 66 when it is missing, 64 when it is not
    ///   YAML, a value has the wrong type, or a setting dbtool can not honour
    ///   is there (each naming the file and the line).
    public static func read(
        _ path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        processID: Int32 = ProcessInfo.processInfo.processIdentifier
    ) throws -> LitestreamConfig {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.contents(path)
        } catch let error as FileSystemError where error.errno == .noSuchFileOrDirectory {
            throw DBToolError(.noInput, "no configuration file at \(path)", hint: "Check --config (Litestream's is /etc/litestream.yml).")
        } catch let error as FileSystemError {
            throw error.reported(hint: "Check --config and its permissions.")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DBToolError(.usage, "\(path) is not UTF-8 text: --config takes a YAML file such as /etc/litestream.yml")
        }
        let expanded = EnvironmentExpansion.expand(text, environment: environment, processID: processID)
        let root: YAMLNode?
        do {
            root = try YAMLParser.compose(expanded)
        } catch {
            throw DBToolError(.usage, "\(path) is not YAML: \(error)", hint: "Check the indentation near the line named.")
        }
        guard let root else { throw DBToolError(.usage, "\(path) is empty: it lists no databases under dbs:") }
        var reader = ConfigReader(file: path)
        return try reader.read(try ConfigMapping(root, file: path, what: "the file"))
    }
}
