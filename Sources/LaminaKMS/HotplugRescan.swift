/// When a hotplug's connector rescan runs. A rescan may modeset, and a modeset must not race a
/// queued page flip, so a hotplug that comes while flips are queued first waits for them
/// (`waitThenRescan`: a bounded wait, during which the loop queues no new flips, so every
/// output's drains; normally within a refresh). A flip late past that wait does not lose the
/// hotplug: it is owed, and answered by the first pass of the loop that finds no flip queued
/// (the late flip's event brings one), or, once the late flips have come, by waiting again for
/// those queued since (other outputs kept flipping meanwhile and may never all be idle at
/// once). No pass waits while a late flip is still out, a new hotplug's included, so one hung
/// output does not stall the others; and a hotplug waits at most `maximumWaits` times before a
/// rescan, so a display path slower than the wait costs the loop a bounded stall. The backend
/// starts it afresh whenever a rescan runs (`rescanStarted`, in `KMSBackend.rescan`). A rescan
/// that fails (the connectors could not be read) leaves the hotplug owed for a later pass, at
/// most `maximumFailures` times in a row, so a device that keeps failing is not read on every
/// pass of the loop.
public struct HotplugRescan: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        /// Nothing is owed.
        case none
        /// Rescan the connectors now: no flip is queued.
        case rescan
        /// Wait (bounded) for the queued flips, then rescan; if the wait runs out, report the
        /// outputs still flipping with `flipsLate`.
        case waitThenRescan
        /// Owed while a late flip is still out: a later pass answers it.
        case deferred
    }

    /// Whether a hotplug has not yet been answered by a rescan.
    public private(set) var owed = false
    /// The outputs whose flips outlasted the last wait.
    public private(set) var late: Set<String> = []
    /// The waits that ran out since the last rescan.
    public private(set) var lateWaits = 0
    /// The most waits that may run out before a rescan; past them an owed hotplug is answered
    /// only by a pass that finds no flip queued.
    public static let maximumWaits = 2
    /// Rescans that failed in a row, the hotplug owed again after each.
    public private(set) var failures = 0
    /// The most rescans that may fail in a row before a hotplug is dropped (until the next).
    public static let maximumFailures = 3

    public init() {}

    /// What to do on this pass of the event loop: `hotplug` when a hotplug of this device came
    /// in, `queued` the outputs waiting for a page flip.
    public mutating func next(hotplug: Bool, queued: Set<String>) -> Decision {
        if hotplug {
            owed = true
            failures = 0
            // A late flip that has come since is late no more.
            late.formIntersection(queued)
        }
        guard owed else { return .none }
        if queued.isEmpty {
            rescanStarted()
            return .rescan
        }
        guard late.isDisjoint(with: queued), lateWaits < Self.maximumWaits else { return .deferred }
        owed = false
        return .waitThenRescan
    }

    /// A rescan is starting (for a hotplug or not): it answers whatever is owed, failures aside.
    public mutating func rescanStarted() {
        self = HotplugRescan(failures: failures)
    }

    /// The rescan read the connectors.
    public mutating func rescanSucceeded() { failures = 0 }

    /// The rescan failed: the hotplug is owed again, unless `maximumFailures` rescans in a row
    /// have failed (then it is dropped until the next hotplug). Returns whether it is owed.
    @discardableResult
    public mutating func rescanFailed() -> Bool {
        failures += 1
        owed = failures < Self.maximumFailures
        if !owed { failures = 0 }
        return owed
    }

    private init(failures: Int) { self.failures = failures }

    /// The wait of `waitThenRescan` ran out with `stillQueued` flipping: the hotplug stays owed.
    public mutating func flipsLate(_ stillQueued: Set<String>) {
        owed = true
        late = stillQueued
        lateWaits += 1
    }
}
