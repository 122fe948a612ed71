/// When to start the next frame on a display that page-flips (weston's repaint loop): as late
/// as is safe before the next refresh, so the frame shows the newest state.
///
/// The next frame starts at the last presentation + one refresh − the repaint window, and its
/// animations are evaluated at the refresh it is aimed at. Where the device gives no real
/// vblank time (virtual GPUs complete a flip as soon as it is committed), the same rule still
/// paces frames to the mode's refresh rate: a frame never starts sooner than one refresh less
/// the window after the last one showed, so an animation cannot spin the CPU.
public struct RepaintScheduler: Sendable, Equatable {
    /// The display's refresh period in seconds.
    public var refreshInterval: Double
    /// How long before the refresh rendering starts; clamped to the refresh period.
    public var repaintWindow: Double
    /// When the last frame reached the screen (CLOCK_MONOTONIC seconds), nil before the first.
    public private(set) var lastPresentation: Double?

    public init(refreshInterval: Double, repaintWindow: Double) {
        self.refreshInterval = refreshInterval > 0 && refreshInterval.isFinite ? refreshInterval : 1.0 / 60
        self.repaintWindow = min(max(0, repaintWindow), self.refreshInterval)
    }

    /// The refresh the frame now in flight was aimed at.
    public private(set) var pendingTarget: Double?

    /// A frame starts rendering at `now`; returns the refresh it is aimed at, where its
    /// animations should be evaluated.
    @discardableResult
    public mutating func frameStarted(at now: Double) -> Double {
        let target = targetRefresh(startingAt: now)
        pendingTarget = target
        return target
    }

    /// A frame reached the screen at `time`. A flip reported before the refresh it was aimed at
    /// comes from a device without real vblank timing (virtual GPUs complete flips at once);
    /// the frame counts as shown at its target, so frames still follow the refresh rate.
    public mutating func presented(at time: Double) {
        lastPresentation = max(time, pendingTarget ?? time)
        pendingTarget = nil
    }

    /// The refresh a frame started at `now` is aimed at.
    public func targetRefresh(startingAt now: Double) -> Double {
        guard let last = lastPresentation else { return now + repaintWindow }
        var target = last + refreshInterval
        // Late (or idle for a while): aim at the first refresh the frame can still make.
        // (A microsecond of slack keeps a frame started exactly on time from being pushed back.)
        if target < now + repaintWindow - 1e-6 {
            let missed = ((now + repaintWindow - target) / refreshInterval).rounded(.up)
            target += missed * refreshInterval
        }
        return target
    }

    /// When to start rendering the next frame, given that something changed at `now`: at once
    /// when idle for longer than a refresh, else at the last presentation + refresh − window.
    public func repaintTime(now: Double) -> Double {
        guard let last = lastPresentation else { return now }
        return max(now, last + refreshInterval - repaintWindow)
    }
}
