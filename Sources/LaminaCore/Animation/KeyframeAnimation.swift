/// How a keyframe animation computes the values between keyframes. Mirrors
/// `CAAnimationCalculationMode`.
public enum CalculationMode: String, Sendable, Hashable, CaseIterable {
    /// `kCAAnimationLinear` (the default): interpolate between neighbouring keyframes.
    case linear
    /// `kCAAnimationDiscrete`: jump from keyframe to keyframe; `timingFunctions` are ignored.
    case discrete
    /// `kCAAnimationPaced`: constant speed by the distance between values; `keyTimes` and
    /// `timingFunctions` are ignored.
    case paced
    /// `kCAAnimationCubic`: a Kochanek–Bartels (Catmull-Rom by default) spline through the values.
    case cubic
    /// `kCAAnimationCubicPaced`: the cubic spline travelled at constant speed; `keyTimes` and
    /// `timingFunctions` are ignored.
    case cubicPaced
}

/// Whether a layer moving along a path turns with it. Mirrors `CAAnimationRotationMode`.
public enum RotationMode: String, Sendable, Hashable, CaseIterable {
    /// `kCAAnimationRotateAuto`: the layer's x axis follows the path tangent.
    case auto
    /// `kCAAnimationRotateAutoReverse`: the tangent plus 180°.
    case autoReverse
}

/// An animation through a sequence of values, or along a path. Mirrors `CAKeyframeAnimation`.
///
/// Timing: the animation-level `timingFunction` maps time to progress first; `keyTimes` (or
/// even spacing) then pick the segment, and the segment's entry in `timingFunctions` shapes the
/// progress within it. Invalid `keyTimes` are ignored, as in Core Animation: linear and cubic need
/// one per value, the first 0 and the last 1; discrete takes one per value (first 0) or one more
/// than the values (first 0, last 1); all must be non-decreasing within [0, 1].
///
/// With a `path`, each line or curve end point is a keyframe and the start point is the first;
/// the layer follows the drawn curves. Linear and cubic modes follow each segment by its own
/// parameter, paced and cubicPaced by arc length over the whole path, discrete jumps between
/// the keyframe points.
public struct KeyframeAnimation: TimedAnimation, Hashable {
    /// `keyPath`: the property animated.
    public var keyPath: String
    /// `values`: the keyframe values, all of the key path's type (or the value function's input).
    public var values: [PropertyValue]
    /// `path`: for point properties; when set, `values` is ignored.
    public var path: Path?
    /// `keyTimes`: fractions of the duration at which each keyframe is reached.
    public var keyTimes: [Double]?
    /// `timingFunctions`: one per segment, applied after `timingFunction`.
    public var timingFunctions: [TimingFunction]?
    /// `calculationMode`.
    public var calculationMode: CalculationMode
    /// `rotationMode`: nil (the default) keeps the layer's rotation.
    public var rotationMode: RotationMode?
    /// `tensionValues`, per keyframe (missing entries are 0). Cubic modes only.
    public var tensionValues: [Double]?
    /// `continuityValues`, per keyframe (missing entries are 0). Cubic modes only.
    public var continuityValues: [Double]?
    /// `biasValues`, per keyframe (missing entries are 0). Cubic modes only.
    public var biasValues: [Double]?
    /// The `CAMediaTiming` fields (beginTime, duration, speed, repeats, fill mode, …).
    public var timing: MediaTiming
    /// `timingFunction`: maps time to progress; nil is linear.
    public var timingFunction: TimingFunction?
    /// `removedOnCompletion` (default true).
    public var isRemovedOnCompletion: Bool
    /// `additive`: the animated value is added to the underlying value.
    public var isAdditive: Bool
    /// `cumulative`: each finished repeat adds the end value to the next.
    public var isCumulative: Bool
    /// `valueFunction`: the values are inputs of this function, whose transform is the result.
    public var valueFunction: ValueFunction?

    /// `CAKeyframeAnimation(keyPath:)` with every property settable at once (Core Animation defaults).
    public init(keyPath: String, values: [PropertyValue] = [], path: Path? = nil, keyTimes: [Double]? = nil,
                timingFunctions: [TimingFunction]? = nil, calculationMode: CalculationMode = .linear,
                rotationMode: RotationMode? = nil, tensionValues: [Double]? = nil,
                continuityValues: [Double]? = nil, biasValues: [Double]? = nil,
                timing: MediaTiming = MediaTiming(), timingFunction: TimingFunction? = nil,
                isRemovedOnCompletion: Bool = true, isAdditive: Bool = false, isCumulative: Bool = false,
                valueFunction: ValueFunction? = nil) {
        self.keyPath = keyPath
        self.values = values
        self.path = path
        self.keyTimes = keyTimes
        self.timingFunctions = timingFunctions
        self.calculationMode = calculationMode
        self.rotationMode = rotationMode
        self.tensionValues = tensionValues
        self.continuityValues = continuityValues
        self.biasValues = biasValues
        self.timing = timing
        self.timingFunction = timingFunction
        self.isRemovedOnCompletion = isRemovedOnCompletion
        self.isAdditive = isAdditive
        self.isCumulative = isCumulative
        self.valueFunction = valueFunction
    }

    /// How many keyframes there are: the values, or the path's start point plus one per line or
    /// curve.
    public var keyframeCount: Int {
        if let path { let n = path.segments.count; return n == 0 ? 0 : n + 1 }
        return values.count
    }

    /// The key times evaluation uses: `keyTimes` when valid for the calculation mode, otherwise
    /// even spacing (i/(n−1), or i/n for discrete). Empty for the paced modes, which derive
    /// their timing from distances.
    public var effectiveKeyTimes: [Double] {
        KeyframeAnimation.effectiveKeyTimes(keyTimes, count: keyframeCount, mode: calculationMode)
    }

    static func effectiveKeyTimes(_ keyTimes: [Double]?, count n: Int, mode: CalculationMode) -> [Double] {
        switch mode {
        case .paced, .cubicPaced:
            return []
        case .discrete:
            if let k = keyTimes, isOrdered(k), k.first == 0, k.count == n || (k.count == n + 1 && k.last == 1) {
                return k
            }
            return (0..<n).map { Double($0) / Double(n) }
        case .linear, .cubic:
            if let k = keyTimes, k.count == n, isOrdered(k), k.first == 0, k.last == 1 { return k }
            if n < 2 { return [0] }
            return (0..<n).map { Double($0) / Double(n - 1) }
        }
    }

    private static func isOrdered(_ k: [Double]) -> Bool {
        guard !k.isEmpty else { return false }
        var previous = 0.0
        for t in k {
            guard t >= previous, t <= 1 else { return false }   // also rejects NaN
            previous = t
        }
        return true
    }

    func collectErrors(into errors: inout [AnimationError]) {
        collectTimingErrors(into: &errors)
        guard let keyPath = checkedKeyPath(self.keyPath, valueFunction: valueFunction, into: &errors) else { return }
        // Tension, continuity and bias feed the spline directly: a NaN would reach every frame.
        for (role, list) in [("tensionValues", tensionValues), ("continuityValues", continuityValues), ("biasValues", biasValues)] {
            if let list, let i = list.firstIndex(where: { !$0.isFinite }) {
                errors.append(.notFinite(keyPath: self.keyPath, role: "\(role)[\(i)]"))
            }
        }
        if let path {
            if valueFunction != nil || keyPath.valueType != .point {
                errors.append(.pathNeedsPointProperty(keyPath: self.keyPath))
            }
            if !path.isFinite {
                errors.append(.invalidPath(keyPath: self.keyPath, reason: "a coordinate is NaN or infinite"))
            } else if path.segments.isEmpty {
                errors.append(.invalidPath(keyPath: self.keyPath, reason: "no line or curve elements"))
            }
            return
        }
        if values.isEmpty { errors.append(.noKeyframes(keyPath: self.keyPath)); return }
        let expected = valueFunction?.inputTypes ?? [keyPath.valueType]
        let firstType = values[0].type
        for (i, v) in values.enumerated() {
            if !expected.contains(v.type) || v.type != firstType {
                errors.append(.valueType(keyPath: self.keyPath, role: "values[\(i)]",
                                         expected: expected.contains(firstType) ? [firstType] : expected, got: v.type))
            } else if !v.isFinite {
                errors.append(.notFinite(keyPath: self.keyPath, role: "values[\(i)]"))
            }
        }
    }
}
