import FoundationEssentials

/// Reads the parts of a Litestream configuration file into a
/// ``LitestreamConfig``, collecting warnings for what dbtool does not use.
struct ConfigReader {
    let file: String
    private var warnings: [String] = []

    init(file: String) {
        self.file = file
    }

    /// Keys of the top level, of a database and of a replica dbtool reads.
    static let globalKeys = Set(["dbs", "snapshot", "levels", "shutdown-sync-timeout", "dbtool"]).union(replicaSettingKeys)
    static let databaseKeys: Set<String> = ["path", "replica", "replicas", "min-checkpoint-page-count", "snapshot", "dbtool"]
    static let replicaSettingKeys: Set<String> = [
        "access-key-id", "secret-access-key", "region", "endpoint", "bucket", "force-path-style", "sync-interval",
    ]
    static let replicaKeys: Set<String> = replicaSettingKeys.union(["type", "url", "path", "retention", "snapshot-interval"])
    /// Litestream settings dbtool does without, and why that is harmless.
    static let ignored: [String: String] = [
        "addr": "dbtool serves no HTTP; metrics go to --metrics-file", "mcp-addr": "dbtool serves no MCP",
        "socket": "dbtool has no control socket", "exec": "run the application under its own unit",
        "logging": "dbtool logs to stderr (--log-format)", "validation": "check replicas with `dbtool replicate verify`",
        "validation-interval": "check replicas with `dbtool replicate verify`",
        "l0-retention": "dbtool keeps level-0 files for the whole retention window",
        "l0-retention-check-interval": "dbtool keeps level-0 files for the whole retention window",
        "verify-compaction": "dbtool checks every compacted file as it writes it", "retention": "retention always runs in dbtool",
        "heartbeat-url": "monitor dbtool_replicate_updated_timestamp_seconds instead",
        "heartbeat-interval": "monitor dbtool_replicate_updated_timestamp_seconds instead",
        "shutdown-sync-interval": "dbtool's last sync is one sync", "max-sync-ltx-files": "dbtool uploads the whole outbox each sync",
        "auto-recover": "dbtool ships a full image when the replica lost its place", "skip-verify": "use --ca-bundle for a private CA",
        "storage-class": "dbtool stores objects in the bucket's default class", "part-size": "dbtool sizes its parts itself",
        "concurrency": "dbtool uploads one file at a time per database", "sign-payload": "dbtool always signs the payload",
        "require-content-md5": "dbtool sends checksums of its own", "name": "a replica's name is not used",
        "meta-path": "dbtool keeps its state beside the database", "meta-dir": "dbtool keeps its state beside the database",
        "monitor-interval": "dbtool reads the WAL every sync-interval", "checkpoint-interval": "dbtool checkpoints by WAL size",
        "busy-timeout": "dbtool waits --timeout", "truncate-page-n": "dbtool truncates the WAL at its checkpoints",
        "max-sync-wal-bytes": "dbtool bounds the outbox (--outbox-limit)",
        "restore-if-db-not-exists": "run `dbtool restore --if-db-not-exists` before the service starts",
    ]
    /// Settings whose absence would change what is stored or where: refused.
    static let refused: [String: String] = [
        "sse-customer-algorithm": "server-side encryption settings", "sse-customer-key": "server-side encryption settings",
        "sse-customer-key-path": "server-side encryption settings", "sse-kms-key-id": "server-side encryption settings",
        "age": "age encryption", "dir": "a directory of databases", "pattern": "a directory of databases",
        "recursive": "a directory of databases", "watch": "a directory of databases",
    ]

    mutating func read(_ root: ConfigMapping) throws -> LitestreamConfig {
        try checkKeys(root, known: Self.globalKeys, where: "at the top level")
        let defaults = try replicaSettings(root)
        let globalTool = try dbtoolSettings(root)
        var snapshotInterval: Double?
        var retention: Double?
        if let snapshot = try root.mapping("snapshot") {
            try checkKeys(snapshot, known: ["interval", "retention"], where: "in snapshot")
            snapshotInterval = try positive(snapshot, "interval")
            retention = try positive(snapshot, "retention")
        }
        var levels: [Double]?
        if let nodes = try root.sequence("levels") {
            levels = try nodes.map { node in
                let level = try ConfigMapping(node, file: file, what: "each of levels")
                try checkKeys(level, known: ["interval"], where: "in levels")
                guard let interval = try positive(level, "interval") else {
                    throw DBToolError(.usage, "\(file):\(level.line): each of levels takes an interval (30s, 5m, 1h)")
                }
                return interval
            }
            if let levels, !(1...8).contains(levels.count) || zip(levels, levels.dropFirst()).contains(where: { $0 >= $1 }) {
                throw DBToolError(.usage, "\(file): levels takes 1 to 8 intervals, each longer than the one before")
            }
        }
        guard let nodes = try root.sequence("dbs"), !nodes.isEmpty else {
            throw DBToolError(.usage, "\(file) lists no databases: give them under dbs:, each with its path")
        }
        var databases: [LitestreamConfig.Database] = []
        for node in nodes {
            databases.append(try database(try ConfigMapping(node, file: file, what: "each of dbs"), defaults: defaults, tool: globalTool))
        }
        for (index, database) in databases.enumerated() where databases[..<index].contains(where: { $0.path == database.path }) {
            throw DBToolError(.usage, "\(file):\(database.line): \(database.path) is listed twice under dbs")
        }
        return LitestreamConfig(
            file: file, databases: databases, snapshotInterval: snapshotInterval, retention: retention, compactionLevels: levels,
            shutdownTimeout: try root.duration("shutdown-sync-timeout"), warnings: warnings)
    }

    private mutating func database(
        _ entry: ConfigMapping, defaults: LitestreamConfig.Replica, tool: LitestreamConfig.DBToolSettings
    ) throws -> LitestreamConfig.Database {
        try checkKeys(entry, known: Self.databaseKeys, where: "in a database")
        guard let path = try entry.string("path"), !path.isEmpty else {
            throw DBToolError(.usage, "\(file):\(entry.line): a database under dbs has no path")
        }
        var replicas: [ConfigMapping] = try entry.mapping("replica").map { [$0] } ?? []
        for node in try entry.sequence("replicas") ?? [] { replicas.append(try ConfigMapping(node, file: file, what: "each of replicas")) }
        guard replicas.count <= 1 else {
            throw DBToolError(
                .usage, "\(file):\(entry.line): \(path) has \(replicas.count) replicas: dbtool replicates a database to one",
                hint: "Keep one replica per database (Litestream 0.5 takes one too, under replica:).")
        }
        let checkpointPages = try entry.int("min-checkpoint-page-count")
        if let checkpointPages, checkpointPages < 1 {
            throw DBToolError(.usage, "\(file):\(entry.line): min-checkpoint-page-count takes a positive number of pages")
        }
        if let snapshot = try entry.mapping("snapshot") {
            try checkKeys(snapshot, known: [], where: "in a database's snapshot (set snapshot: at the top level)")
        }
        return LitestreamConfig.Database(
            path: path, line: entry.line, replica: try replicas.first.map { try replica($0, defaults: defaults) },
            checkpointPages: checkpointPages.map(Int64.init), dbtool: tool.overridden(by: try dbtoolSettings(entry)))
    }

    private mutating func replica(_ entry: ConfigMapping, defaults: LitestreamConfig.Replica) throws -> LitestreamConfig.Replica {
        try checkKeys(entry, known: Self.replicaKeys, where: "in a replica")
        var replica = try replicaSettings(entry)
        replica.endpoint = replica.endpoint ?? defaults.endpoint
        replica.region = replica.region ?? defaults.region
        if replica.accessKeyID == nil { (replica.accessKeyID, replica.secretAccessKey) = (defaults.accessKeyID, defaults.secretAccessKey) }
        replica.syncInterval = replica.syncInterval ?? defaults.syncInterval
        replica.retention = try positive(entry, "retention")
        replica.snapshotInterval = try positive(entry, "snapshot-interval")
        let type = try entry.string("type")
        if let url = try entry.string("url") {
            replica.location = try location(url: url, line: entry.line, replica: &replica)
        } else {
            switch type ?? "file" {
            case "s3":
                guard let bucket = try entry.string("bucket") ?? defaults.location.nilIfEmpty else {
                    throw DBToolError(.usage, "\(file):\(entry.line): an s3 replica needs its bucket")
                }
                let prefix = (try entry.string("path") ?? "").trimming("/")
                replica.location = "s3://\(bucket)/" + (prefix.isEmpty ? "" : prefix + "/")
            case "file":
                guard let path = try entry.string("path"), !path.isEmpty else {
                    throw DBToolError(.usage, "\(file):\(entry.line): a file replica needs its path (a directory)")
                }
                replica.location = path
            case let other:
                throw DBToolError(
                    .usage, "\(file):\(entry.line): dbtool replicates to s3 (and S3-compatible stores) or a directory, not \(other)",
                    hint: "Use an S3-compatible endpoint of the same provider (GCS, Azure and others offer one), with endpoint:.")
            }
        }
        return replica
    }

    /// The replica settings a mapping gives (the top level's are everyone's defaults).
    private func replicaSettings(_ mapping: ConfigMapping) throws -> LitestreamConfig.Replica {
        let accessKey = try mapping.string("access-key-id")
        let secretKey = try mapping.string("secret-access-key")
        if (accessKey == nil) != (secretKey == nil) {
            throw DBToolError(.usage, "\(file):\(mapping.line): access-key-id and secret-access-key go together: give both, or neither")
        }
        _ = try mapping.bool("force-path-style")  // dbtool addresses S3-compatible endpoints by path
        return LitestreamConfig.Replica(
            location: try mapping.string("bucket") ?? "", endpoint: try mapping.string("endpoint"), region: try mapping.string("region"),
            accessKeyID: accessKey, secretAccessKey: secretKey, syncInterval: try positive(mapping, "sync-interval"))
    }

    /// `s3://BUCKET/PREFIX?endpoint=…&region=…` or `file:///PATH`.
    private mutating func location(url: String, line: Int, replica: inout LitestreamConfig.Replica) throws -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme else {
            throw DBToolError(.usage, "\(file):\(line): url \(url) is not a URL (s3://BUCKET/PREFIX or file:///PATH)")
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "endpoint": replica.endpoint = item.value
            case "region": replica.region = item.value
            case "forcePathStyle": break
            default: warnings.append("\(file):\(line): the url's \(item.name) is not used by dbtool")
            }
        }
        switch scheme {
        case "s3":
            guard let bucket = components.host, !bucket.isEmpty else {
                throw DBToolError(.usage, "\(file):\(line): url \(url) names no bucket (s3://BUCKET/PREFIX)")
            }
            let prefix = components.path.trimming("/")
            return "s3://\(bucket)/" + (prefix.isEmpty ? "" : prefix + "/")
        case "file":
            return components.path
        default:
            throw DBToolError(
                .usage, "\(file):\(line): dbtool replicates to s3:// (and S3-compatible stores) or a directory, not \(scheme)://",
                hint: "Use an S3-compatible endpoint of the same provider, with endpoint:.")
        }
    }

    /// The `dbtool:` section of a mapping.
    private mutating func dbtoolSettings(_ mapping: ConfigMapping) throws -> LitestreamConfig.DBToolSettings {
        guard let section = try mapping.mapping("dbtool") else { return LitestreamConfig.DBToolSettings() }
        let keys = ["metrics-file", "keep-last", "keep-hourly", "keep-daily", "keep-weekly", "keep-monthly", "keep-yearly", "keep-within"]
        try checkKeys(section, known: Set(keys), where: "in dbtool")
        var settings = LitestreamConfig.DBToolSettings()
        settings.metricsFile = try section.string("metrics-file")
        func count(_ key: String) throws -> Int? {
            guard let value = try section.int(key) else { return nil }
            guard value >= 1 else { throw DBToolError(.usage, "\(file):\(section.line): \(key) takes 1 or more (got \(value))") }
            return value
        }
        var within: KeepWithin?
        if let text = try section.string("keep-within") {
            guard let parsed = KeepWithin(text) else {
                throw DBToolError(.usage, "\(file):\(section.line): keep-within takes a span such as 7d or 1y2m (got \(text))")
            }
            within = parsed
        }
        settings.retention = RetentionPolicy(
            last: try count("keep-last"), hourly: try count("keep-hourly"), daily: try count("keep-daily"),
            weekly: try count("keep-weekly"), monthly: try count("keep-monthly"), yearly: try count("keep-yearly"), within: within)
        return settings
    }

    private func positive(_ mapping: ConfigMapping, _ key: String) throws -> Double? {
        guard let seconds = try mapping.duration(key) else { return nil }
        guard seconds > 0 else { throw DBToolError(.usage, "\(file):\(mapping.line): \(key) takes a duration above 0") }
        return seconds
    }

    /// Warns about the keys dbtool does not use; refuses those it can not honour.
    private mutating func checkKeys(_ mapping: ConfigMapping, known: Set<String>, where place: String) throws {
        for (key, line) in mapping.keys where !known.contains(key) {
            if let what = Self.refused[key] {
                throw DBToolError(
                    .usage,
                    "\(file):\(line): \(key) (\(what)) is not something dbtool can honour: it refuses the file rather than ignore it",
                    hint: "Remove the setting, or keep Litestream for this database.")
            }
            if let why = Self.ignored[key] {
                warnings.append("\(file):\(line): \(key) is not used by dbtool (\(why))")
            } else {
                warnings.append("\(file):\(line): unknown key \(key) \(place): ignored")
            }
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
