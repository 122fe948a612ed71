#if canImport(Glibc)
import Glibc
import CLinux
// The socket type constants: in a whole-module build they are seen through libsystemd's headers
// (sd-daemon.h includes <sys/socket.h>; ServiceManager.swift imports them), so this file names
// that module too.
import CSystemd
#elseif canImport(Musl)
import Musl
#endif

/// Stream sockets in the Unix domain: a listening socket for laminad and a connection for clients.
public enum UnixSocket {
    /// Longest path `sockaddr_un` holds, less the terminating NUL.
    public static let maxPathLength = MemoryLayout<sockaddr_un>.size - MemoryLayout<sa_family_t>.size - 1

    static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathLength else { throw SystemError("socket path '\(path)'", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
            p[bytes.count] = 0
        }
        return addr
    }

    /// Listens on `path`. A socket file left by a daemon that is gone is replaced; one that a
    /// live daemon answers on is not (EADDRINUSE). The socket is non-blocking and close-on-exec.
    ///
    /// The socket is bound and listening under a temporary name first and then renamed to
    /// `path`, so the file appears only once connections to it are accepted: a client (or a
    /// script) that waits for the file never meets a refused connection.
    public static func listen(path: String, backlog: Int32 = 64) throws(SystemError) -> FileDescriptor {
        if access(path, F_OK) == 0, (try? connect(path: path)) != nil {
            throw SystemError("bind \(path) (a server is already listening)", errno: EADDRINUSE)
        }
        let staging = path + ".\(getpid())"
        _ = try address(path)  // the final path must fit too
        var addr = try address(staging)
        let fd = FileDescriptor(owning: try retryingEINTR("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) })
        let len = socklen_t(MemoryLayout<sockaddr_un>.size)
        unlink(staging)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd.rawValue, $0, len) } }
        guard bound == 0 else { throw SystemError("bind \(staging)", errno: errno) }
        do throws(SystemError) {
            try retryingEINTR("listen") { Glibc.listen(fd.rawValue, backlog) }
            // rename() replaces a stale socket file at `path` atomically.
            guard rename(staging, path) == 0 else { throw SystemError("rename \(staging) to \(path)", errno: errno) }
        } catch {
            unlink(staging)
            throw error
        }
        return fd
    }

    /// Accepts one pending connection, non-blocking and close-on-exec; nil when none is waiting.
    /// The corresponding C function is `accept4`.
    public static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        while true {
            let fd = CLinux_accept4(listener.rawValue, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            if fd >= 0 { return FileDescriptor(owning: fd) }
            let e = errno
            if e == EINTR || e == ECONNABORTED { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return nil }
            throw SystemError("accept4", errno: e)
        }
    }

    /// Connects to the server at `path` (blocking, close-on-exec).
    public static func connect(path: String) throws(SystemError) -> FileDescriptor {
        var addr = try address(path)
        let fd = FileDescriptor(owning: try retryingEINTR("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        let len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.rawValue, $0, len) } }
        if r == -1 { throw SystemError("connect \(path)", errno: errno) }
        return fd
    }

    /// The peer's supplementary groups (SO_PEERGROUPS), or nil when the kernel cannot say.
    public static func peerGroups(_ fd: FileDescriptor) -> [UInt32]? {
        var groups = [gid_t](repeating: 0, count: 256)
        let n = CLinux_peer_groups(fd.rawValue, &groups, Int32(groups.count))
        guard n >= 0 else { return nil }
        return Array(groups.prefix(Int(n)))
    }

    /// The credentials of the peer process (SO_PEERCRED): pid, uid, gid.
    public static func peerCredentials(_ fd: FileDescriptor) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard CLinux_peer_credentials(fd.rawValue, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid, gid)
    }
}
