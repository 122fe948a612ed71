#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// One thread's event loop over epoll: descriptors, timers (timerfd) and signals (signalfd).
///
/// laminad runs everything on one of these: client sockets, the frame clock and SIGTERM, with
/// no thread per client. Callbacks run on the loop's thread, one at a time.
public final class EventLoop {
    /// What a descriptor is watched for.
    public struct Interest: OptionSet, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Interest(rawValue: EPOLLIN.rawValue)
        public static let writable = Interest(rawValue: EPOLLOUT.rawValue)
        /// Priority data: a CEC adapter's events, a sysfs attribute's change.
        public static let priority = Interest(rawValue: EPOLLPRI.rawValue)
    }

    /// What happened on a descriptor.
    public struct Events: Sendable {
        public var raw: UInt32
        public var isReadable: Bool { raw & EPOLLIN.rawValue != 0 }
        public var isWritable: Bool { raw & EPOLLOUT.rawValue != 0 }
        public var isPriority: Bool { raw & EPOLLPRI.rawValue != 0 }
        /// The peer hung up or the descriptor is in error; reading tells which.
        public var isHangup: Bool { raw & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 }
        /// Both directions are closed, or the descriptor is in error: nothing more can be sent.
        public var isDead: Bool { raw & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 }
    }

    private let epoll: FileDescriptor
    private var handlers: [Int32: (Events) -> Void] = [:]
    private var running = false
    private var deferred: [() -> Void] = []

    public init() throws(SystemError) {
        epoll = FileDescriptor(owning: try retryingEINTR("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    }

    /// Watches `fd`; `handler` runs when it is ready. Replaces an earlier registration.
    /// The caller keeps the descriptor open until it calls `remove`.
    public func add(_ fd: Int32, interest: Interest = .readable, handler: @escaping (Events) -> Void) throws(SystemError) {
        var ev = epoll_event()
        ev.events = interest.rawValue | EPOLLRDHUP.rawValue
        ev.data.fd = fd
        let op = handlers[fd] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        try retryingEINTR("epoll_ctl") { epoll_ctl(epoll.rawValue, op, fd, &ev) }
        handlers[fd] = handler
    }

    /// Changes what `fd` is watched for. A descriptor whose input is paused is watched
    /// without `EPOLLRDHUP`, which is level-triggered and would wake the loop on every turn
    /// once the peer has shut its side (EPOLLHUP and EPOLLERR are always reported).
    public func modify(_ fd: Int32, interest: Interest, hangup: Bool = true) throws(SystemError) {
        var ev = epoll_event()
        ev.events = interest.rawValue | (hangup ? EPOLLRDHUP.rawValue : 0)
        ev.data.fd = fd
        try retryingEINTR("epoll_ctl(MOD)") { epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd, &ev) }
    }

    /// Stops watching `fd`.
    public func remove(_ fd: Int32) {
        guard handlers.removeValue(forKey: fd) != nil else { return }
        _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, nil)
    }

    /// Runs `work` after the current callback returns, before the loop waits again.
    public func afterCurrentEvent(_ work: @escaping () -> Void) { deferred.append(work) }

    /// Runs `work` once on the loop's next turn, after the events that are ready then: the
    /// loop polls without waiting while such work is queued. Work that queues itself again
    /// runs once per turn, so it shares the loop with every descriptor (fair scheduling).
    public func nextTurn(_ work: @escaping () -> Void) { turnWork.append(work) }
    private var turnWork: [() -> Void] = []

    /// Dispatches events until `stop()`.
    public func run() throws(SystemError) {
        running = true
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while running {
            runDeferred()
            guard running else { break }
            let n = epoll_wait(epoll.rawValue, &events, Int32(events.count), turnWork.isEmpty ? -1 : 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("epoll_wait", errno: errno)
            }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                // A handler earlier in this batch may have removed this descriptor.
                guard let h = handlers[fd] else { continue }
                h(Events(raw: events[i].events))
            }
            if !turnWork.isEmpty {
                let work = turnWork
                turnWork.removeAll()
                for w in work { w() }
            }
        }
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            let work = deferred
            deferred.removeAll()
            for w in work { w() }
        }
    }

    /// Makes `run()` return after the current callback.
    public func stop() { running = false }
}

/// A timerfd on CLOCK_MONOTONIC, driven by an `EventLoop`.
public final class LoopTimer {
    private let fd: FileDescriptor
    private weak var loop: EventLoop?
    public private(set) var isArmed = false

    /// `handler` runs each time the timer fires, with the number of expirations since the last.
    public init(loop: EventLoop, handler: @escaping (UInt64) -> Void) throws(SystemError) {
        fd = FileDescriptor(owning: try retryingEINTR("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) })
        self.loop = loop
        let raw = fd.rawValue
        try loop.add(raw) { _ in
            var count: UInt64 = 0
            let n = Glibc.read(raw, &count, 8)
            if n == 8 { handler(count) }
        }
    }

    /// Fires first after `delay` seconds, then every `interval` seconds (0: once).
    /// The corresponding C function is `timerfd_settime`.
    public func arm(after delay: Double, every interval: Double = 0) throws(SystemError) {
        var spec = itimerspec(it_interval: LoopTimer.timespec(interval), it_value: LoopTimer.timespec(max(delay, 1e-9)))
        try retryingEINTR("timerfd_settime") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
        isArmed = true
    }

    /// Stops the timer.
    public func disarm() throws(SystemError) {
        var spec = itimerspec()
        try retryingEINTR("timerfd_settime") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
        isArmed = false
    }

    static func timespec(_ seconds: Double) -> Glibc.timespec {
        let s = seconds.rounded(.down)
        return Glibc.timespec(tv_sec: Int(s), tv_nsec: Int((seconds - s) * 1e9))
    }

    deinit { loop?.remove(fd.rawValue) }
}

/// Signals delivered through a signalfd, so SIGTERM is just another event in the loop.
public final class SignalSource {
    private let fd: FileDescriptor
    private weak var loop: EventLoop?

    /// Blocks `signals` for this thread and calls `handler` with each one that arrives.
    public init(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError) {
        var mask = try Self.block(signals)
        fd = FileDescriptor(owning: try retryingEINTR("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) })
        self.loop = loop
        let raw = fd.rawValue
        try loop.add(raw) { _ in
            var info = signalfd_siginfo()
            while Glibc.read(raw, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }

    /// Blocks `signals` for this thread and the threads it starts from now on. Do it before
    /// anything starts threads that do not block them themselves (GStreamer's streaming
    /// threads): a process-directed signal goes to a thread that does not block it, and its
    /// default action there ends the process before the signalfd ever sees it. Signals that
    /// arrive in between stay pending until a `SignalSource` reads them.
    @discardableResult
    public static func block(_ signals: [Int32]) throws(SystemError) -> sigset_t {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { throw SystemError("pthread_sigmask", errno: errno) }
        return mask
    }

    deinit { loop?.remove(fd.rawValue) }
}

/// Seconds of CLOCK_MONOTONIC: Lamina's media time (`CACurrentMediaTime`).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
