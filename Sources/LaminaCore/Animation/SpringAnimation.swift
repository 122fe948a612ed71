/// A basic animation whose progress follows a damped spring. Mirrors `CASpringAnimation`.
///
/// The from/to/by rules, additive and cumulative behave as in `BasicAnimation`. The progress at
/// `t` seconds into a cycle is `1 − x(t)` for the closed-form damped oscillator
/// `m·x″ + c·x′ + k·x = 0` with `x(0) = 1` and `x′(0) = −initialVelocity`, so it may overshoot 1.
/// The spring runs in seconds, not fractions of `duration`: a duration shorter than
/// `settlingDuration` cuts the motion off. Set `duration = settlingDuration` for the full motion.
public struct SpringAnimation: TimedAnimation, Hashable {
    /// `keyPath`: the property animated.
    public var keyPath: String
    /// `fromValue` (see `BasicAnimation` for the from/to/by rules).
    public var fromValue: PropertyValue?
    /// `toValue`.
    public var toValue: PropertyValue?
    /// `byValue`.
    public var byValue: PropertyValue?
    /// The `CAMediaTiming` fields (beginTime, duration, speed, repeats, fill mode, …).
    public var timing: MediaTiming
    /// Warps the spring's clock (time fraction → time fraction) before the spring is evaluated;
    /// nil, the usual, leaves it alone.
    public var timingFunction: TimingFunction?
    /// `removedOnCompletion` (default true).
    public var isRemovedOnCompletion: Bool
    /// `additive`: the animated value is added to the underlying value.
    public var isAdditive: Bool
    /// `cumulative`: each finished repeat adds the end value to the next.
    public var isCumulative: Bool
    /// `valueFunction`: the values are inputs of this function, whose transform is the result.
    public var valueFunction: ValueFunction?
    /// `mass` (default 1, > 0).
    public var mass: Double
    /// `stiffness` (default 100, > 0).
    public var stiffness: Double
    /// `damping` (default 10, ≥ 0).
    public var damping: Double
    /// `initialVelocity` in units of the whole distance per second, positive towards the target
    /// (default 0).
    public var initialVelocity: Double

    /// `CASpringAnimation(keyPath:)` with every property settable at once (Core Animation defaults).
    public init(keyPath: String, fromValue: PropertyValue? = nil, toValue: PropertyValue? = nil,
                byValue: PropertyValue? = nil, timing: MediaTiming = MediaTiming(),
                timingFunction: TimingFunction? = nil, isRemovedOnCompletion: Bool = true,
                isAdditive: Bool = false, isCumulative: Bool = false, valueFunction: ValueFunction? = nil,
                mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0) {
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
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.initialVelocity = initialVelocity
    }

    /// The oscillator these parameters describe.
    public var spring: DampedSpring {
        DampedSpring(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: initialVelocity)
    }

    /// `settlingDuration`: how long the spring takes to come to rest (see `DampedSpring`).
    public var settlingDuration: Double { spring.settlingDuration }

    /// The same animation as a basic one, for the shared value rules.
    var basic: BasicAnimation {
        BasicAnimation(keyPath: keyPath, fromValue: fromValue, toValue: toValue, byValue: byValue, timing: timing,
                       timingFunction: timingFunction, isRemovedOnCompletion: isRemovedOnCompletion,
                       isAdditive: isAdditive, isCumulative: isCumulative, valueFunction: valueFunction)
    }

    func collectErrors(into errors: inout [AnimationError]) {
        basic.collectErrors(into: &errors)
        if !(mass > 0) || !mass.isFinite { errors.append(.spring(parameter: "mass", value: mass, requirement: "finite and > 0")) }
        if !(stiffness > 0) || !stiffness.isFinite {
            errors.append(.spring(parameter: "stiffness", value: stiffness, requirement: "finite and > 0"))
        }
        if !(damping >= 0) || !damping.isFinite {
            errors.append(.spring(parameter: "damping", value: damping, requirement: "finite and ≥ 0"))
        }
        if !initialVelocity.isFinite {
            errors.append(.spring(parameter: "initialVelocity", value: initialVelocity, requirement: "finite"))
        }
    }
}

/// The closed-form solution of a damped harmonic oscillator released at displacement 1.
///
/// With ω₀ = √(k/m) and ζ = c / (2√(k·m)): under-damped (ζ < 1)
/// `x = e^(−ζω₀t)(cos ω_d t + B sin ω_d t)`, critically damped `x = (1 + B t) e^(−ω₀t)`,
/// over-damped `x = C₁e^(r₁t) + C₂e^(r₂t)`, with the constants fixed by `x′(0) = −v₀`.
public struct DampedSpring: Hashable, Sendable {
    /// The parameters, as given (out-of-range values replaced by the defaults).
    public let mass: Double, stiffness: Double, damping: Double, initialVelocity: Double
    private let kind: Kind
    private enum Kind: Hashable { case under, critical, over }
    private let omega0: Double, zeta: Double
    // Under-damped: ωd, B. Critical: B. Over-damped: r1, r2, C1, C2.
    private let p0: Double, p1: Double, p2: Double, p3: Double

    /// The settling threshold: the spring is at rest once it stays within this fraction of the
    /// distance from its target. Core Animation does not document its threshold.
    public static let restThreshold = 0.001

    /// The oscillator for these parameters (`CASpringAnimation`'s defaults unless given).
    public init(mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0) {
        // Out-of-range parameters are refused by validate(); here they are made harmless.
        let m = mass > 0 && mass.isFinite ? mass : 1
        let k = stiffness > 0 && stiffness.isFinite ? stiffness : 100
        let c = damping >= 0 && damping.isFinite ? damping : 10
        let v = initialVelocity.isFinite ? initialVelocity : 0
        self.mass = m; self.stiffness = k; self.damping = c; self.initialVelocity = v
        let w0 = (k / m).squareRoot()
        let z = c / (2 * (k * m).squareRoot())
        omega0 = w0
        zeta = z
        let dx0 = -v
        if z < 1 {
            kind = .under
            let wd = w0 * (1 - z * z).squareRoot()
            p0 = wd
            p1 = (dx0 + z * w0) / wd
            p2 = 0; p3 = 0
        } else if z == 1 {
            kind = .critical
            p0 = dx0 + w0
            p1 = 0; p2 = 0; p3 = 0
        } else {
            kind = .over
            let s = w0 * (z * z - 1).squareRoot()
            let r1 = -z * w0 + s, r2 = -z * w0 - s
            // C1 + C2 = 1, r1·C1 + r2·C2 = dx0
            let c1 = (dx0 - r2) / (r1 - r2)
            p0 = r1; p1 = r2; p2 = c1; p3 = 1 - c1
        }
    }

    /// The displacement from the target at `t` seconds, as a fraction of the distance: 1 at t = 0,
    /// tending to 0.
    public func displacement(at t: Double) -> Double {
        switch kind {
        case .under:
            return _exp(-zeta * omega0 * t) * (_cos(p0 * t) + p1 * _sin(p0 * t))
        case .critical:
            return (1 + p0 * t) * _exp(-omega0 * t)
        case .over:
            return p2 * _exp(p0 * t) + p3 * _exp(p1 * t)
        }
    }

    /// The progress at `t` seconds: `1 − displacement(at: t)`.
    @inlinable public func progress(at t: Double) -> Double { 1 - displacement(at: t) }

    /// An upper bound of |displacement| after `t` (decreasing once past its peak).
    private func envelope(at t: Double) -> Double {
        switch kind {
        case .under: return (1 + Swift.abs(p1)) * _exp(-zeta * omega0 * t)
        case .critical: return (1 + Swift.abs(p0) * t) * _exp(-omega0 * t)
        case .over: return Swift.abs(p2) * _exp(p0 * t) + Swift.abs(p3) * _exp(p1 * t)
        }
    }

    /// `settlingDuration`: the first time, to the millisecond, after which the displacement stays
    /// within `restThreshold`. Found by bounding it with the decay envelope, then scanning back
    /// from that bound in 1 ms steps to the last time the spring was outside the threshold.
    public var settlingDuration: Double {
        let eps = DampedSpring.restThreshold
        var hi = 1.0 / 64
        while envelope(at: hi) > eps, hi < 1e4 { hi *= 2 }
        var lo = 0.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if envelope(at: mid) > eps { lo = mid } else { hi = mid }
        }
        let step = 0.001
        var t = (hi / step).rounded(.up) * step
        while t > 0, Swift.abs(displacement(at: t - step)) <= eps { t -= step }
        return (t * 1000).rounded() / 1000
    }
}
