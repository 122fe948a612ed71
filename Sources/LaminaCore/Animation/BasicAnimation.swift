/// An animation of one property from one value to another. Mirrors `CABasicAnimation`.
///
/// Which values it runs between follows Core Animation's rules for `fromValue`, `toValue` and
/// `byValue` (at most two set); where a value is missing, the *current presentation value* is
/// the value the property has underneath this animation in the frame being evaluated (the model
/// value with earlier animations applied):
///
/// | set | runs |
/// |---|---|
/// | from, to | from → to |
/// | from, by | from → from + by |
/// | by, to | to − by → to |
/// | from | from → current |
/// | to | current → to |
/// | by | current → current + by |
/// | none | previous → current, where previous is `LayerAnimations.add`'s `previous` presentation |
public struct BasicAnimation: TimedAnimation, Hashable {
    /// `keyPath`: the property animated, e.g. `"opacity"` or `"transform.rotation.z"`.
    public var keyPath: String
    /// `fromValue`.
    public var fromValue: PropertyValue?
    /// `toValue`.
    public var toValue: PropertyValue?
    /// `byValue`.
    public var byValue: PropertyValue?
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

    /// `CABasicAnimation(keyPath:)` with every property settable at once (Core Animation defaults).
    public init(keyPath: String, fromValue: PropertyValue? = nil, toValue: PropertyValue? = nil,
                byValue: PropertyValue? = nil, timing: MediaTiming = MediaTiming(),
                timingFunction: TimingFunction? = nil, isRemovedOnCompletion: Bool = true,
                isAdditive: Bool = false, isCumulative: Bool = false, valueFunction: ValueFunction? = nil) {
        self.keyPath = keyPath
        self.fromValue = fromValue
        self.toValue = toValue
        self.byValue = byValue
        self.timing = timing
        self.timingFunction = timingFunction
        self.isRemovedOnCompletion = isRemovedOnCompletion
        self.isAdditive = isAdditive
        self.isCumulative = isCumulative
        self.valueFunction = valueFunction
    }

    /// Convenience for the common case: `keyPath` over `duration` seconds.
    public init(keyPath: String, from: PropertyValue? = nil, to: PropertyValue? = nil, by: PropertyValue? = nil,
                duration: Double, timingFunction: TimingFunction? = nil) {
        self.init(keyPath: keyPath, fromValue: from, toValue: to, byValue: by,
                  timing: MediaTiming(duration: duration), timingFunction: timingFunction)
    }

    func collectErrors(into errors: inout [AnimationError]) {
        collectTimingErrors(into: &errors)
        guard let path = checkedKeyPath(keyPath, valueFunction: valueFunction, into: &errors) else { return }
        let expected = valueFunction?.inputTypes ?? [path.valueType]
        for (role, value) in [("fromValue", fromValue), ("toValue", toValue), ("byValue", byValue)] {
            if let v = value, !expected.contains(v.type) {
                errors.append(.valueType(keyPath: keyPath, role: role, expected: expected, got: v.type))
            } else if let v = value, !v.isFinite {
                errors.append(.notFinite(keyPath: keyPath, role: role))
            }
        }
        if fromValue != nil, toValue != nil, byValue != nil { errors.append(.tooManyValues(keyPath: keyPath)) }
    }
}

/// Parses `keyPath` and checks a value function fits it, recording problems.
func checkedKeyPath(_ keyPath: String, valueFunction: ValueFunction?, into errors: inout [AnimationError]) -> AnimationKeyPath? {
    let path: AnimationKeyPath
    do { path = try AnimationKeyPath.parse(keyPath) } catch {
        errors.append(.keyPath(error))
        return nil
    }
    if valueFunction != nil, !(path.component == .whole && path.valueType == .transform) {
        errors.append(.valueFunctionNeedsTransform(keyPath: keyPath))
        return nil
    }
    return path
}
