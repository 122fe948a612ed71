#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Lets the main thread's stack grow to at least `bytes` (the soft RLIMIT_STACK, up to the
/// hard limit), and returns the limit now in force.
///
/// laminad walks layer trees recursively on its main thread. Their depth is bounded by a
/// budget (`ClientLimits.maxDepth`), and this gives that budget a wide margin whatever the
/// build: Linux grows the main stack against the current limit, and the gap left below it at
/// exec is at least 128 MiB. Threads started later keep glibc's own default.
/// The corresponding C function is `setrlimit`.
/// unlimited, which Glibc's module imports as a macro Swift cannot evaluate.
private let unlimited = rlim_t.max

@discardableResult
public func reserveMainStack(_ bytes: Int) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0 else { return 0 }
    let wanted = rlim_t(bytes)
    if limit.rlim_cur != unlimited, limit.rlim_cur < wanted {
        limit.rlim_cur = limit.rlim_max == unlimited ? wanted : min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_STACK.rawValue), &limit)
        _ = getrlimit(Int32(RLIMIT_STACK.rawValue), &limit)
    }
    return limit.rlim_cur == unlimited ? Int.max : Int(clamping: limit.rlim_cur)
}
