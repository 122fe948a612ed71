/// When a hotplug's connector rescan runs. A rescan may modeset, and a modeset must not race a
/// queued page flip, so a hotplug that arrives while flips are queued is owed until they have
/// completed: their events make the DRM descriptor readable, which brings the loop back to
/// `next` with the flips drained. The loop never blocks on a late flip, and a hotplug is never
/// dropped for one (a display plugged in while another's flip is late still lights up).
public struct HotplugRescan: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        /// Nothing is owed.
        case none
        /// Rescan the connectors now.
        case rescan
        /// A hotplug is owed, and flips are still queued: wait for their events.
        case deferred
    }

    /// Whether a hotplug has not yet been answered by a rescan.
    public private(set) var owed = false

    public init() {}

    /// What to do on this pass of the event loop: `hotplug` when a hotplug of this device came
    /// in, `flipsQueued` when any output still waits for a page flip.
    public mutating func next(hotplug: Bool, flipsQueued: Bool) -> Decision {
        if hotplug { owed = true }
        guard owed else { return .none }
        if flipsQueued { return .deferred }
        owed = false
        return .rescan
    }
}
