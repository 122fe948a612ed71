/// What an animation shows outside its active span. Mirrors `CAMediaTimingFillMode`.
public enum FillMode: String, Sendable, Hashable, CaseIterable {
    /// `kCAFillModeRemoved`, the default: no effect before beginTime or after the end.
    case removed
    /// `kCAFillModeForwards`: holds the final value after the end (only visible while the
    /// animation is not removed on completion).
    case forwards
    /// `kCAFillModeBackwards`: shows the first value before beginTime.
    case backwards
    /// `kCAFillModeBoth`: forwards and backwards.
    case both

    @inlinable public var fillsForwards: Bool { self == .forwards || self == .both }
    @inlinable public var fillsBackwards: Bool { self == .backwards || self == .both }
}

/// The timing of a layer or an animation, as Core Animation's `CAMediaTiming` protocol.
///
/// The local time of the object, given its parent's time `tp`, is
/// `t = (tp − beginTime) · speed + timeOffset` (`localTime(fromParent:)`). For an animation the
/// active span is `[beginTime, beginTime + activeDuration / speed)` in parent time: `timeOffset`
/// shifts where in its cycle the animation starts, not when, so an animation with duration 3 and
/// timeOffset 1 plays 1→3, wraps and plays 0→1 (frames C D E A B).
public struct MediaTiming: Hashable, Sendable {
    /// `beginTime`: when the object starts, in its parent's time. For an animation, 0 means "when
    /// it is added"; `resolvingBeginTime(addedAt:)` makes that concrete.
    public var beginTime: Double
    /// `duration`: the length of one simple cycle in seconds. 0 on an animation means the
    /// transaction's duration (0.25 s by default, see `resolvingDuration(_:)`). Layers use only
    /// beginTime, speed and timeOffset (see `LayerTime`).
    public var duration: Double
    /// `speed`: how fast local time runs relative to the parent's. 0 pauses.
    public var speed: Double
    /// `timeOffset`: added to local time after scaling by `speed`.
    public var timeOffset: Double
    /// `repeatCount`: how many cycles play; fractional counts allowed, `.infinity` repeats forever.
    /// 0 (like `repeatDuration` 0) means one cycle.
    public var repeatCount: Double
    /// `repeatDuration`: how long the object repeats, in local seconds; used when repeatCount is 0.
    public var repeatDuration: Double
    /// `autoreverses`: play forwards then backwards; one cycle is both legs.
    public var autoreverses: Bool
    /// `fillMode`.
    public var fillMode: FillMode

    /// A timing with Core Animation's defaults, or the values given.
    public init(beginTime: Double = 0, duration: Double = 0, speed: Double = 1, timeOffset: Double = 0,
                repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false,
                fillMode: FillMode = .removed) {
        self.beginTime = beginTime
        self.duration = duration
        self.speed = speed
        self.timeOffset = timeOffset
        self.repeatCount = repeatCount
        self.repeatDuration = repeatDuration
        self.autoreverses = autoreverses
        self.fillMode = fillMode
    }

    /// Core Animation's default duration of an animation whose duration is 0:
    /// `CATransaction.animationDuration`'s default.
    public static let defaultAnimationDuration = 0.25

    // MARK: Linear mapping (layers and animations)

    /// Local time from parent time: `(tp − beginTime) · speed + timeOffset`.
    @inlinable public func localTime(fromParent tp: Double) -> Double {
        (tp - beginTime) * speed + timeOffset
    }

    /// Parent time from local time, the inverse of `localTime(fromParent:)`.
    /// With speed 0 every parent time maps to `timeOffset`, so there is no inverse: this returns
    /// `beginTime` rather than a NaN that would poison whatever uses it.
    @inlinable public func parentTime(fromLocal t: Double) -> Double {
        speed == 0 ? beginTime : (t - timeOffset) / speed + beginTime
    }

    // MARK: Defaults resolved when an animation is added

    /// This timing with `beginTime` 0 replaced by `layerTime`, the layer's local time when the
    /// animation is added: what `-[CALayer addAnimation:forKey:]` does at commit.
    public func resolvingBeginTime(addedAt layerTime: Double) -> MediaTiming {
        var t = self
        if t.beginTime == 0 { t.beginTime = layerTime }
        return t
    }

    /// This timing with `duration` 0 (or negative, or NaN) replaced by `duration`, the transaction's
    /// animation duration (0.25 s unless the transaction says otherwise).
    public func resolvingDuration(_ duration: Double = MediaTiming.defaultAnimationDuration) -> MediaTiming {
        var t = self
        if !(t.duration > 0) { t.duration = duration }
        return t
    }

    // MARK: Active span

    /// The length of one cycle: the duration, doubled when autoreversing.
    @inlinable public var cycleDuration: Double { autoreverses ? 2 * duration : duration }

    /// The length of the active span in local seconds (before `timeOffset`):
    /// `repeatCount` cycles, else `repeatDuration`, else one cycle. May be `.infinity`.
    @inlinable public var activeDuration: Double {
        if repeatCount > 0 { return repeatCount * cycleDuration }
        if repeatDuration > 0 { return repeatDuration }
        return cycleDuration
    }

    /// Where an object with this timing is at parent time `tp`.
    ///
    /// `duration` must already be resolved (> 0) for animations. `endInclusive` makes the very
    /// end of the active span count as active, which is how a child in a group that has reached
    /// its own end still shows its final value.
    public func state(atParentTime tp: Double, endInclusive: Bool = false) -> TimingState {
        // Before beginTime in parent time the object has not started, whatever its speed.
        if tp < beginTime {
            guard fillMode.fillsBackwards else { return TimingState(phase: .before, isInEffect: false) }
            return fold(localTime: timeOffset, atEnd: false, phase: .before)
        }
        let active = (tp - beginTime) * speed
        if active < 0 {
            // Negative speed runs the clock backwards from beginTime: it never reaches the span.
            guard fillMode.fillsBackwards else { return TimingState(phase: .before, isInEffect: false) }
            return fold(localTime: timeOffset, atEnd: false, phase: .before)
        }
        let span = activeDuration
        if active < span || (endInclusive && active == span) {
            return fold(localTime: active + timeOffset, atEnd: active == span, phase: .active)
        }
        guard fillMode.fillsForwards else { return TimingState(phase: .after, isInEffect: false) }
        return fold(localTime: span + timeOffset, atEnd: true, phase: .after)
    }

    /// Folds a local time into (completed cycles, fraction of the simple duration).
    /// At the end of the active span a time that lands exactly on a cycle boundary is the end of
    /// the previous cycle, not the start of the next: a finished animation holds its last value.
    func fold(localTime t: Double, atEnd: Bool, phase: TimingPhase) -> TimingState {
        let d = duration
        guard d > 0, d.isFinite else {
            return TimingState(phase: phase, isInEffect: true, iteration: 0, fraction: d > 0 ? 0 : 1)
        }
        let cycle = cycleDuration
        var iteration = (t / cycle).rounded(.down)
        var inCycle = t - iteration * cycle
        if atEnd, inCycle == 0, iteration > 0 {
            iteration -= 1
            inCycle = cycle
        }
        if autoreverses, inCycle > d { inCycle = cycle - inCycle }
        let fraction = Swift.min(Swift.max(inCycle / d, 0), 1)
        let it = iteration.isFinite ? Int(Swift.max(Swift.min(iteration, 1e15), -1e15)) : 0
        return TimingState(phase: phase, isInEffect: true, iteration: it, fraction: fraction)
    }
}

/// Whether an animation has not begun, is playing, or has ended.
public enum TimingPhase: Sendable, Hashable {
    case before, active, after
}

/// The result of mapping a parent time through a `MediaTiming`.
public struct TimingState: Sendable, Hashable {
    /// Where the time falls relative to the active span.
    public var phase: TimingPhase
    /// Whether the object affects the layer at this time (inside the span, or filling).
    public var isInEffect: Bool
    /// Completed cycles (what `cumulative` multiplies by).
    public var iteration: Int
    /// Fraction of the simple duration, in [0, 1], already mirrored on an autoreverse leg and
    /// before any timing function.
    public var fraction: Double

    @inlinable public init(phase: TimingPhase, isInEffect: Bool, iteration: Int = 0, fraction: Double = 0) {
        self.phase = phase
        self.isInEffect = isInEffect
        self.iteration = iteration
        self.fraction = fraction
    }
}
