import LaminaCore

/// UIScrollView's scrolling, as a pure value: how an offset follows a drag and what it does after
/// the finger lifts (momentum, the rubber band at the edges, springing back, paging). Time is
/// passed in, never read, and every curve is in closed form from where it started, so the offset
/// at a time does not depend on how many frames were drawn before it: the virtual clock gives the
/// same pixels however far it is advanced at a time.
///
/// Offsets here are *raw*: where the finger (or the momentum) would have taken the origin without
/// the rubber band. Inside the extent the raw offset is shown as it is; beyond an edge the
/// overscroll x is shown as `(1 − 1/(x·c/d + 1))·d` (`ScrollAxis.shown`), so the content follows
/// ever more reluctantly and never more than d past the edge.
enum ScrollPhysics {
    /// UIScrollView's normal deceleration rate: the velocity keeps this share of itself per
    /// millisecond (`UIScrollView.DecelerationRate.normal`).
    static let decelerationRate = 0.998
    /// The same as an exponential rate per second: v(t) = v₀·e^(−k·t), k = −1000·ln 0.998 ≈ 2.002.
    static let decelerationPerSecond = -1000 * _log(decelerationRate)
    /// The rubber band's c.
    static let rubberBandCoefficient = 0.55
    /// The angular frequency (1/s) of the critically damped spring that brings an overscrolled
    /// offset back to the edge, catches a fling at an edge, and settles a page: back within half a
    /// point of 100 points in about half a second, as UIScrollView's bounce.
    static let springRate = 15.0
    /// Momentum stops when the velocity falls below this (points per second): a standstill the
    /// eye cannot tell from it, at a time computed in closed form.
    static let restingSpeed = 10.0
    /// A spring has settled when it is within this many points of its target, moving slower than
    /// `restingSpeed`; it then rests exactly on the target.
    static let restingDistance = 0.5
    /// Release velocities are clamped to this (points per second).
    static let maximumSpeed = 20_000.0
    /// A paged release faster than this (points per second) goes on to the next page in its
    /// direction; a slower one settles on the nearest page.
    static let pagingFlickSpeed = 300.0
    /// The finger's velocity at release is its average over this many seconds before it.
    static let velocityWindow = 0.1

    /// How far past the edge an overscroll of `x` points is shown, on an axis `dimension` points
    /// long: (1 − 1/(x·c/d + 1))·d, with the sign of x.
    static func rubberBand(_ x: Double, dimension d: Double) -> Double {
        guard d > 0 else { return 0 }
        let m = abs(x)
        let shown = (1 - 1 / (m * rubberBandCoefficient / d + 1)) * d
        return x < 0 ? -shown : shown
    }

    /// The overscroll that is shown as `shown` (the rubber band's inverse); `shown` is kept short
    /// of d, which no overscroll reaches.
    static func overscroll(shown: Double, dimension d: Double) -> Double {
        guard d > 0 else { return 0 }
        let r = Swift.min(abs(shown), d * 0.999)
        let x = r / (rubberBandCoefficient * (1 - r / d))
        return shown < 0 ? -x : x
    }
}

/// One axis of a scroll layer: the offsets its origin rests between, and its length.
struct ScrollAxis: Hashable, Sendable {
    /// The least resting offset (the content's leading edge).
    var minimum: Double
    /// The greatest resting offset (the content's trailing edge less the bounds): never below
    /// `minimum`, so content shorter than the bounds rests at `minimum`.
    var maximum: Double
    /// The bounds' length along the axis: the rubber band's d, and the page size.
    var dimension: Double

    init(minimum: Double, maximum: Double, dimension: Double) {
        self.minimum = minimum
        self.maximum = Swift.max(minimum, maximum)
        self.dimension = Swift.max(0, dimension)
    }

    /// The offset shown for raw offset `raw`: itself inside the extent, rubber-banded past it.
    func shown(_ raw: Double) -> Double {
        if raw < minimum { return minimum + ScrollPhysics.rubberBand(raw - minimum, dimension: dimension) }
        if raw > maximum { return maximum + ScrollPhysics.rubberBand(raw - maximum, dimension: dimension) }
        return raw
    }

    /// The raw offset that is shown as `shown` (`shown`'s inverse).
    func raw(shown: Double) -> Double {
        if shown < minimum { return minimum + ScrollPhysics.overscroll(shown: shown - minimum, dimension: dimension) }
        if shown > maximum { return maximum + ScrollPhysics.overscroll(shown: shown - maximum, dimension: dimension) }
        return shown
    }

    /// The nearest offset inside the extent.
    func clamped(_ x: Double) -> Double { Swift.min(Swift.max(x, minimum), maximum) }

    /// Where a paged release from raw offset `x` at `velocity` settles: the next page in the
    /// direction of a flick, else the nearest page, pages being whole multiples of the bounds'
    /// length and the extent's end.
    func page(from x: Double, velocity: Double) -> Double {
        guard dimension > 0 else { return clamped(x) }
        let at = x / dimension
        let page: Double
        if velocity > ScrollPhysics.pagingFlickSpeed {
            page = at.rounded(.down) + 1
        } else if velocity < -ScrollPhysics.pagingFlickSpeed {
            page = at.rounded(.up) - 1
        } else {
            // The nearest page; the end of an extent that is not whole pages is a page too.
            let nearest = clamped(at.rounded() * dimension)
            return abs(x - maximum) < abs(x - nearest) ? maximum : nearest
        }
        return clamped(page * dimension)
    }
}

/// What one axis does after the finger lifts: momentum that decays at UIScrollView's rate (and,
/// where it would cross an edge, is caught there by the spring), or a critically damped spring
/// onto a target (back to the edge, or onto a page). A value: `sample(at:)` answers for any time.
struct AxisMotion: Hashable, Sendable {
    enum Curve: Hashable, Sendable {
        /// x(τ) = x₀ + v₀·(1 − e^(−kτ))/k until the velocity falls to `restingSpeed`.
        case momentum
        /// x(τ) = target + (d₀ + (v₀ + ω·d₀)·τ)·e^(−ωτ), d₀ = x₀ − target.
        case spring(target: Double)
        /// Still at `from`.
        case resting
    }

    /// The time the curve starts.
    var start: Double
    /// The raw offset and velocity it starts with.
    var from: Double
    var velocity: Double
    var curve: Curve

    /// The state of the axis at one time: its raw offset, velocity, and whether it is at rest.
    struct Sample: Hashable, Sendable {
        var offset: Double
        var velocity: Double
        var isResting: Bool
    }

    /// The motion that follows a release at `time` from raw offset `x` at `velocity` (points per
    /// second) on `axis`: past an edge, a spring back to it; paged, a spring onto the page;
    /// otherwise momentum.
    static func release(at time: Double, from x: Double, velocity: Double, on axis: ScrollAxis, paging: Bool) -> AxisMotion {
        let v = Swift.min(Swift.max(velocity, -ScrollPhysics.maximumSpeed), ScrollPhysics.maximumSpeed)
        if x < axis.minimum || x > axis.maximum {
            return AxisMotion(start: time, from: x, velocity: v, curve: .spring(target: axis.clamped(x)))
        }
        if paging {
            return AxisMotion(start: time, from: x, velocity: v, curve: .spring(target: axis.page(from: x, velocity: v)))
        }
        if abs(v) < ScrollPhysics.restingSpeed { return AxisMotion(start: time, from: x, velocity: 0, curve: .resting) }
        return AxisMotion(start: time, from: x, velocity: v, curve: .momentum)
    }

    /// The axis at time `t` (not before `start`), on `axis` (whose edges catch momentum).
    func sample(at t: Double, on axis: ScrollAxis) -> Sample {
        let tau = Swift.max(0, t - start)
        switch curve {
        case .resting:
            return Sample(offset: from, velocity: 0, isResting: true)
        case .spring(let target):
            return Self.spring(target: target, from: from, velocity: velocity, after: tau)
        case .momentum:
            let k = ScrollPhysics.decelerationPerSecond
            // Where the momentum would cross an edge it meets the spring there (UIScrollView's
            // bounce): from the edge, with the velocity it had when it reached it.
            if let (edge, crossing) = edgeCrossing(on: axis), tau >= crossing {
                let vc = velocity - (edge - from) * k
                return Self.spring(target: edge, from: edge, velocity: vc, after: tau - crossing)
            }
            // It rests where its speed falls to `restingSpeed`: a time in closed form, so every
            // frame sequence stops it at the same offset.
            let stop = _log(abs(velocity) / ScrollPhysics.restingSpeed) / k
            let s = Swift.min(tau, stop)
            let decay = _exp(-k * s)
            return Sample(offset: from + velocity * (1 - decay) / k, velocity: tau >= stop ? 0 : velocity * decay,
                          isResting: tau >= stop)
        }
    }

    /// The edge the momentum reaches before its speed falls to `restingSpeed`, and after how
    /// many seconds; nil when it stops inside.
    func edgeCrossing(on axis: ScrollAxis) -> (edge: Double, after: Double)? {
        guard case .momentum = curve, velocity != 0 else { return nil }
        let k = ScrollPhysics.decelerationPerSecond
        let edge = velocity > 0 ? axis.maximum : axis.minimum
        // The distance covered before it rests is (|v₀| − restingSpeed)/k.
        let reach = (abs(velocity) - ScrollPhysics.restingSpeed) / k
        let distance = abs(edge - from)
        guard distance < reach else { return nil }
        // x₀ + v₀(1 − e^(−kτ))/k = edge.
        return (edge, -_log(1 - distance * k / abs(velocity)) / k)
    }

    static func spring(target: Double, from x: Double, velocity v: Double, after tau: Double) -> Sample {
        let w = ScrollPhysics.springRate
        let d0 = x - target
        let b = v + w * d0
        let decay = _exp(-w * tau)
        let d = (d0 + b * tau) * decay
        let speed = (b - w * (d0 + b * tau)) * decay
        if abs(d) < ScrollPhysics.restingDistance, abs(speed) < ScrollPhysics.restingSpeed {
            return Sample(offset: target, velocity: 0, isResting: true)
        }
        return Sample(offset: target + d, velocity: speed, isResting: false)
    }
}

/// A finger's recent positions along one layer's axes, for its velocity at release.
struct VelocityTracker: Hashable, Sendable {
    private var samples: [(time: Double, point: Point)] = []

    static func == (a: VelocityTracker, b: VelocityTracker) -> Bool {
        a.samples.map(\.time) == b.samples.map(\.time) && a.samples.map(\.point) == b.samples.map(\.point)
    }
    func hash(into h: inout Hasher) { h.combine(samples.count) }

    /// Notes the finger at `point` at `time`, keeping only what the window needs.
    mutating func add(_ point: Point, at time: Double) {
        samples.append((time, point))
        // Keep one sample older than the window, so the average spans all of it.
        while samples.count > 2, samples[1].time <= time - ScrollPhysics.velocityWindow { samples.removeFirst() }
        if samples.count > 64 { samples.removeFirst(samples.count - 64) }
    }

    /// The average velocity over the window before `time` (points per second): the finger's
    /// travel from where it was when the window opened to where it is. Zero when it has not
    /// moved in the window, or all its samples share one time.
    func velocity(at time: Double) -> Point {
        guard let last = samples.last else { return .zero }
        let opens = time - ScrollPhysics.velocityWindow
        guard last.time > opens else { return .zero }
        // Where the finger was when the window opened: interpolated between the samples around it.
        var first = samples[0]
        for (i, s) in samples.enumerated() where s.time > opens {
            if i > 0, samples[i - 1].time <= opens, s.time > samples[i - 1].time {
                let a = samples[i - 1]
                let f = (opens - a.time) / (s.time - a.time)
                first = (opens, Point(x: a.point.x + (s.point.x - a.point.x) * f, y: a.point.y + (s.point.y - a.point.y) * f))
            } else {
                first = s
            }
            break
        }
        let dt = time - first.time
        guard dt > 0 else { return .zero }
        return Point(x: (last.point.x - first.point.x) / dt, y: (last.point.y - first.point.y) / dt)
    }
}
