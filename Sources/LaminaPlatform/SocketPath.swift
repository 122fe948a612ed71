#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where laminad listens and clients connect when no path is given.
public enum SocketPath {
    /// The system service's socket (systemd/laminad.socket).
    public static let system = "/run/lamina/lamina.sock"

    /// A socket a client may try, and where its path came from (for messages).
    public struct Candidate: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        /// `--socket`, `$LAMINA_SOCKET`, `$XDG_RUNTIME_DIR/lamina-0` or `the system socket`.
        public var source: String
        public init(path: String, source: String) { self.path = path; self.source = source }
        public var description: String { source == path ? path : "\(path) (\(source))" }
    }

    /// The sockets a client tries, in order, until one answers; the one place `Connection` and
    /// laminactl look.
    ///
    /// A path chosen on purpose (`explicit`, such as laminactl's `--socket`, else
    /// `$LAMINA_SOCKET`) is the only candidate: falling back from it could reach a different
    /// laminad than the one asked for. Otherwise the user's own daemon comes first
    /// (`$XDG_RUNTIME_DIR/lamina-0`, when the variable is set), then the system service's
    /// socket, which a login session with `XDG_RUNTIME_DIR` set would otherwise never reach.
    public static func candidates(_ explicit: String? = nil) -> [Candidate] {
        if let explicit, !explicit.isEmpty { return [Candidate(path: explicit, source: "--socket")] }
        if let env = environment("LAMINA_SOCKET"), !env.isEmpty { return [Candidate(path: env, source: "$LAMINA_SOCKET")] }
        var out: [Candidate] = []
        if let dir = environment("XDG_RUNTIME_DIR"), !dir.isEmpty {
            out.append(Candidate(path: dir + "/lamina-0", source: "$XDG_RUNTIME_DIR/lamina-0"))
        }
        out.append(Candidate(path: system, source: "the system socket"))
        return out
    }

    /// Where laminad listens: `explicit` if given, else `$LAMINA_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/lamina-0`, else the system socket (the first of `candidates`).
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
