/// Who is at the other end of a connection (SO_PEERCRED, read by the platform), and whether
/// that user may make privileged requests (docs/protocol.md, "Authorisation").
public struct PeerIdentity: Sendable, Equatable {
    public var uid: UInt32
    public var pid: Int32
    /// laminad's own user, root, or a member of the configured privileged group.
    public var isPrivileged: Bool

    public init(uid: UInt32, pid: Int32 = 0, isPrivileged: Bool) {
        self.uid = uid
        self.pid = pid
        self.isPrivileged = isPrivileged
    }

    /// In-process clients (tests, benchmarks): laminad's own user.
    public static let trusted = PeerIdentity(uid: 0, isPrivileged: true)
}
