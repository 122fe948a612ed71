#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where laminad listens and clients connect when no path is given.
public enum SocketPath {
    /// The system service's socket (systemd/laminad.socket).
    public static let system = "/run/lamina/lamina.sock"

    /// `$LAMINA_SOCKET` if set, else `$XDG_RUNTIME_DIR/lamina-0`, else the system socket.
    public static func resolve(_ explicit: String? = nil) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = environment("LAMINA_SOCKET"), !env.isEmpty { return env }
        if let dir = environment("XDG_RUNTIME_DIR"), !dir.isEmpty { return dir + "/lamina-0" }
        return system
    }

    /// An environment variable. The corresponding C function is `getenv`.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
