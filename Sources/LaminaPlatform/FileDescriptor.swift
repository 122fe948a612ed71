#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// An owned file descriptor, closed when the last reference goes (or on `close()`).
public final class FileDescriptor {
    public private(set) var rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(owning rawValue: Int32) { self.rawValue = rawValue }

    public var isOpen: Bool { rawValue >= 0 }

    /// Closes now; later calls do nothing. The corresponding C function is `close`.
    public func close() {
        if rawValue >= 0 {
            _ = Glibc.close(rawValue)
            rawValue = -1
        }
    }

    deinit { close() }

    /// Gives up ownership: returns the descriptor, which the caller must close.
    public func release() -> Int32 {
        let fd = rawValue
        rawValue = -1
        return fd
    }

    /// Reads what is available, up to `buffer.count` bytes. Returns nil when the call would block,
    /// 0 at end of file. The corresponding C function is `read`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let n = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return nil }
            throw SystemError("read", errno: e)
        }
    }

    /// Writes what the kernel takes now. Returns the count written (0 when it would block).
    /// The corresponding C function is `send` with MSG_NOSIGNAL, so a closed peer is an
    /// EPIPE error rather than a SIGPIPE.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let n = Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return 0 }
            throw SystemError("send", errno: e)
        }
    }

    /// Writes every byte, blocking as needed (for blocking sockets and pipes).
    public func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = try bytes.withUnsafeBytes { p in
                Result { () throws(SystemError) -> Int in try write(UnsafeRawBufferPointer(rebasing: p[offset...])) }
            }.get()
            if n == 0 {
                // Non-blocking descriptor that is full: wait until writable.
                var pfd = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
                try retryingEINTR("poll") { poll(&pfd, 1, -1) }
            }
            offset += n
        }
    }

    /// Sets or clears O_NONBLOCK. The corresponding C function is `fcntl`.
    public func setNonBlocking(_ on: Bool) throws(SystemError) {
        let flags = try retryingEINTR("fcntl(F_GETFL)") { fcntl(rawValue, F_GETFL) }
        let new = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        try retryingEINTR("fcntl(F_SETFL)") { fcntl(rawValue, F_SETFL, new) }
    }
}
