/// Several animations run together on one layer. Mirrors `CAAnimationGroup`.
///
/// The children run in the group's local time: a child's `beginTime` is an offset from the
/// group's start, the group's speed, repeats, autoreverse and timing function warp the time the
/// children see, and the group's duration clips them (a child is never evaluated past the end of
/// the group's cycle). A child whose duration is 0 takes the group's duration, as in Listing 3-4.
/// Outside its own active span a child follows its own `fillMode`; children are never removed on
/// their own and send no events: the group does.
public struct AnimationGroup: TimedAnimation, Hashable {
    /// `animations`.
    public var animations: [Animation]
    /// The `CAMediaTiming` fields (beginTime, duration, speed, repeats, fill mode, …).
    public var timing: MediaTiming
    /// `timingFunction`: maps time to progress; nil is linear.
    public var timingFunction: TimingFunction?
    /// `removedOnCompletion` (default true).
    public var isRemovedOnCompletion: Bool

    /// A group of `animations` with the given timing.
    public init(animations: [Animation], timing: MediaTiming = MediaTiming(), timingFunction: TimingFunction? = nil,
                isRemovedOnCompletion: Bool = true) {
        self.animations = animations
        self.timing = timing
        self.timingFunction = timingFunction
        self.isRemovedOnCompletion = isRemovedOnCompletion
    }

    /// Convenience: the children over `duration` seconds.
    public init(_ animations: [Animation], duration: Double) {
        self.init(animations: animations, timing: MediaTiming(duration: duration))
    }

    func collectErrors(into errors: inout [AnimationError]) {
        collectTimingErrors(into: &errors)
        for (i, child) in animations.enumerated() {
            var childErrors: [AnimationError] = []
            child.collectErrors(into: &childErrors)
            errors.append(contentsOf: childErrors.map { .inGroup(index: i, $0) })
        }
    }
}
