#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: its name and errno, readable (`connect: No such file or directory (errno 2)`).
/// The one error type for system and driver calls (the KMS backend's `DRMError` is this too);
/// errno 0 means the call failed without one.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        errno == 0 ? "\(call) failed" : "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Runs a system call, retrying on EINTR; throws `SystemError` naming `call` on -1.
@discardableResult
public func retryingEINTR<T: FixedWidthInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let r = body()
        if r == -1 {
            let e = Glibc.errno
            if e == EINTR { continue }
            throw SystemError(call, errno: e)
        }
        return r
    }
}
