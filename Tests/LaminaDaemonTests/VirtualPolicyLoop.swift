@testable import LaminaDaemon

/// The policies' event loop on a virtual clock, run by hand: a timer fires when the test
/// advances the time past its deadline, and work put off until after the current event runs
/// when the test ends the event (`endEvent`), as laminad's loop runs it after each wake-up.
final class VirtualPolicyLoop: PolicyLoop {
    /// A one-shot timer of this loop. Like a timerfd's `LoopTimer`, it stays armed after it
    /// fires, until it is disarmed.
    final class Timer: PolicyTimer {
        unowned let loop: VirtualPolicyLoop
        let fire: () -> Void
        private(set) var isArmed = false
        /// When it fires next; nil when it will not.
        private(set) var deadline: Double?

        init(loop: VirtualPolicyLoop, fire: @escaping () -> Void) {
            self.loop = loop
            self.fire = fire
        }

        func arm(after delay: Double) {
            isArmed = true
            deadline = loop.now + delay
        }

        func disarm() {
            isArmed = false
            deadline = nil
        }

        func expire() {
            deadline = nil
            fire()
        }
    }

    /// Seconds since the loop was made.
    private(set) var now = 0.0
    private(set) var timers: [Timer] = []
    private var deferred: [() -> Void] = []

    func makeTimer(_ fire: @escaping () -> Void) -> any PolicyTimer {
        let timer = Timer(loop: self, fire: fire)
        timers.append(timer)
        return timer
    }

    func afterCurrentEvent(_ work: @escaping () -> Void) { deferred.append(work) }

    /// The current event has been handled: the work put off until now runs.
    func endEvent() {
        while !deferred.isEmpty { deferred.removeFirst()() }
    }

    /// The time moves on by `seconds`: each timer that falls due fires at its deadline, in
    /// order, each expiry an event of its own.
    func advance(by seconds: Double) {
        let end = now + seconds
        while let next = timers.filter({ ($0.deadline ?? .infinity) <= end }).min(by: { $0.deadline! < $1.deadline! }) {
            now = next.deadline!
            next.expire()
            endEvent()
        }
        now = end
    }
}
