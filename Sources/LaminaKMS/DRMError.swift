#if canImport(Glibc)
import Glibc
#endif

/// Why a DRM, GBM or KMS call failed: the call, the object it was about, and errno.
public struct DRMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libdrm or GBM call, with what it acted on ("drmModeAtomicCommit(TEST_ONLY) on Virtual-1").
    public var call: String
    /// The errno the call reported (libdrm returns -errno or sets errno), 0 where none applies.
    public var errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// A libdrm call that returned `result`: libdrm returns -errno from most calls, and -1 with
    /// errno set from the others.
    static func returned(_ call: String, _ result: Int32) -> DRMError {
        DRMError(call, errno: result < -1 ? -result : Glibc.errno)
    }

    /// The caller lacks DRM master (another compositor holds the device) or the permission.
    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM || errno == EBUSY }

    public var description: String {
        errno == 0 ? "\(call) failed" : "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Runs a libdrm call that returns 0 on success and a negative value on failure.
@inline(__always)
func drmCheck(_ call: @autoclosure () -> String, _ result: Int32) throws(DRMError) {
    if result != 0 { throw DRMError.returned(call(), result) }
}
