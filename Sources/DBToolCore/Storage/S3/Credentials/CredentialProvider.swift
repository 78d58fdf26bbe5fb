import DatabaseKit
import FoundationEssentials

/// A place temporary keys come from, asked again before they expire.
protocol CredentialSource: Sendable {
    /// Fetches a key.
    ///
    /// - throws: ``DBToolError`` naming the source: 77 when it refuses, 75
    ///   when it can not be reached.
    func fetch() throws -> ObjectCredentials
}

/// The key every request of one command signs with, shared by its threads:
/// a long-term key as it was found, or a temporary key refreshed from its
/// source ahead of its expiry for as long as the process runs, as the AWS
/// SDKs do.
///
/// A key is refreshed once less than ``refreshMargin`` of its life is left
/// (five minutes, or a quarter of the lifetime of a shorter-lived key). A
/// refresh that fails while the old key still works keeps the old one and
/// tries again at the next request, at most once per ``retryDelay``.
final class CredentialProvider: Sendable, CustomStringConvertible {
    private struct State {
        var credentials: ObjectCredentials
        var fetchedAt: Date
        var lastFailure: Date?
    }

    private let source: (any CredentialSource)?
    private let state: Locked<State>

    /// A provider that always signs with `credentials`.
    init(fixed credentials: ObjectCredentials) {
        source = nil
        state = Locked(State(credentials: credentials, fetchedAt: Date()))
    }

    /// A provider whose first key is fetched now from `source`.
    init(source: any CredentialSource) throws {
        self.source = source
        state = Locked(State(credentials: try source.fetch(), fetchedAt: Date()))
    }

    /// A provider whose first key, `first`, was fetched from `source` at `now`.
    init(first: ObjectCredentials, source: any CredentialSource, now: Date = Date()) {
        self.source = source
        state = Locked(State(credentials: first, fetchedAt: now))
    }

    /// The longest a key is refreshed ahead of its expiry.
    static let refreshMargin: TimeInterval = 300
    /// The shortest time between two failed refreshes.
    static let retryDelay: TimeInterval = 1

    /// The key to sign the next request with.
    ///
    /// - throws: what the source threw, when the key expired and no new
    ///   one came.
    func current(now: Date = Date()) throws -> ObjectCredentials {
        try state.withLock { state in
            guard let source, let expiration = state.credentials.expiration else { return state.credentials }
            let lifetime = max(0, expiration.timeIntervalSince(state.fetchedAt))
            let refreshAt = expiration.addingTimeInterval(-min(Self.refreshMargin, lifetime / 4))
            guard now >= refreshAt else { return state.credentials }
            if now < expiration, let failed = state.lastFailure, now.timeIntervalSince(failed) < Self.retryDelay {
                return state.credentials
            }
            do {
                state.credentials = try source.fetch()
                state.fetchedAt = now
                state.lastFailure = nil
            } catch {
                // The old key works until it expires: keep it, try again later.
                guard now < expiration else { throw error }
                state.lastFailure = now
            }
            return state.credentials
        }
    }

    /// Drops `stale` after the store refused it as expired or unknown (a
    /// clock off, a key revoked early): the next ``current(now:)`` fetches a
    /// new key. Returns false when there is nothing to refresh from.
    func discard(_ stale: ObjectCredentials) -> Bool {
        guard source != nil else { return false }
        state.withLock { state in
            if state.credentials.accessKeyId == stale.accessKeyId && state.credentials.sessionToken == stale.sessionToken {
                state.credentials.expiration = .distantPast
            }
        }
        return true
    }

    var description: String { state.withLock { $0.credentials.description } }
}
