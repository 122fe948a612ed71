#if canImport(Glibc)
import Glibc
#endif

/// Users and groups for the socket's `owner` and `group` settings, by name or number.
public enum SocketOwnership {
    public struct Unknown: Error, CustomStringConvertible {
        public var description: String
    }

    /// The corresponding C function is `getpwnam`.
    public static func user(named name: String) throws -> UInt32 {
        if let id = UInt32(name) { return id }
        guard let pw = getpwnam(name) else { throw Unknown(description: "socket.owner: no user named '\(name)'") }
        return pw.pointee.pw_uid
    }

    /// The corresponding C function is `getgrnam`.
    public static func group(named name: String) throws -> UInt32 {
        if let id = UInt32(name) { return id }
        guard let gr = getgrnam(name) else { throw Unknown(description: "socket.group: no group named '\(name)'") }
        return gr.pointee.gr_gid
    }
}
