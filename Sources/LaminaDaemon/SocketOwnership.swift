#if canImport(Glibc)
import Glibc
#endif

/// Users and groups for the socket's `owner` and `group` settings, by name or number.
public enum SocketOwnership {
    /// nil: no such user. The corresponding C function is `getpwnam`.
    public static func user(named name: String) -> UInt32? {
        if let id = UInt32(name) { return id }
        return getpwnam(name)?.pointee.pw_uid
    }

    /// nil: no such group. The corresponding C function is `getgrnam`.
    public static func group(named name: String) -> UInt32? {
        if let id = UInt32(name) { return id }
        return getgrnam(name)?.pointee.gr_gid
    }
}
