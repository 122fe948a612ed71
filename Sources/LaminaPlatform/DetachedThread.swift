#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body` on a new detached POSIX thread (for loops that block in read(2), such as a
/// client's socket reader), without Foundation's `Thread`: Foundation is about 50 MB on a small
/// board, and the client library needs nothing else from it.
/// The corresponding C functions are `pthread_create` and `pthread_detach`.
public func detachThread(_ name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body))
    var thread = pthread_t()
    let r = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box.toOpaque())
    guard r == 0 else {
        box.release()
        throw SystemError("pthread_create(\(name))", errno: r)
    }
    pthread_detach(thread)
}
