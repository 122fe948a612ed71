/// A transition between a layer's old and new appearance. Mirrors `CATransition`.
///
/// The engine computes how far the transition has got (`TransitionState.progress`); the renderer
/// draws the old and new contents accordingly.
public struct Transition: TimedAnimation, Hashable {
    /// `CATransitionType`.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `kCATransitionFade`: the new contents fade in over the old.
        case fade
        /// `kCATransitionMoveIn`: the new contents slide in over the old.
        case moveIn
        /// `kCATransitionPush`: the new contents push the old out.
        case push
        /// `kCATransitionReveal`: the old contents slide away, revealing the new.
        case reveal
    }

    /// `CATransitionSubtype`: the direction of a moveIn, push or reveal.
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case fromLeft, fromRight, fromTop, fromBottom
    }

    /// `type` (default fade).
    public var type: Kind
    /// `subtype`; nil is Core Animation's default, `fromLeft`.
    public var subtype: Direction?
    /// `startProgress` (default 0).
    public var startProgress: Double
    /// `endProgress` (default 1).
    public var endProgress: Double
    /// The `CAMediaTiming` fields (beginTime, duration, speed, repeats, fill mode, …).
    public var timing: MediaTiming
    /// `timingFunction`: maps time to progress; nil is linear.
    public var timingFunction: TimingFunction?
    /// `removedOnCompletion` (default true).
    public var isRemovedOnCompletion: Bool

    /// `CATransition()` with every property settable at once (Core Animation defaults).
    public init(type: Kind = .fade, subtype: Direction? = nil, startProgress: Double = 0, endProgress: Double = 1,
                timing: MediaTiming = MediaTiming(), timingFunction: TimingFunction? = nil,
                isRemovedOnCompletion: Bool = true) {
        self.type = type
        self.subtype = subtype
        self.startProgress = startProgress
        self.endProgress = endProgress
        self.timing = timing
        self.timingFunction = timingFunction
        self.isRemovedOnCompletion = isRemovedOnCompletion
    }

    /// The transition's progress at timing progress `p` (after the timing function):
    /// `startProgress + (endProgress − startProgress) · p`.
    public func progress(at p: Double) -> Double { startProgress + (endProgress - startProgress) * p }

    func collectErrors(into errors: inout [AnimationError]) {
        collectTimingErrors(into: &errors)
        if !(startProgress >= 0 && startProgress <= endProgress && endProgress <= 1) {
            errors.append(.transitionProgress(start: startProgress, end: endProgress))
        }
    }
}

/// A transition in progress on a layer, for the renderer.
public struct TransitionState: Sendable, Hashable {
    /// The transition's type.
    public var type: Transition.Kind
    /// Its direction (`fromLeft` when the transition gave none).
    public var subtype: Transition.Direction
    /// How far the new contents have replaced the old, in [0, 1].
    public var progress: Double

    /// A transition state.
    public init(type: Transition.Kind, subtype: Transition.Direction, progress: Double) {
        self.type = type
        self.subtype = subtype
        self.progress = progress
    }
}

extension Animation {
    /// Whether this is a transition or a group holding one: the server must keep the layer's
    /// old rendering to draw it.
    public var containsTransition: Bool {
        switch self {
        case .transition: true
        case .group(let g): g.animations.contains { $0.containsTransition }
        default: false
        }
    }
}

extension LayerAnimations {
    /// Whether a transition (or a group holding one) is attached.
    public var hasTransition: Bool { entries.contains { $0.animation.containsTransition } }
}
