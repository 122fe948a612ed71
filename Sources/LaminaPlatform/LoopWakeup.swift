#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// Wakes an `EventLoop` from another thread: an eventfd the loop watches. `signal` may be
/// called from any thread, any number of times; the loop's handler runs once for all the
/// signals since it last ran (the count is read and reset first).
public final class LoopWakeup: @unchecked Sendable {
    // @unchecked: `fd` never changes after init; eventfd reads and writes are atomic.
    private let fd: FileDescriptor
    private weak var loop: EventLoop?

    /// `handler` runs on the loop's thread after one or more `signal`s.
    /// The corresponding C function is `eventfd`.
    public init(loop: EventLoop, handler: @escaping () -> Void) throws(SystemError) {
        fd = FileDescriptor(owning: try retryingEINTR("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
        self.loop = loop
        let raw = fd.rawValue
        try loop.add(raw) { _ in
            var count: UInt64 = 0
            if Glibc.read(raw, &count, 8) == 8 { handler() }
        }
    }

    /// Wakes the loop (from any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fd.rawValue, &one, 8)
    }

    deinit { loop?.remove(fd.rawValue) }
}
