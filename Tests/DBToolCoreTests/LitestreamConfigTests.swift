import DBToolCore
import Foundation
import TestSupport
import Testing

/// Litestream's configuration file as dbtool reads it: what it takes, what
/// it warns about (with the line), what it refuses.
@Suite("Litestream configuration file")
struct LitestreamConfigTests {
    let scratch = TemporaryDirectory()

    private func read(_ text: String, environment: [String: String] = [:]) throws -> LitestreamConfig {
        let file = scratch.file("litestream-\(UUID().uuidString).yml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try LitestreamConfig.read(file, environment: environment, processID: 42)
    }

    @Test("global replica settings reach each replica; durations, URLs and the environment read as Litestream reads them")
    func settings() throws {
        let config = try read(
            """
            access-key-id: AKID
            secret-access-key: ${SECRET}
            region: eu-west-3
            sync-interval: 2s
            snapshot:
              interval: 1h30m
              retention: 72h
            levels:
              - interval: 1m
              - interval: 10m
            dbs:
              - path: /srv/$APP/db.sqlite
                replica:
                  url: s3://bucket/app?endpoint=http://127.0.0.1:9000
              - path: /srv/pid-$PID.db
                min-checkpoint-page-count: 500
                replicas:
                  - type: s3
                    bucket: other
                    path: /nested/prefix/
                    sync-interval: 250ms
                    region: us-east-2
              - path: /srv/local.db
                replica:
                  path: /mnt/replica
            """, environment: ["SECRET": "s3cr3t", "APP": "shop"])
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.databases.map(\.path) == ["/srv/shop/db.sqlite", "/srv/pid-42.db", "/srv/local.db"])
        let first = try #require(config.databases[0].replica)
        #expect(first.location == "s3://bucket/app/" && first.endpoint == "http://127.0.0.1:9000" && first.region == "eu-west-3")
        #expect(first.accessKeyID == "AKID" && first.secretAccessKey == "s3cr3t" && first.syncInterval == 2)
        let second = try #require(config.databases[1].replica)
        #expect(second.location == "s3://other/nested/prefix/" && second.region == "us-east-2" && second.syncInterval == 0.25)
        #expect(config.databases[1].checkpointPages == 500)
        #expect(config.databases[2].replica?.location == "/mnt/replica")
        #expect(config.snapshotInterval == 5400 && config.retention == 72 * 3600 && config.compactionLevels == [60, 600])
        let options = first.objectStore(over: ObjectStoreOptions(environment: ["AWS_PROFILE": "prod", "AWS_SESSION_TOKEN": "t"]))
        #expect(options.environment["AWS_ACCESS_KEY_ID"] == "AKID" && options.environment["AWS_PROFILE"] == nil)
        #expect(options.environment["AWS_SESSION_TOKEN"] == nil && options.endpoint == "http://127.0.0.1:9000")
    }

    @Test("keys dbtool does not use are warnings naming their line; the dbtool section merges over the global one")
    func warningsAndSections() throws {
        let config = try read(
            """
            addr: ":9090"
            dbtool:
              keep-daily: 7
              metrics-file: /var/lib/node_exporter/textfile/dbtool.prom
            dbs:
              - path: /srv/a.db
                busy-timeout: 1s
                colour: blue
                dbtool:
                  keep-daily: 14
                  keep-weekly: 4
            """)
        #expect(config.warnings.count == 3, "\(config.warnings)")
        #expect(config.warnings[0].hasSuffix(":1: addr is not used by dbtool (dbtool serves no HTTP; metrics go to --metrics-file)"))
        #expect(config.warnings.contains { $0.contains(":7: busy-timeout is not used by dbtool") })
        #expect(config.warnings.contains { $0.contains(":8: unknown key colour in a database: ignored") })
        let settings = config.databases[0].dbtool
        #expect(settings.retention.daily == 14 && settings.retention.weekly == 4 && settings.retention.last == nil)
        #expect(settings.metricsFile == "/var/lib/node_exporter/textfile/dbtool.prom")
        #expect(config.databases[0].replica == nil)
    }

    @Test(
        "a wrong type, a store dbtool does not speak, encryption it can not honour: 64 naming the line",
        arguments: [
            ("dbs: /srv/a.db\n", ":1: dbs takes a list"),
            ("dbs:\n  - path: /a\n    replica:\n      url: s3://b/p\n      sync-interval: 1\n", ":5: sync-interval takes a duration"),
            ("dbs:\n  - path: /a\n    replica:\n      url: s3://b/p\n      sync-interval: {a: 1}\n", ":5: sync-interval takes a duration"),
            ("dbs:\n  - path: /a\n    replica:\n      type: gcs\n      bucket: b\n", ":4: dbtool replicates to s3"),
            ("dbs:\n  - path: /a\n    replica:\n      url: abs://account/c\n", ":4: dbtool replicates to s3://"),
            ("dbs:\n  - path: /a\n    replica:\n      url: s3://b/p\n      sse-customer-key: k\n", ":5: sse-customer-key"),
            ("dbs:\n  - dir: /srv\n    pattern: '*.db'\n", ":2: dir"),
            ("dbs:\n  - path: /a\n    replicas:\n      - url: s3://b/1\n      - url: s3://b/2\n", ":2: /a has 2 replicas"),
            ("dbs:\n  - path: /a\n  - path: /a\n", ":3: /a is listed twice"),
            ("access-key-id: only\ndbs:\n  - path: /a\n", ":1: access-key-id and secret-access-key go together"),
            ("dbs: []\n", "lists no databases"),
            ("dbs:\n  - path: /a\n   replica:\n", "is not YAML"),
        ])
    func refused(_ text: String, _ expected: String) throws {
        #expect {
            try read(text)
        } throws: { error in
            guard let error = error as? DBToolError else { return false }
            return error.status == .usage && error.message.contains(expected)
        }
    }

    @Test("a missing file is 66")
    func missing() throws {
        #expect {
            try LitestreamConfig.read(scratch.file("nowhere.yml"))
        } throws: { ($0 as? DBToolError)?.status == .noInput }
    }
}
