#if FoundationBridging
    import Foundation

    /// The suspension notifications a connection observes when its
    /// configuration asks (see ``Configuration/observesSuspensionNotifications``).
    ///
    /// `@unchecked Sendable`: the observer tokens are only written at init and
    /// read at deinit.
    final class SuspensionObservers: @unchecked Sendable {
        private var tokens: [any NSObjectProtocol] = []

        init(configuration: Configuration, writer: SerializedDatabase) {
            guard configuration.observesSuspensionNotifications, !configuration.readonly else { return }
            let center = NotificationCenter.default
            tokens.append(
                center.addObserver(forName: Database.suspendNotification, object: nil, queue: nil) { [weak writer] _ in
                    writer?.suspend()
                })
            tokens.append(
                center.addObserver(forName: Database.resumeNotification, object: nil, queue: nil) { [weak writer] _ in
                    writer?.resume()
                })
        }

        deinit {
            for token in tokens { NotificationCenter.default.removeObserver(token) }
        }
    }

    extension Database {
        /// Post it (with `NotificationCenter.default`) to suspend the connections
        /// whose configuration has ``Configuration/observesSuspensionNotifications``:
        /// their statements that would take a lock fail with SQLITE_ABORT until
        /// ``resumeNotification``.
        public static let suspendNotification = Notification.Name("GRDB.Database.Suspend")

        /// Post it to resume the connections suspended by ``suspendNotification``.
        public static let resumeNotification = Notification.Name("GRDB.Database.Resume")
    }
#else
    /// Without the FoundationBridging trait there is no `NotificationCenter`
    /// to observe: ``Configuration/observesSuspensionNotifications`` has no
    /// effect.
    final class SuspensionObservers: Sendable {
        init(configuration: Configuration, writer: SerializedDatabase) {}
    }
#endif
