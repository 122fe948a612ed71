#if canImport(Glibc)
import Glibc
#endif
import CSystemd

/// The systemd service protocol through libsystemd: readiness and watchdog notifications to
/// `$NOTIFY_SOCKET`, and sockets passed by socket activation. Outside systemd every call does
/// nothing, so laminad runs the same from a shell.
public enum ServiceManager {
    /// Sends `state` ("READY=1", "STOPPING=1", "WATCHDOG=1", "STATUS=…"), newline-separated.
    /// Returns false when there is no service manager to tell.
    /// The corresponding C function is `sd_notify`.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// How often the service manager expects a watchdog ping, in seconds, or nil when the
    /// unit has no `WatchdogSec=` (or this process is not the one it watches).
    /// The corresponding C function is `sd_watchdog_enabled`.
    public static var watchdogInterval: Double? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Double(usec) / 1e6
    }

    /// The descriptors passed by socket activation (from `SD_LISTEN_FDS_START`, 3), empty when
    /// started without. Clears `LISTEN_FDS` so child processes do not see them.
    /// The corresponding C function is `sd_listen_fds`.
    public static func listenDescriptors() -> [Int32] {
        let n = sd_listen_fds(1)
        guard n > 0 else { return [] }
        return (0..<n).map { SD_LISTEN_FDS_START + $0 }
    }

    /// True when `fd` is a listening Unix stream socket (what laminad.socket passes).
    /// The corresponding C function is `sd_is_socket_unix`.
    public static func isListeningUnixSocket(_ fd: Int32) -> Bool {
        sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
    }
}
