/// A cubic Bézier easing curve from (0, 0) to (1, 1), mapping an animation's time fraction to
/// its progress. Mirrors `CAMediaTimingFunction`.
///
/// The curve is `B(s) = 3(1−s)²s·P1 + 3(1−s)s²·P2 + s³` for `s ∈ [0, 1]`; `value(at: x)` solves
/// `Bx(s) = x` for `s` (Newton's method, bisection when Newton stalls) and returns `By(s)`.
/// Inputs outside [0, 1] are clamped. The x coordinates of the control points are clamped to
/// [0, 1] so that x is monotone and the solve has one answer; y coordinates are kept as given, so
/// overshooting curves such as (0.175, 0.885, 0.32, 1.275) work.
public struct TimingFunction: Hashable, Sendable, CustomStringConvertible {
    /// The first control point, P1 (`getControlPointAtIndex:1`).
    public let c1x: Double, c1y: Double
    /// The second control point, P2 (`getControlPointAtIndex:2`).
    public let c2x: Double, c2y: Double

    // Polynomial coefficients: Bx(s) = ((ax·s + bx)·s + cx)·s, likewise for y.
    private let ax: Double, bx: Double, cx: Double
    private let ay: Double, by: Double, cy: Double

    /// `CAMediaTimingFunction(controlPoints:_:_:_:)`. Non-finite numbers become those of `linear`.
    public init(controlPoints c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        let ok = c1x.isFinite && c1y.isFinite && c2x.isFinite && c2y.isFinite
        self.c1x = ok ? Swift.min(Swift.max(c1x, 0), 1) : 0
        self.c1y = ok ? c1y : 0
        self.c2x = ok ? Swift.min(Swift.max(c2x, 0), 1) : 1
        self.c2y = ok ? c2y : 1
        cx = 3 * self.c1x
        bx = 3 * (self.c2x - self.c1x) - cx
        ax = 1 - cx - bx
        cy = 3 * self.c1y
        by = 3 * (self.c2y - self.c1y) - cy
        ay = 1 - cy - by
    }

    /// `kCAMediaTimingFunctionLinear`: (0,0) (1,1).
    public static let linear = TimingFunction(controlPoints: 0, 0, 1, 1)
    /// `kCAMediaTimingFunctionEaseIn`: (0.42,0) (1,1).
    public static let easeIn = TimingFunction(controlPoints: 0.42, 0, 1, 1)
    /// `kCAMediaTimingFunctionEaseOut`: (0,0) (0.58,1).
    public static let easeOut = TimingFunction(controlPoints: 0, 0, 0.58, 1)
    /// `kCAMediaTimingFunctionEaseInEaseOut`: (0.42,0) (0.58,1).
    public static let easeInEaseOut = TimingFunction(controlPoints: 0.42, 0, 0.58, 1)
    /// `kCAMediaTimingFunctionDefault`: (0.25,0.1) (0.25,1), the curve of implicit animations.
    public static let `default` = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)

    /// The named curves, by their Core Animation names (`"linear"`, `"easeIn"`, `"easeOut"`,
    /// `"easeInEaseOut"`, `"default"`), as `CAMediaTimingFunction(name:)` accepts them.
    public init?(name: String) {
        switch name {
        case "linear": self = .linear
        case "easeIn": self = .easeIn
        case "easeOut": self = .easeOut
        case "easeInEaseOut": self = .easeInEaseOut
        case "default": self = .default
        default: return nil
        }
    }

    /// True for the identity curve, which evaluation skips.
    @inlinable public var isLinear: Bool { c1x == c1y && c2x == c2y }

    /// Progress at time fraction `x`: solves x → s on the curve and returns y(s).
    /// Accurate to better than 1e-9 in x; `x` outside [0, 1] is clamped.
    public func value(at x: Double) -> Double {
        if !(x > 0) { return 0 }   // also maps NaN to 0
        if x >= 1 { return 1 }
        if isLinear { return x }
        return sampleY(solveS(forX: x))
    }

    @inline(__always) private func sampleX(_ s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
    @inline(__always) private func sampleY(_ s: Double) -> Double { ((ay * s + by) * s + cy) * s }
    @inline(__always) private func slopeX(_ s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }

    /// The curve parameter whose x is `x` (0 < x < 1).
    private func solveS(forX x: Double) -> Double {
        let epsilon = 1e-12
        // Newton from s = x converges in a handful of steps unless the slope vanishes
        // (control points at x = 0 or 1); then bisection, which always converges.
        var s = x
        for _ in 0..<8 {
            let err = sampleX(s) - x
            if Swift.abs(err) < epsilon { return s }
            let d = slopeX(s)
            if Swift.abs(d) < 1e-7 { break }
            let next = s - err / d
            if next < 0 || next > 1 { break }
            s = next
        }
        var lo = 0.0, hi = 1.0
        s = x
        for _ in 0..<64 {
            let v = sampleX(s)
            if Swift.abs(v - x) < epsilon { return s }
            if v < x { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return s
    }

    public var description: String { "TimingFunction(\(c1x), \(c1y), \(c2x), \(c2y))" }

    public static func == (a: TimingFunction, b: TimingFunction) -> Bool {
        a.c1x == b.c1x && a.c1y == b.c1y && a.c2x == b.c2x && a.c2y == b.c2y
    }

    public func hash(into h: inout Hasher) { h.combine(c1x); h.combine(c1y); h.combine(c2x); h.combine(c2y) }
}
