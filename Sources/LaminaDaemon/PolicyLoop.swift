import LaminaPlatform

/// What the display-power and cursor policies need of the event loop: one-shot timers, and
/// work run once the current event is handled. laminad's `EventLoop` is one; the policies'
/// tests run a virtual one by hand, so idle timeouts are checked without waiting for them.
protocol PolicyLoop: AnyObject {
    /// A timer, not armed yet, that calls `fire` each time it expires.
    func makeTimer(_ fire: @escaping () -> Void) throws(SystemError) -> any PolicyTimer
    /// Runs `work` once the current event has been handled.
    func afterCurrentEvent(_ work: @escaping () -> Void)
}

/// A one-shot timer: arming it again replaces the earlier arming.
protocol PolicyTimer: AnyObject {
    var isArmed: Bool { get }
    func arm(after delay: Double) throws(SystemError)
    func disarm() throws(SystemError)
}

extension EventLoop: PolicyLoop {
    func makeTimer(_ fire: @escaping () -> Void) throws(SystemError) -> any PolicyTimer {
        try LoopTimer(loop: self) { _ in fire() }
    }
}

extension LoopTimer: PolicyTimer {
    /// Fires once, after `delay` seconds.
    func arm(after delay: Double) throws(SystemError) { try arm(after: delay, every: 0) }
}
