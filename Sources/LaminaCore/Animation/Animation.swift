/// Any animation a layer can run: what `-[CALayer addAnimation:forKey:]` accepts.
///
/// The cases are plain value types a scene parser or the wire decoder can build field by field.
/// A `LayerAnimations` list compiles each one when it is added (validating it and precomputing
/// keyframe tables), so nothing is parsed or allocated per frame.
public enum Animation: Sendable, Hashable {
    /// `CABasicAnimation`.
    case basic(BasicAnimation)
    /// `CAKeyframeAnimation`.
    case keyframe(KeyframeAnimation)
    /// `CASpringAnimation`.
    case spring(SpringAnimation)
    /// `CAAnimationGroup`.
    case group(AnimationGroup)
    /// `CATransition`.
    case transition(Transition)

    /// The animation's media timing.
    public var timing: MediaTiming {
        get {
            switch self {
            case .basic(let a): a.timing
            case .keyframe(let a): a.timing
            case .spring(let a): a.timing
            case .group(let a): a.timing
            case .transition(let a): a.timing
            }
        }
        set {
            switch self {
            case .basic(var a): a.timing = newValue; self = .basic(a)
            case .keyframe(var a): a.timing = newValue; self = .keyframe(a)
            case .spring(var a): a.timing = newValue; self = .spring(a)
            case .group(var a): a.timing = newValue; self = .group(a)
            case .transition(var a): a.timing = newValue; self = .transition(a)
            }
        }
    }

    /// `removedOnCompletion`.
    public var isRemovedOnCompletion: Bool {
        switch self {
        case .basic(let a): a.isRemovedOnCompletion
        case .keyframe(let a): a.isRemovedOnCompletion
        case .spring(let a): a.isRemovedOnCompletion
        case .group(let a): a.isRemovedOnCompletion
        case .transition(let a): a.isRemovedOnCompletion
        }
    }

    /// The animation with Core Animation's add-time defaults filled in: a `beginTime` of 0 becomes
    /// `layerTime` (the layer's local time when it is added) and a `duration` of 0 becomes
    /// `transactionDuration`. A group's children with duration 0 take the group's duration; their
    /// begin times stay relative to the group.
    public func resolvingDefaults(addedAt layerTime: Double,
                                  transactionDuration: Double = MediaTiming.defaultAnimationDuration) -> Animation {
        var a = self
        a.timing = a.timing.resolvingBeginTime(addedAt: layerTime)
        a.resolveDurations(transactionDuration)
        return a
    }

    /// Fills in durations of 0 only (what group children need).
    mutating func resolveDurations(_ duration: Double) {
        timing = timing.resolvingDuration(duration)
        if case .group(var g) = self {
            let d = g.timing.duration
            for i in g.animations.indices { g.animations[i].resolveDurations(d) }
            self = .group(g)
        }
    }

    /// Checks the animation the way `LayerAnimations.add` will, returning every problem found
    /// (an empty list means it can be added). Invalid `keyTimes` are not a problem: Core Animation
    /// ignores them and spaces keyframes evenly.
    public func validate() -> [AnimationError] {
        var errors: [AnimationError] = []
        collectErrors(into: &errors)
        return errors
    }

    func collectErrors(into errors: inout [AnimationError]) {
        switch self {
        case .basic(let a): a.collectErrors(into: &errors)
        case .keyframe(let a): a.collectErrors(into: &errors)
        case .spring(let a): a.collectErrors(into: &errors)
        case .group(let a): a.collectErrors(into: &errors)
        case .transition(let a): a.collectErrors(into: &errors)
        }
    }
}

/// Why an animation cannot be added.
public enum AnimationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key path does not parse.
    case keyPath(KeyPathError)
    /// A value's type does not fit the key path (or the value function's input).
    case valueType(keyPath: String, role: String, expected: [PropertyValueType], got: PropertyValueType)
    /// A value has a NaN or infinite number.
    case notFinite(keyPath: String, role: String)
    /// fromValue, toValue and byValue are all set; Core Animation allows at most two.
    case tooManyValues(keyPath: String)
    /// A timing number is out of range: a negative or non-finite duration, a NaN speed, ….
    case timing(field: String, value: Double, requirement: String)
    /// Both repeatCount and repeatDuration are set, which Core Animation leaves undefined.
    case conflictingRepeat(repeatCount: Double, repeatDuration: Double)
    /// A keyframe animation has neither values nor a path.
    case noKeyframes(keyPath: String)
    /// A path was given for a property whose values are not points.
    case pathNeedsPointProperty(keyPath: String)
    /// A path has no line or curve elements, or an element is not finite.
    case invalidPath(keyPath: String, reason: String)
    /// A valueFunction on a key path that is not a whole transform.
    case valueFunctionNeedsTransform(keyPath: String)
    /// A spring parameter is out of range.
    case spring(parameter: String, value: Double, requirement: String)
    /// A transition's progress range is outside [0, 1] or reversed.
    case transitionProgress(start: Double, end: Double)
    /// A problem in the child at `index` of a group.
    indirect case inGroup(index: Int, AnimationError)

    public var description: String {
        switch self {
        case .keyPath(let e):
            e.description
        case let .valueType(keyPath, role, expected, got):
            "\(keyPath): \(role) is a \(got), expected \(expected.map(\.description).joined(separator: " or "))"
        case let .notFinite(keyPath, role):
            "\(keyPath): \(role) has a NaN or infinite number"
        case .tooManyValues(let keyPath):
            "\(keyPath): set at most two of fromValue, toValue and byValue"
        case let .timing(field, value, requirement):
            "\(field) is \(value); it must be \(requirement)"
        case let .conflictingRepeat(count, duration):
            "repeatCount (\(count)) and repeatDuration (\(duration)) are both set; set one"
        case .noKeyframes(let keyPath):
            "\(keyPath): a keyframe animation needs values or a path"
        case .pathNeedsPointProperty(let keyPath):
            "\(keyPath): a path can only animate a point property such as position or anchorPoint"
        case let .invalidPath(keyPath, reason):
            "\(keyPath): invalid path: \(reason)"
        case .valueFunctionNeedsTransform(let keyPath):
            "\(keyPath): a valueFunction needs the key path 'transform' or 'sublayerTransform'"
        case let .spring(parameter, value, requirement):
            "spring \(parameter) is \(value); it must be \(requirement)"
        case let .transitionProgress(start, end):
            "transition progress \(start)…\(end) must satisfy 0 ≤ startProgress ≤ endProgress ≤ 1"
        case let .inGroup(index, error):
            "animation \(index) of the group: \(error)"
        }
    }
}

/// The properties every animation has: `CAMediaTiming` plus `CAAnimation`'s timing function
/// and removal. The timing fields are also readable one by one, as in Core Animation.
public protocol TimedAnimation: Sendable {
    /// The `CAMediaTiming` fields.
    var timing: MediaTiming { get set }
    /// `timingFunction`; nil is linear.
    var timingFunction: TimingFunction? { get set }
    /// `removedOnCompletion` (default true).
    var isRemovedOnCompletion: Bool { get set }
}

extension TimedAnimation {
    /// `beginTime`.
    public var beginTime: Double { get { timing.beginTime } set { timing.beginTime = newValue } }
    /// `duration`.
    public var duration: Double { get { timing.duration } set { timing.duration = newValue } }
    /// `speed`.
    public var speed: Double { get { timing.speed } set { timing.speed = newValue } }
    /// `timeOffset`.
    public var timeOffset: Double { get { timing.timeOffset } set { timing.timeOffset = newValue } }
    /// `repeatCount`.
    public var repeatCount: Double { get { timing.repeatCount } set { timing.repeatCount = newValue } }
    /// `repeatDuration`.
    public var repeatDuration: Double { get { timing.repeatDuration } set { timing.repeatDuration = newValue } }
    /// `autoreverses`.
    public var autoreverses: Bool { get { timing.autoreverses } set { timing.autoreverses = newValue } }
    /// `fillMode`.
    public var fillMode: FillMode { get { timing.fillMode } set { timing.fillMode = newValue } }

    /// Range checks shared by every animation.
    func collectTimingErrors(into errors: inout [AnimationError]) {
        let t = timing
        if !t.beginTime.isFinite { errors.append(.timing(field: "beginTime", value: t.beginTime, requirement: "finite")) }
        if !(t.duration >= 0) || t.duration.isInfinite {
            errors.append(.timing(field: "duration", value: t.duration, requirement: "finite and ≥ 0 (0 means the transaction's duration)"))
        }
        if !t.speed.isFinite { errors.append(.timing(field: "speed", value: t.speed, requirement: "finite")) }
        if !t.timeOffset.isFinite { errors.append(.timing(field: "timeOffset", value: t.timeOffset, requirement: "finite")) }
        if !(t.repeatCount >= 0) {
            errors.append(.timing(field: "repeatCount", value: t.repeatCount, requirement: "≥ 0 (infinity repeats forever)"))
        }
        if !(t.repeatDuration >= 0) {
            errors.append(.timing(field: "repeatDuration", value: t.repeatDuration, requirement: "≥ 0"))
        }
        if t.repeatCount > 0, t.repeatDuration > 0 {
            errors.append(.conflictingRepeat(repeatCount: t.repeatCount, repeatDuration: t.repeatDuration))
        }
    }
}
