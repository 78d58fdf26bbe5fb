import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The systemd notification protocol (`sd_notify`), for a `Type=notify`
/// service: one datagram per state change (`READY=1`, `WATCHDOG=1`,
/// `STOPPING=1`, `STATUS=...`) to the socket `$NOTIFY_SOCKET` names, a
/// path or, with a leading `@`, an abstract socket. Nothing happens when
/// the variable is unset (not run by systemd).
public enum ServiceManager {
    /// Sends `state`; failures are ignored, as `sd_notify` callers do.
    public static func notify(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108 else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), $0, length) }
        }
    }

    /// The watchdog's period when systemd expects `WATCHDOG=1` from this
    /// process (`$WATCHDOG_USEC`, and `$WATCHDOG_PID` naming it, if set).
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> TimeInterval? {
        guard let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"].flatMap({ Int32($0) }), pid != getpid() { return nil }
        return Double(usec) / 1e6
    }
}
