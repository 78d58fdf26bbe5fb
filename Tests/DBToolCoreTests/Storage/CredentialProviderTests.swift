import DatabaseKit
import Foundation
import Testing

@testable import DBToolCore

/// When a temporary key is fetched again: the provider's clock is given,
/// the source counts its fetches and fails when told to.
@Suite("Credential refresh")
struct CredentialProviderTests {
    /// A source of keys that live `lifetime` seconds from `clock`.
    final class Source: CredentialSource, @unchecked Sendable {  // guarded by `state`
        let state = Locked((fetches: 0, failing: false, clock: Date(timeIntervalSince1970: 1_000_000)))
        let lifetime: TimeInterval

        init(lifetime: TimeInterval) { self.lifetime = lifetime }

        func fetch() throws -> ObjectCredentials {
            try state.withLock { state in
                if state.failing { throw DBToolError(.tempFail, "the source is down") }
                state.fetches += 1
                return ObjectCredentials(
                    accessKeyId: "ASIA\(state.fetches)", secretAccessKey: "secret", sessionToken: "token", source: "test",
                    expiration: state.clock.addingTimeInterval(lifetime))
            }
        }

        var fetches: Int { state.withLock { $0.fetches } }
        var now: Date { state.withLock { $0.clock } }
        func advance(_ seconds: TimeInterval) { state.withLock { $0.clock.addTimeInterval(seconds) } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
    }

    @Test("a key is fetched again once five minutes are left, or a quarter of a shorter life; a long-term key never")
    func margin() throws {
        let hour = Source(lifetime: 3600)
        let provider = CredentialProvider(first: try hour.fetch(), source: hour, now: hour.now)
        hour.advance(3600 - 301)
        #expect(try provider.current(now: hour.now).accessKeyId == "ASIA1")
        hour.advance(2)
        #expect(try provider.current(now: hour.now).accessKeyId == "ASIA2")
        #expect(hour.fetches == 2)

        let short = Source(lifetime: 8)
        let shortProvider = CredentialProvider(first: try short.fetch(), source: short, now: short.now)
        short.advance(5.9)
        #expect(try shortProvider.current(now: short.now).accessKeyId == "ASIA1")
        short.advance(0.2)
        #expect(try shortProvider.current(now: short.now).accessKeyId == "ASIA2")

        let fixed = CredentialProvider(fixed: ObjectCredentials(accessKeyId: "AKIA", secretAccessKey: "s", source: "test"))
        #expect(try fixed.current(now: .distantFuture).accessKeyId == "AKIA")
        #expect(!fixed.discard(try fixed.current()))
    }

    @Test("a failed refresh keeps the old key until it expires, then throws; a discarded key is fetched again at once")
    func failures() throws {
        let source = Source(lifetime: 3600)
        let provider = CredentialProvider(first: try source.fetch(), source: source, now: source.now)
        source.advance(3500)
        source.fail(true)
        #expect(try provider.current(now: source.now).accessKeyId == "ASIA1")
        source.advance(101)
        #expect(throws: DBToolError.self) { try provider.current(now: source.now) }
        source.fail(false)
        #expect(try provider.current(now: source.now).accessKeyId == "ASIA2")

        let stale = try provider.current(now: source.now)
        #expect(provider.discard(stale))
        #expect(try provider.current(now: source.now).accessKeyId == "ASIA3")
        // A key another thread already replaced is not discarded again.
        #expect(provider.discard(stale))
        #expect(try provider.current(now: source.now).accessKeyId == "ASIA3")
    }
}
