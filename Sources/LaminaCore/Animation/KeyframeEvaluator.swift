/// A keyframe animation compiled for evaluation: key times resolved, paced timing and cubic
/// tangents precomputed, path segments and arc-length tables built. Evaluating it reads these
/// tables and allocates nothing.
///
/// A class so that the per-frame switch over prepared animations retains one reference rather
/// than each array; it is immutable after `init`, hence `Sendable`.
final class PreparedKeyframes: Sendable {
    let timing: MediaTiming
    let timingFunction: TimingFunction?
    let keyPath: AnimationKeyPath
    let mode: CalculationMode
    let valueFunction: ValueFunction?
    let isAdditive: Bool
    let isCumulative: Bool
    let rotationMode: RotationMode?
    /// The keyframe values; for a path, its start point and the end of each segment.
    let values: [PropertyValue]
    /// The key times used to pick a segment (linear, cubic, discrete, and paced from values).
    let keyTimes: [Double]
    /// Per-segment timing functions (linear and cubic only; empty otherwise).
    let segmentFunctions: [TimingFunction]
    /// How values map to vectors of numbers for the cubic modes.
    let layout: VectorLayout
    /// Keyframe values as vectors, `layout.dimension` numbers each (cubic modes).
    let flat: [Double]
    /// Kochanek–Bartels tangents leaving and entering each keyframe (cubic modes).
    let tangentOut: [Double], tangentIn: [Double]
    /// Decomposed transform keyframes (linear-style interpolation of transforms).
    let decomposed: [DecomposedTransform]
    /// The path's segments, or empty when animating values.
    let segments: [CubicSegment]
    /// Arc length over the path or the cubic spline (paced modes).
    let arc: ArcLengthTable?
    let source: Animation

    /// Compiles a validated keyframe animation.
    init(_ a: KeyframeAnimation, keyPath: AnimationKeyPath, source: Animation) {
        timing = a.timing
        timingFunction = a.timingFunction
        self.source = source
        self.keyPath = keyPath
        mode = a.calculationMode
        valueFunction = a.valueFunction
        isAdditive = a.isAdditive
        isCumulative = a.isCumulative
        rotationMode = a.rotationMode

        var values: [PropertyValue]
        var segments: [CubicSegment] = []
        if let path = a.path {
            segments = path.segments
            values = [.point(segments[0].p0)] + segments.map { .point($0.p3) }
        } else {
            values = a.values
        }
        let n = values.count
        self.values = values
        self.segments = segments

        // Segment timing.
        var keyTimes = KeyframeAnimation.effectiveKeyTimes(a.keyTimes, count: n, mode: a.calculationMode)
        if a.calculationMode == .paced || a.calculationMode == .cubicPaced, segments.isEmpty {
            // Paced values (and cubicPaced values that cannot form a spline) go by distance.
            keyTimes = PreparedKeyframes.pacedKeyTimes(values)
        }
        self.keyTimes = keyTimes
        if a.calculationMode == .linear || a.calculationMode == .cubic, let tfs = a.timingFunctions {
            segmentFunctions = tfs
        } else {
            segmentFunctions = []
        }

        // Vector forms and tangents for the cubic modes over values.
        let layout = VectorLayout(values)
        self.layout = layout
        var decomposed: [DecomposedTransform] = []
        if layout == .decomposedTransform {
            decomposed = values.map { v in
                if case .transform(let m) = v, let d = DecomposedTransform(m) { return d }
                return DecomposedTransform()
            }
        }
        self.decomposed = decomposed
        let cubic = (a.calculationMode == .cubic || a.calculationMode == .cubicPaced) && segments.isEmpty && n >= 2
        // Every mode reads numbers from `flat` rather than copying PropertyValues out of `values`.
        flat = layout == .none ? [] : layout.flatten(values, decomposed: decomposed)
        if cubic, layout != .none {
            let times = a.calculationMode == .cubic ? keyTimes : []
            (tangentOut, tangentIn) = PreparedKeyframes.kochanekBartelsTangents(
                flat, count: n, dimension: layout.dimension, keyTimes: times,
                tension: a.tensionValues ?? [], continuity: a.continuityValues ?? [], bias: a.biasValues ?? [])
        } else {
            tangentOut = []
            tangentIn = []
        }

        // Arc length for constant speed.
        if !segments.isEmpty, a.calculationMode == .paced || a.calculationMode == .cubicPaced {
            arc = ArcLengthTable(segmentCount: segments.count) { s, u in
                let d = segments[s].derivative(at: u)
                return (d.x * d.x + d.y * d.y).squareRoot()
            }
        } else if cubic, a.calculationMode == .cubicPaced, layout != .none {
            let (flat, tOut, tIn, dim) = (self.flat, tangentOut, tangentIn, layout.dimension)
            arc = ArcLengthTable(segmentCount: n - 1) { s, u in
                hermiteSpeed(flat, tOut, tIn, dimension: dim, segment: s, u: u)
            }
        } else {
            arc = nil
        }
    }

    // MARK: Evaluation

    /// Writes the animation's value at progress `p` (after the animation-level timing function)
    /// into `props`, with `iteration` finished repeats for `cumulative`.
    func apply(progress p: Double, iteration: Int, to props: inout LayerProperties) {
        let n = values.count
        guard n > 0 else { return }
        // The tangent comes back through `inout` and the value is built once and moved, not
        // copied: tuples of PropertyValues cost more than the interpolation itself.
        var tangent: Point?
        if !isCumulative, !isAdditive, valueFunction == nil, rotationMode == nil {
            // The common case, written straight from the evaluation (no intermediate copies).
            keyPath.apply(n == 1 ? values[0]
                          : segments.isEmpty ? evaluateValues(p, tangent: &tangent) : evaluatePath(p, tangent: &tangent),
                          to: &props)
            return
        }
        var value = n == 1 ? values[0]
            : segments.isEmpty ? evaluateValues(p, tangent: &tangent) : evaluatePath(p, tangent: &tangent)
        if isCumulative, iteration != 0 { value = Interpolation.accumulate(value, values[n - 1], count: iteration) }
        if let vf = valueFunction { value = .transform(vf.transform(for: value) ?? .identity) }
        if isAdditive { value = Interpolation.add(keyPath.value(in: props), value) }
        keyPath.apply(value, to: &props)
        if let rotationMode, let t = tangent {
            var angle = _atan2(t.y, t.x)
            if rotationMode == .autoReverse { angle += Double.pi }
            props.transform = props.transform.concatenating(ValueFunction.rotationZ(angle))
        }
    }

    private func evaluatePath(_ p: Double, tangent: inout Point?) -> PropertyValue {
        let segCount = segments.count
        switch mode {
        case .discrete:
            let i = discreteIndex(p)
            if rotationMode != nil {
                tangent = i < segCount ? segments[i].tangent(at: 0) : segments[segCount - 1].tangent(at: 1)
            }
            return values[i]
        case .linear, .cubic:
            let (i, u) = segment(at: p)
            if rotationMode != nil { tangent = segments[i].tangent(at: u) }
            return .point(segments[i].point(at: u))
        case .paced, .cubicPaced:
            let (i, u) = arc?.locate(fraction: p) ?? (0, 0)
            if rotationMode != nil { tangent = segments[i].tangent(at: u) }
            return .point(segments[i].point(at: u))
        }
    }

    private func evaluateValues(_ p: Double, tangent: inout Point?) -> PropertyValue {
        switch mode {
        case .discrete:
            let i = discreteIndex(p)
            tangent = i + 1 < values.count ? chord(i, i + 1) : chord(i - 1, i)
            return values[i]
        case .linear, .paced:
            let (i, u) = segment(at: p)
            tangent = chord(i, i + 1)
            return lerp(i, u)
        case .cubic, .cubicPaced:
            if layout == .none {
                // No spline through values that cannot be blended: step through them by key time.
                let (i, u) = segment(at: p)
                return lerp(i, u)
            }
            let (i, u) = mode == .cubicPaced ? (arc?.locate(fraction: p) ?? (0, 0)) : segment(at: p)
            return hermite(i, u, tangent: &tangent)
        }
    }

    /// The segment and the progress within it (after its timing function) at progress `p`.
    private func segment(at p: Double) -> (Int, Double) {
        let n = values.count
        let kt = keyTimes
        if p >= kt[n - 1] { return (n - 2, 1) }
        if p <= kt[0] { return (0, 0) }
        // Largest i ≤ n − 2 with kt[i] ≤ p.
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if kt[mid] <= p { lo = mid } else { hi = mid }
        }
        let span = kt[lo + 1] - kt[lo]
        var u = span > 0 ? (p - kt[lo]) / span : 1
        if lo < segmentFunctions.count { u = segmentFunctions[lo].value(at: u) }
        return (lo, u)
    }

    /// The keyframe shown at progress `p` in discrete mode: the last whose key time has passed.
    private func discreteIndex(_ p: Double) -> Int {
        var i = 0
        let n = values.count
        while i + 1 < n, keyTimes[i + 1] <= p { i += 1 }
        return i
    }

    private func lerp(_ i: Int, _ u: Double) -> PropertyValue {
        let dim = layout.dimension
        let a = i * dim, b = a + dim
        @inline(__always) func mix(_ k: Int) -> Double { flat[a + k] + (flat[b + k] - flat[a + k]) * u }
        switch layout {
        case .none:
            return u < 0.5 ? values[i] : values[i + 1]
        case .number:
            return .number(mix(0))
        case .point:
            return .point(Point(x: mix(0), y: mix(1)))
        case .size:
            return .size(Size(width: mix(0), height: mix(1)))
        case .rect:
            return .rect(Rect(x: mix(0), y: mix(1), width: mix(2), height: mix(3)))
        case .color:
            return .color(Color(red: mix(0), green: mix(1), blue: mix(2), alpha: mix(3)))
        case .decomposedTransform:
            if u == 0 { return values[i] }
            if u == 1 { return values[i + 1] }
            return .transform(DecomposedTransform.interpolate(decomposed[i], decomposed[i + 1], u).transform)
        case .matrix:
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: 16) { buf in
                for k in 0..<16 { buf[k] = mix(k) }
                return layout.value(from: UnsafeBufferPointer(buf))
            }
        }
    }

    /// The direction from keyframe i to keyframe j, for point values (rotationMode).
    private func chord(_ i: Int, _ j: Int) -> Point? {
        guard rotationMode != nil, i >= 0, layout == .point else { return nil }
        return Point(x: flat[2 * j] - flat[2 * i], y: flat[2 * j + 1] - flat[2 * i + 1])
    }

    private func hermite(_ i: Int, _ u: Double, tangent: inout Point?) -> PropertyValue {
        let dim = layout.dimension
        let u2 = u * u, u3 = u2 * u
        let h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2
        let a = i * dim, b = (i + 1) * dim
        @inline(__always) func h(_ k: Int) -> Double {
            h00 * flat[a + k] + h10 * tangentOut[a + k] + h01 * flat[b + k] + h11 * tangentIn[b + k]
        }
        if rotationMode != nil, layout == .point {
            let d00 = 6 * u2 - 6 * u, d10 = 3 * u2 - 4 * u + 1, d01 = -6 * u2 + 6 * u, d11 = 3 * u2 - 2 * u
            @inline(__always) func d(_ k: Int) -> Double {
                d00 * flat[a + k] + d10 * tangentOut[a + k] + d01 * flat[b + k] + d11 * tangentIn[b + k]
            }
            tangent = Point(x: d(0), y: d(1))
        }
        switch layout {
        case .number: return .number(h(0))
        case .point: return .point(Point(x: h(0), y: h(1)))
        default:
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: dim) { buf in
                for k in 0..<dim { buf[k] = h(k) }
                return layout.value(from: UnsafeBufferPointer(buf))
            }
        }
    }

    // MARK: Preparation helpers

    /// Paced key times: each segment's share of the total distance between values.
    static func pacedKeyTimes(_ values: [PropertyValue]) -> [Double] {
        let n = values.count
        guard n >= 2 else { return [0] }
        var cumulative = [0.0]
        for i in 1..<n { cumulative.append(cumulative[i - 1] + Interpolation.distance(values[i - 1], values[i])) }
        let total = cumulative[n - 1]
        guard total > 0, total.isFinite else { return (0..<n).map { Double($0) / Double(n - 1) } }
        var k = cumulative.map { $0 / total }
        k[n - 1] = 1
        return k
    }

    /// Kochanek–Bartels tangents for `count` points of `dimension` numbers each.
    ///
    /// With tension T, continuity C and bias B at point i (0 where not given), and the end points
    /// repeated beyond the ends:
    /// out_i = (1−T)(1+B)(1−C)/2 · (P_i − P_{i−1}) + (1−T)(1−B)(1+C)/2 · (P_{i+1} − P_i),
    /// in_i  = (1−T)(1+B)(1+C)/2 · (P_i − P_{i−1}) + (1−T)(1−B)(1−C)/2 · (P_{i+1} − P_i).
    /// All zero gives Catmull-Rom. With uneven `keyTimes` the tangents are scaled by
    /// 2Δ_i/(Δ_{i−1}+Δ_i) leaving and 2Δ_{i−1}/(Δ_{i−1}+Δ_i) entering (Kochanek & Bartels 1984),
    /// so speed stays continuous across keyframes.
    static func kochanekBartelsTangents(_ p: [Double], count n: Int, dimension dim: Int, keyTimes: [Double],
                                        tension: [Double], continuity: [Double], bias: [Double]) -> ([Double], [Double]) {
        var out = [Double](repeating: 0, count: n * dim)
        var inn = [Double](repeating: 0, count: n * dim)
        func param(_ a: [Double], _ i: Int) -> Double { i < a.count && a[i].isFinite ? a[i] : 0 }
        for i in 0..<n {
            let t = param(tension, i), c = param(continuity, i), b = param(bias, i)
            let prev = Swift.max(i - 1, 0), next = Swift.min(i + 1, n - 1)
            var outScale = 1.0, inScale = 1.0
            if keyTimes.count == n, i > 0, i < n - 1 {
                let d0 = keyTimes[i] - keyTimes[i - 1], d1 = keyTimes[i + 1] - keyTimes[i]
                if d0 + d1 > 0 {
                    outScale = 2 * d1 / (d0 + d1)
                    inScale = 2 * d0 / (d0 + d1)
                }
            }
            let oa = (1 - t) * (1 + b) * (1 - c) / 2, ob = (1 - t) * (1 - b) * (1 + c) / 2
            let ia = (1 - t) * (1 + b) * (1 + c) / 2, ib = (1 - t) * (1 - b) * (1 - c) / 2
            for k in 0..<dim {
                let back = p[i * dim + k] - p[prev * dim + k]
                let ahead = p[next * dim + k] - p[i * dim + k]
                out[i * dim + k] = (oa * back + ob * ahead) * outScale
                inn[i * dim + k] = (ia * back + ib * ahead) * inScale
            }
        }
        return (out, inn)
    }
}

/// |dP/du| of the Hermite segment `segment` at `u`, over all dimensions.
private func hermiteSpeed(_ p: [Double], _ tOut: [Double], _ tIn: [Double], dimension dim: Int,
                          segment i: Int, u: Double) -> Double {
    let u2 = u * u
    let d00 = 6 * u2 - 6 * u, d10 = 3 * u2 - 4 * u + 1, d01 = -6 * u2 + 6 * u, d11 = 3 * u2 - 2 * u
    var sum = 0.0
    for k in 0..<dim {
        let a = i * dim + k, b = (i + 1) * dim + k
        let d = d00 * p[a] + d10 * tOut[a] + d01 * p[b] + d11 * tIn[b]
        sum += d * d
    }
    return sum.squareRoot()
}

/// How keyframe values are laid out as vectors of numbers for spline arithmetic.
enum VectorLayout: Sendable, Hashable {
    /// Values that cannot be blended (bools, strings) or mixed types.
    case none
    case number, point, size, rect, color
    /// Scale 3, skew 3, quaternion 4, translation 3, perspective 4.
    case decomposedTransform
    /// The 16 entries, for transforms where one keyframe has no decomposition.
    case matrix

    init(_ values: [PropertyValue]) {
        guard let first = values.first else { self = .none; return }
        guard values.allSatisfy({ $0.type == first.type }) else { self = .none; return }
        switch first.type {
        case .number: self = .number
        case .point: self = .point
        case .size: self = .size
        case .rect: self = .rect
        case .color: self = .color
        case .transform:
            let all = values.allSatisfy { v in
                if case .transform(let m) = v { return DecomposedTransform(m) != nil }
                return false
            }
            self = all ? .decomposedTransform : .matrix
        case .bool, .string, .numbers, .colors, .path, .image, .layer, .constraints, .emitterCells, .filters, .drawing, .attributedString: self = .none
        }
    }

    var dimension: Int {
        switch self {
        case .none: 0
        case .number: 1
        case .point, .size: 2
        case .rect, .color: 4
        case .decomposedTransform: 17
        case .matrix: 16
        }
    }

    /// The values as one flat array. Quaternions are sign-aligned with their predecessor so a
    /// spline through them takes the short way round.
    func flatten(_ values: [PropertyValue], decomposed: [DecomposedTransform]) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(values.count * dimension)
        var previousQ: (Double, Double, Double, Double)?
        for (i, v) in values.enumerated() {
            switch (self, v) {
            case (.number, .number(let x)): out.append(x)
            case (.point, .point(let p)): out += [p.x, p.y]
            case (.size, .size(let s)): out += [s.width, s.height]
            case (.rect, .rect(let r)): out += [r.origin.x, r.origin.y, r.size.width, r.size.height]
            case (.color, .color(let c)): out += [c.red, c.green, c.blue, c.alpha]
            case (.matrix, .transform(let m)): out += m.rowMajor
            case (.decomposedTransform, _):
                let d = decomposed[i]
                var q = (d.quaternionX, d.quaternionY, d.quaternionZ, d.quaternionW)
                if let pq = previousQ, pq.0 * q.0 + pq.1 * q.1 + pq.2 * q.2 + pq.3 * q.3 < 0 {
                    q = (-q.0, -q.1, -q.2, -q.3)
                }
                previousQ = q
                out += [d.scaleX, d.scaleY, d.scaleZ, d.skewXY, d.skewXZ, d.skewYZ, q.0, q.1, q.2, q.3,
                        d.translationX, d.translationY, d.translationZ,
                        d.perspectiveX, d.perspectiveY, d.perspectiveZ, d.perspectiveW]
            default:
                out += [Double](repeating: 0, count: dimension)
            }
        }
        return out
    }

    /// The value a vector stands for.
    func value(from b: UnsafeBufferPointer<Double>) -> PropertyValue {
        switch self {
        case .none: return .number(0)
        case .number: return .number(b[0])
        case .point: return .point(Point(x: b[0], y: b[1]))
        case .size: return .size(Size(width: b[0], height: b[1]))
        case .rect: return .rect(Rect(x: b[0], y: b[1], width: b[2], height: b[3]))
        case .color: return .color(Color(red: b[0], green: b[1], blue: b[2], alpha: b[3]))
        case .matrix:
            return .transform(Transform3D(m11: b[0], m12: b[1], m13: b[2], m14: b[3], m21: b[4], m22: b[5], m23: b[6], m24: b[7],
                                          m31: b[8], m32: b[9], m33: b[10], m34: b[11], m41: b[12], m42: b[13], m43: b[14], m44: b[15]))
        case .decomposedTransform:
            var d = DecomposedTransform()
            d.scaleX = b[0]; d.scaleY = b[1]; d.scaleZ = b[2]
            d.skewXY = b[3]; d.skewXZ = b[4]; d.skewYZ = b[5]
            let len = (b[6] * b[6] + b[7] * b[7] + b[8] * b[8] + b[9] * b[9]).squareRoot()
            if len > 0 {
                d.quaternionX = b[6] / len; d.quaternionY = b[7] / len; d.quaternionZ = b[8] / len; d.quaternionW = b[9] / len
            }
            d.translationX = b[10]; d.translationY = b[11]; d.translationZ = b[12]
            d.perspectiveX = b[13]; d.perspectiveY = b[14]; d.perspectiveZ = b[15]; d.perspectiveW = b[16]
            return .transform(d.transform)
        }
    }
}
