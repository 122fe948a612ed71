#if canImport(Glibc)
import Glibc
#endif
import LaminaPlatform

/// Why a DRM, GBM or KMS call failed: the platform's `SystemError`, naming the call and the
/// object it was about ("drmModeAtomicCommit(TEST_ONLY) on Virtual-1") with errno (0 where
/// none applies).
public typealias DRMError = SystemError

extension SystemError {
    /// A libdrm call that returned `result`: libdrm returns -errno from most calls, and -1 with
    /// errno set from the others.
    static func returned(_ call: String, _ result: Int32) -> SystemError {
        SystemError(call, errno: result < -1 ? -result : Glibc.errno)
    }

    /// The caller lacks DRM master (another compositor holds the device) or the permission.
    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM || errno == EBUSY }
}

/// Runs a libdrm call that returns 0 on success and a negative value on failure.
@inline(__always)
func drmCheck(_ call: @autoclosure () -> String, _ result: Int32) throws(DRMError) {
    if result != 0 { throw DRMError.returned(call(), result) }
}
