/// The arithmetic Core Animation does on animated values: interpolation, addition (for
/// `additive`, `byValue` and `cumulative`), and distance (for paced keyframes).
///
/// Numbers, points, sizes and rects work component-wise; colours component-wise in RGBA, clamped
/// to [0, 1]; transforms through `DecomposedTransform`; lists (colours, locations, dash
/// patterns) entry by entry and paths point by point when both have the same length or
/// structure. Bools, strings, images, layer references, and lists or paths that do not match,
/// cannot be blended: they switch from the first value to the second halfway.
public enum Interpolation {
    /// The value a fraction `t` of the way from `a` to `b`. `t` outside [0, 1] extrapolates
    /// (spring overshoot); colours stay clamped. Values of different types switch at t = 0.5.
    public static func interpolate(_ a: PropertyValue, _ b: PropertyValue, _ t: Double) -> PropertyValue {
        // Nested matches rather than `switch (a, b)`: a tuple of two PropertyValues is copied
        // through the runtime's generic tuple witness, which dominated the per-frame cost.
        switch a {
        case .number(let x):
            if case .number(let y) = b { return .number(x + (y - x) * t) }
        case .point(let p):
            if case .point(let q) = b { return .point(Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t)) }
        case .size(let p):
            if case .size(let q) = b {
                return .size(Size(width: p.width + (q.width - p.width) * t, height: p.height + (q.height - p.height) * t))
            }
        case .rect(let p):
            if case .rect(let q) = b {
                return .rect(Rect(x: p.origin.x + (q.origin.x - p.origin.x) * t,
                                  y: p.origin.y + (q.origin.y - p.origin.y) * t,
                                  width: p.size.width + (q.size.width - p.size.width) * t,
                                  height: p.size.height + (q.size.height - p.size.height) * t))
            }
        case .color(let p):
            if case .color(let q) = b {
                return .color(Color(red: p.red + (q.red - p.red) * t, green: p.green + (q.green - p.green) * t,
                                    blue: p.blue + (q.blue - p.blue) * t, alpha: p.alpha + (q.alpha - p.alpha) * t))
            }
        case .transform(let p):
            if case .transform(let q) = b { return .transform(interpolate(p, q, t)) }
        case .numbers(let p):
            if case .numbers(let q) = b, p.count == q.count { return .numbers(zip(p, q).map { $0 + ($1 - $0) * t }) }
        case .colors(let p):
            if case .colors(let q) = b, p.count == q.count {
                return .colors(zip(p, q).map { x, y in
                    Color(red: x.red + (y.red - x.red) * t, green: x.green + (y.green - x.green) * t,
                          blue: x.blue + (y.blue - x.blue) * t, alpha: x.alpha + (y.alpha - x.alpha) * t)
                })
            }
        case .path(let p):
            if case .path(let q) = b, let r = p.zipPoints(q, { Point(x: $0.x + ($1.x - $0.x) * t, y: $0.y + ($1.y - $0.y) * t) }) {
                return .path(r)
            }
        case .bool, .string, .image, .layer, .constraints, .emitterCells, .filters, .drawing, .attributedString:
            break
        }
        return t < 0.5 ? a : b
    }

    /// Interpolates two transforms by their decompositions; where either has none (a zero scale,
    /// say) the matrix entries are interpolated instead, which is exact for scaling to zero.
    public static func interpolate(_ a: Transform3D, _ b: Transform3D, _ t: Double) -> Transform3D {
        if t == 0 { return a }
        if t == 1 { return b }
        if let da = DecomposedTransform(a), let db = DecomposedTransform(b) {
            return DecomposedTransform.interpolate(da, db, t).transform
        }
        return lerpEntries(a, b, t)
    }

    /// Entry-by-entry interpolation of two matrices.
    public static func lerpEntries(_ a: Transform3D, _ b: Transform3D, _ t: Double) -> Transform3D {
        @inline(__always) func m(_ x: Double, _ y: Double) -> Double { x + (y - x) * t }
        return Transform3D(
            m11: m(a.m11, b.m11), m12: m(a.m12, b.m12), m13: m(a.m13, b.m13), m14: m(a.m14, b.m14),
            m21: m(a.m21, b.m21), m22: m(a.m22, b.m22), m23: m(a.m23, b.m23), m24: m(a.m24, b.m24),
            m31: m(a.m31, b.m31), m32: m(a.m32, b.m32), m33: m(a.m33, b.m33), m34: m(a.m34, b.m34),
            m41: m(a.m41, b.m41), m42: m(a.m42, b.m42), m43: m(a.m43, b.m43), m44: m(a.m44, b.m44))
    }

    /// `base + delta`, as `additive`, `byValue` and `cumulative` add.
    /// Transforms concatenate: `delta` applies first, then `base` (`CATransform3DConcat(delta, base)`),
    /// so an additive rotation spins the layer in its own space before the model transform.
    /// Bools and strings cannot be added: the delta wins.
    public static func add(_ base: PropertyValue, _ delta: PropertyValue) -> PropertyValue {
        switch base {
        case .number(let x):
            if case .number(let y) = delta { return .number(x + y) }
        case .point(let p):
            if case .point(let q) = delta { return .point(Point(x: p.x + q.x, y: p.y + q.y)) }
        case .size(let p):
            if case .size(let q) = delta { return .size(Size(width: p.width + q.width, height: p.height + q.height)) }
        case .rect(let p):
            if case .rect(let q) = delta {
                return .rect(Rect(x: p.origin.x + q.origin.x, y: p.origin.y + q.origin.y,
                                  width: p.size.width + q.size.width, height: p.size.height + q.size.height))
            }
        case .color(let p):
            if case .color(let q) = delta {
                return .color(Color(red: p.red + q.red, green: p.green + q.green, blue: p.blue + q.blue, alpha: p.alpha + q.alpha))
            }
        case .transform(let p):
            if case .transform(let q) = delta { return .transform(q.concatenating(p)) }
        case .numbers(let p):
            if case .numbers(let q) = delta, p.count == q.count { return .numbers(zip(p, q).map { $0 + $1 }) }
        case .colors(let p):
            if case .colors(let q) = delta, p.count == q.count {
                return .colors(zip(p, q).map { Color(red: $0.red + $1.red, green: $0.green + $1.green, blue: $0.blue + $1.blue, alpha: $0.alpha + $1.alpha) })
            }
        case .path(let p):
            if case .path(let q) = delta, let r = p.zipPoints(q, { Point(x: $0.x + $1.x, y: $0.y + $1.y) }) { return .path(r) }
        case .bool, .string, .image, .layer, .constraints, .emitterCells, .filters, .drawing, .attributedString:
            break
        }
        return delta
    }

    /// `value − delta`, the inverse of `add` (for `toValue − byValue`). A singular transform
    /// delta cannot be undone; `value` is returned unchanged.
    public static func subtract(_ value: PropertyValue, _ delta: PropertyValue) -> PropertyValue {
        switch (value, delta) {
        case let (.number(x), .number(y)): return .number(x - y)
        case let (.point(p), .point(q)): return .point(Point(x: p.x - q.x, y: p.y - q.y))
        case let (.size(p), .size(q)): return .size(Size(width: p.width - q.width, height: p.height - q.height))
        case let (.rect(p), .rect(q)):
            return .rect(Rect(x: p.origin.x - q.origin.x, y: p.origin.y - q.origin.y,
                              width: p.size.width - q.size.width, height: p.size.height - q.size.height))
        case let (.color(p), .color(q)):
            return .color(Color(red: p.red - q.red, green: p.green - q.green, blue: p.blue - q.blue, alpha: p.alpha - q.alpha))
        case let (.numbers(p), .numbers(q)) where p.count == q.count: return .numbers(zip(p, q).map { $0 - $1 })
        case let (.colors(p), .colors(q)) where p.count == q.count:
            return .colors(zip(p, q).map { Color(red: $0.red - $1.red, green: $0.green - $1.green, blue: $0.blue - $1.blue, alpha: $0.alpha - $1.alpha) })
        case let (.path(p), .path(q)):
            return p.zipPoints(q, { Point(x: $0.x - $1.x, y: $0.y - $1.y) }).map { .path($0) } ?? value
        case let (.transform(p), .transform(q)):
            // p = q · x  ⇒  x = q⁻¹ · p
            guard let inv = q.inverted() else { return value }
            return .transform(inv.concatenating(p))
        default:
            return value
        }
    }

    /// `value + count × end`: what `cumulative` adds after `count` finished repeats.
    /// For transforms, `end` concatenated `count` times, then `value`.
    public static func accumulate(_ value: PropertyValue, _ end: PropertyValue, count: Int) -> PropertyValue {
        if count == 0 { return value }
        let k = Double(count)
        switch value {
        case .number(let x):
            if case .number(let y) = end { return .number(x + y * k) }
        case .point(let p):
            if case .point(let q) = end { return .point(Point(x: p.x + q.x * k, y: p.y + q.y * k)) }
        case .size(let p):
            if case .size(let q) = end { return .size(Size(width: p.width + q.width * k, height: p.height + q.height * k)) }
        case .rect(let p):
            if case .rect(let q) = end {
                return .rect(Rect(x: p.origin.x + q.origin.x * k, y: p.origin.y + q.origin.y * k,
                                  width: p.size.width + q.size.width * k, height: p.size.height + q.size.height * k))
            }
        case .color(let p):
            if case .color(let q) = end {
                return .color(Color(red: p.red + q.red * k, green: p.green + q.green * k,
                                    blue: p.blue + q.blue * k, alpha: p.alpha + q.alpha * k))
            }
        case .transform(let p):
            if case .transform(let q) = end, count > 0 { return .transform(power(q, count).concatenating(p)) }
        case .numbers(let p):
            if case .numbers(let q) = end, p.count == q.count { return .numbers(zip(p, q).map { $0 + $1 * k }) }
        case .colors(let p):
            if case .colors(let q) = end, p.count == q.count {
                return .colors(zip(p, q).map { Color(red: $0.red + $1.red * k, green: $0.green + $1.green * k,
                                                     blue: $0.blue + $1.blue * k, alpha: $0.alpha + $1.alpha * k) })
            }
        case .path(let p):
            if case .path(let q) = end, let r = p.zipPoints(q, { Point(x: $0.x + $1.x * k, y: $0.y + $1.y * k) }) { return .path(r) }
        case .bool, .string, .image, .layer, .constraints, .emitterCells, .filters, .drawing, .attributedString:
            break
        }
        return value
    }

    /// `m` concatenated with itself `n` times (n ≥ 1), by repeated squaring.
    static func power(_ m: Transform3D, _ n: Int) -> Transform3D {
        var result = Transform3D.identity, base = m, n = n
        while n > 0 {
            if n & 1 == 1 { result = result.concatenating(base) }
            base = base.concatenating(base)
            n >>= 1
        }
        return result
    }

    /// The distance between two values, which paced keyframes make proportional to time:
    /// Euclidean over the components (RGBA for colours, the 16 entries for transforms).
    /// Values that cannot be blended are 0 apart when equal and 1 apart otherwise.
    public static func distance(_ a: PropertyValue, _ b: PropertyValue) -> Double {
        switch (a, b) {
        case let (.number(x), .number(y)): return Swift.abs(y - x)
        case let (.point(p), .point(q)): return hypot(q.x - p.x, q.y - p.y)
        case let (.size(p), .size(q)): return hypot(q.width - p.width, q.height - p.height)
        case let (.rect(p), .rect(q)):
            return norm([q.origin.x - p.origin.x, q.origin.y - p.origin.y, q.size.width - p.size.width, q.size.height - p.size.height])
        case let (.color(p), .color(q)):
            return norm([q.red - p.red, q.green - p.green, q.blue - p.blue, q.alpha - p.alpha])
        case let (.transform(p), .transform(q)):
            return norm(zip(p.rowMajor, q.rowMajor).map { $1 - $0 })
        case let (.numbers(p), .numbers(q)) where p.count == q.count:
            return norm(zip(p, q).map { $1 - $0 })
        case let (.colors(p), .colors(q)) where p.count == q.count:
            return norm(zip(p, q).flatMap { [$1.red - $0.red, $1.green - $0.green, $1.blue - $0.blue, $1.alpha - $0.alpha] })
        default:
            return a == b ? 0 : 1
        }
    }

    @inline(__always) static func hypot(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
    static func norm(_ v: [Double]) -> Double { v.reduce(0) { $0 + $1 * $1 }.squareRoot() }
}
