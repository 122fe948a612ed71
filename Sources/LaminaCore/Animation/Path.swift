/// One element of a `Path`, as `CGPathElement`.
public enum PathElement: Sendable, Hashable {
    /// Starts a new subpath (`CGPathMoveToPoint`). Not a keyframe.
    case moveTo(Point)
    /// A straight line (`CGPathAddLineToPoint`). Its end point is a keyframe.
    case lineTo(Point)
    /// A quadratic Bézier (`CGPathAddQuadCurveToPoint`). Its end point is a keyframe.
    case quadCurveTo(control: Point, end: Point)
    /// A cubic Bézier (`CGPathAddCurveToPoint`). Its end point is a keyframe.
    case curveTo(control1: Point, control2: Point, end: Point)
    /// A line back to the subpath's start (`CGPathCloseSubpath`). The start is a keyframe.
    case closeSubpath
}

/// A path of lines and Bézier curves, the `path` of a keyframe animation (`CGPath`).
public struct Path: Sendable, Hashable {
    /// The elements in drawing order.
    public var elements: [PathElement]

    /// A path of `elements`.
    public init(_ elements: [PathElement] = []) { self.elements = elements }

    /// `CGPathMoveToPoint`.
    public mutating func move(to p: Point) { elements.append(.moveTo(p)) }
    /// `CGPathAddLineToPoint`.
    public mutating func addLine(to p: Point) { elements.append(.lineTo(p)) }
    /// `CGPathAddQuadCurveToPoint`.
    public mutating func addQuadCurve(to end: Point, control: Point) { elements.append(.quadCurveTo(control: control, end: end)) }
    /// `CGPathAddCurveToPoint`.
    public mutating func addCurve(to end: Point, control1: Point, control2: Point) {
        elements.append(.curveTo(control1: control1, control2: control2, end: end))
    }
    /// `CGPathCloseSubpath`.
    public mutating func closeSubpath() { elements.append(.closeSubpath) }

    /// The drawn segments as cubic Béziers (lines and quadratics raised to cubics, which keeps
    /// their parameterisation). Move-tos only set where the next segment starts; a path that does
    /// not begin with one starts at (0, 0), as Core Graphics would.
    var segments: [CubicSegment] {
        var out: [CubicSegment] = []
        var current = Point.zero, subpathStart = Point.zero
        for e in elements {
            switch e {
            case .moveTo(let p):
                current = p
                subpathStart = p
            case .lineTo(let p):
                out.append(.line(current, p))
                current = p
            case let .quadCurveTo(c, p):
                // Degree elevation: the cubic with controls a + 2/3(c − a) and b + 2/3(c − b).
                out.append(CubicSegment(p0: current, c1: current + (c - current) * (2.0 / 3),
                                        c2: p + (c - p) * (2.0 / 3), p3: p))
                current = p
            case let .curveTo(c1, c2, p):
                out.append(CubicSegment(p0: current, c1: c1, c2: c2, p3: p))
                current = p
            case .closeSubpath:
                out.append(.line(current, subpathStart))
                current = subpathStart
            }
        }
        return out
    }

    /// True when every coordinate is finite.
    public var isFinite: Bool {
        elements.allSatisfy { e in
            switch e {
            case .moveTo(let p), .lineTo(let p): p.x.isFinite && p.y.isFinite
            case let .quadCurveTo(c, p): c.x.isFinite && c.y.isFinite && p.x.isFinite && p.y.isFinite
            case let .curveTo(c1, c2, p):
                c1.x.isFinite && c1.y.isFinite && c2.x.isFinite && c2.y.isFinite && p.x.isFinite && p.y.isFinite
            case .closeSubpath: true
            }
        }
    }
}

/// A cubic Bézier segment of a path.
struct CubicSegment: Sendable, Hashable {
    var p0: Point, c1: Point, c2: Point, p3: Point

    /// A straight line with its controls at thirds, so `point(at:)` moves at constant speed.
    static func line(_ a: Point, _ b: Point) -> CubicSegment {
        CubicSegment(p0: a, c1: a + (b - a) * (1.0 / 3), c2: a + (b - a) * (2.0 / 3), p3: b)
    }

    @inline(__always) func point(at u: Double) -> Point {
        let v = 1 - u
        let a = v * v * v, b = 3 * v * v * u, c = 3 * v * u * u, d = u * u * u
        return Point(x: a * p0.x + b * c1.x + c * c2.x + d * p3.x,
                     y: a * p0.y + b * c1.y + c * c2.y + d * p3.y)
    }

    /// dB/du.
    @inline(__always) func derivative(at u: Double) -> Point {
        let v = 1 - u
        let a = 3 * v * v, b = 6 * v * u, c = 3 * u * u
        return Point(x: a * (c1.x - p0.x) + b * (c2.x - c1.x) + c * (p3.x - c2.x),
                     y: a * (c1.y - p0.y) + b * (c2.y - c1.y) + c * (p3.y - c2.y))
    }

    /// The direction of travel at `u`; where the derivative vanishes (a control point on an end
    /// point), the chord or the nearest control leg stands in.
    func tangent(at u: Double) -> Point {
        let d = derivative(at: u)
        if d.x != 0 || d.y != 0 { return d }
        let near = u < 0.5 ? (c2 - p0) : (p3 - c1)
        if near.x != 0 || near.y != 0 { return near }
        return p3 - p0
    }
}

/// Arc length along a sequence of segments, sampled so that a distance can be turned back into
/// (segment, parameter) in O(log n): what paced keyframes use to move at constant speed.
struct ArcLengthTable: Sendable, Hashable {
    /// Sub-intervals per segment.
    static let resolution = 64
    /// Cumulative length at the start of each sub-interval, plus the total at the end.
    let cumulative: [Double]
    /// Speed at the start and end of each sub-interval, to invert the length within a sub-interval
    /// to second order (linear interpolation alone is off by ~1% on tight curves).
    let startSpeeds: [Double], endSpeeds: [Double]
    let segmentCount: Int

    var total: Double { cumulative.last ?? 0 }

    /// Builds the table from the speed |dP/du| of each segment, integrated over each
    /// sub-interval with 3-point Gauss–Legendre quadrature.
    init(segmentCount: Int, speed: (Int, Double) -> Double) {
        let n = ArcLengthTable.resolution
        var c: [Double] = [0]
        var v0: [Double] = [], v1: [Double] = []
        c.reserveCapacity(segmentCount * n + 1)
        v0.reserveCapacity(segmentCount * n)
        v1.reserveCapacity(segmentCount * n)
        let g = 0.7745966692414834 // √(3/5)
        var s = 0.0
        for seg in 0..<segmentCount {
            for k in 0..<n {
                let a = Double(k) / Double(n), h = 1 / Double(n)
                v0.append(speed(seg, a))
                v1.append(speed(seg, a + h))
                let mid = a + h / 2
                let len = h / 2 * (5.0 / 9 * speed(seg, mid - g * h / 2) + 8.0 / 9 * speed(seg, mid)
                                   + 5.0 / 9 * speed(seg, mid + g * h / 2))
                s += len
                c.append(s)
            }
        }
        cumulative = c
        startSpeeds = v0
        endSpeeds = v1
        self.segmentCount = segmentCount
    }

    /// The segment and parameter at arc-length fraction `p` ∈ [0, 1].
    func locate(fraction p: Double) -> (segment: Int, u: Double) {
        let n = ArcLengthTable.resolution
        let total = self.total
        guard total > 0, segmentCount > 0 else {
            // No length at all: spread time evenly over the segments.
            let x = Swift.min(Swift.max(p, 0), 1) * Double(segmentCount)
            let seg = Swift.min(Int(x), Swift.max(segmentCount - 1, 0))
            return (seg, x - Double(seg))
        }
        let target = Swift.min(Swift.max(p, 0), 1) * total
        // Largest k with cumulative[k] ≤ target, k < count − 1.
        var lo = 0, hi = cumulative.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cumulative[mid] <= target { lo = mid } else { hi = mid }
        }
        let span = cumulative[lo + 1] - cumulative[lo]
        let f = span > 0 ? (target - cumulative[lo]) / span : 0
        // With speed varying linearly from v0 to v1 across the sub-interval, the length covered
        // by parameter fraction τ is (v0·τ + (v1 − v0)·τ²/2) / ((v0 + v1)/2); solve for τ.
        let v0 = startSpeeds[lo], v1 = endSpeeds[lo]
        var within = f
        let a = (v1 - v0) / 2, c = f * (v0 + v1) / 2
        if Swift.abs(a) > 1e-12 * (v0 + v1), v0 + v1 > 0 {
            let disc = Swift.max(v0 * v0 + 4 * a * c, 0)
            within = Swift.min(Swift.max((-v0 + disc.squareRoot()) / (2 * a), 0), 1)
        }
        let seg = lo / n
        let u = (Double(lo % n) + within) / Double(n)
        return (seg, Swift.min(u, 1))
    }
}
