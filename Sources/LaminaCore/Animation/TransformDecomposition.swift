/// A `Transform3D` split into the parts Core Animation interpolates separately: scale, skew,
/// rotation (a unit quaternion), translation and perspective.
///
/// The transform is rebuilt as `M = S · K · R · T · P` in Core Animation's row-vector order
/// (scale applied first, perspective last), where the rows of `S · K · R` are
/// `s0·r0`, `s1·(r1 + skewXY·r0)`, `s2·(r2 + skewXZ·r0 + skewYZ·r1)` for the orthonormal rows
/// `r0…r2` of R. This is the classic "unmatrix" (Graphics Gems II; CSS Transforms 2 §
/// "Decomposing a 3D matrix"), whose matrix layout is CA's: translation in m41…m43, perspective
/// in m14…m34. Interpolating the parts, with the quaternion slerped, is what makes a 0 → 180°
/// rotation rotate instead of shrinking through a zero scale.
public struct DecomposedTransform: Hashable, Sendable {
    /// Scale factors along x, y and z (negative for a mirror image).
    public var scaleX: Double = 1, scaleY: Double = 1, scaleZ: Double = 1
    /// Shear factors: y-row along x, z-row along x, z-row along y.
    public var skewXY: Double = 0, skewXZ: Double = 0, skewYZ: Double = 0
    /// The rotation as a unit quaternion (x, y, z, w); identity is (0, 0, 0, 1).
    public var quaternionX: Double = 0, quaternionY: Double = 0, quaternionZ: Double = 0, quaternionW: Double = 1
    /// Translation (m41…m43 after normalising m44 to 1).
    public var translationX: Double = 0, translationY: Double = 0, translationZ: Double = 0
    /// The perspective column (m14, m24, m34, m44 of the perspective factor); identity is (0,0,0,1).
    public var perspectiveX: Double = 0, perspectiveY: Double = 0, perspectiveZ: Double = 0, perspectiveW: Double = 1

    /// The decomposition of the identity transform.
    public init() {}

    /// Decomposes `m`; nil where it has no decomposition (m44 = 0, or a singular 3×3 part such
    /// as a zero scale). Callers fall back to interpolating matrix entries. The parts describe
    /// `m / m44`, the same projective map (m44 is 1 for every transform without perspective).
    public init?(_ m: Transform3D) {
        guard m.m44 != 0, m.isFinite else { return nil }
        let n = 1 / m.m44
        var r0 = (m.m11 * n, m.m12 * n, m.m13 * n)
        var r1 = (m.m21 * n, m.m22 * n, m.m23 * n)
        var r2 = (m.m31 * n, m.m32 * n, m.m33 * n)
        let t = (m.m41 * n, m.m42 * n, m.m43 * n)
        let det = dot(r0, cross(r1, r2))
        guard det != 0, det.isFinite else { return nil }

        // Perspective: the 3×3 part times (px, py, pz) gives the m14…m34 column.
        let pc = (m.m14 * n, m.m24 * n, m.m34 * n)
        if pc.0 != 0 || pc.1 != 0 || pc.2 != 0 {
            // Cramer's rule on rows·p = pc, which replaces the columns of the 3×3 part by pc.
            let c0 = (r0.0, r1.0, r2.0), c1 = (r0.1, r1.1, r2.1), c2 = (r0.2, r1.2, r2.2)
            let px = dot(pc, cross(c1, c2)) / det
            let py = dot(c0, cross(pc, c2)) / det
            let pz = dot(c0, cross(c1, pc)) / det
            perspectiveX = px; perspectiveY = py; perspectiveZ = pz
            perspectiveW = 1 - (t.0 * px + t.1 * py + t.2 * pz)
        }
        translationX = t.0; translationY = t.1; translationZ = t.2

        // Gram–Schmidt: scales, shears, orthonormal rows.
        scaleX = length(r0); r0 = scaled(r0, 1 / scaleX)
        var kxy = dot(r0, r1)
        r1 = combine(r1, r0, -kxy)
        scaleY = length(r1); r1 = scaled(r1, 1 / scaleY)
        kxy /= scaleY
        var kxz = dot(r0, r2)
        r2 = combine(r2, r0, -kxz)
        var kyz = dot(r1, r2)
        r2 = combine(r2, r1, -kyz)
        scaleZ = length(r2); r2 = scaled(r2, 1 / scaleZ)
        kxz /= scaleZ
        kyz /= scaleZ
        skewXY = kxy; skewXZ = kxz; skewYZ = kyz
        // A mirror image: negate the scales and rows so R is a proper rotation.
        if dot(r0, cross(r1, r2)) < 0 {
            scaleX = -scaleX; scaleY = -scaleY; scaleZ = -scaleZ
            r0 = scaled(r0, -1); r1 = scaled(r1, -1); r2 = scaled(r2, -1)
        }
        (quaternionX, quaternionY, quaternionZ, quaternionW) = quaternion(rows: r0, r1, r2)
    }

    /// The rotation matrix rows (row-vector convention) of the quaternion.
    var rotationRows: ((Double, Double, Double), (Double, Double, Double), (Double, Double, Double)) {
        let x = quaternionX, y = quaternionY, z = quaternionZ, w = quaternionW
        return ((1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)),
                (2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)),
                (2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)))
    }

    /// The transform these parts make.
    public var transform: Transform3D {
        let (r0, r1, r2) = rotationRows
        let a0 = scaled(r0, scaleX)
        let a1 = scaled(combine(r1, r0, skewXY), scaleY)
        let a2 = scaled(combine(combine(r2, r0, skewXZ), r1, skewYZ), scaleZ)
        let px = perspectiveX, py = perspectiveY, pz = perspectiveZ
        let tx = translationX, ty = translationY, tz = translationZ
        return Transform3D(
            m11: a0.0, m12: a0.1, m13: a0.2, m14: a0.0 * px + a0.1 * py + a0.2 * pz,
            m21: a1.0, m22: a1.1, m23: a1.2, m24: a1.0 * px + a1.1 * py + a1.2 * pz,
            m31: a2.0, m32: a2.1, m33: a2.2, m34: a2.0 * px + a2.1 * py + a2.2 * pz,
            m41: tx, m42: ty, m43: tz, m44: tx * px + ty * py + tz * pz + perspectiveW)
    }

    /// Interpolates every part linearly, the quaternion by spherical interpolation along the
    /// shorter arc. `t` outside [0, 1] extrapolates (springs overshoot).
    public static func interpolate(_ a: DecomposedTransform, _ b: DecomposedTransform, _ t: Double) -> DecomposedTransform {
        @inline(__always) func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * t }
        var r = DecomposedTransform()
        r.scaleX = mix(a.scaleX, b.scaleX); r.scaleY = mix(a.scaleY, b.scaleY); r.scaleZ = mix(a.scaleZ, b.scaleZ)
        r.skewXY = mix(a.skewXY, b.skewXY); r.skewXZ = mix(a.skewXZ, b.skewXZ); r.skewYZ = mix(a.skewYZ, b.skewYZ)
        r.translationX = mix(a.translationX, b.translationX)
        r.translationY = mix(a.translationY, b.translationY)
        r.translationZ = mix(a.translationZ, b.translationZ)
        r.perspectiveX = mix(a.perspectiveX, b.perspectiveX)
        r.perspectiveY = mix(a.perspectiveY, b.perspectiveY)
        r.perspectiveZ = mix(a.perspectiveZ, b.perspectiveZ)
        r.perspectiveW = mix(a.perspectiveW, b.perspectiveW)
        (r.quaternionX, r.quaternionY, r.quaternionZ, r.quaternionW) = slerp(
            (a.quaternionX, a.quaternionY, a.quaternionZ, a.quaternionW),
            (b.quaternionX, b.quaternionY, b.quaternionZ, b.quaternionW), t)
        return r
    }

    // MARK: Euler angles, for the transform.rotation.x/.y/.z key paths

    /// The rotation as angles about x, y and z, applied in that order
    /// (`R = Rx · Ry · Rz` in row-vector order). For a 2-D rotation only `z` is non-zero and
    /// equals `atan2(m12, m11)`.
    public var eulerAngles: (x: Double, y: Double, z: Double) {
        let (r0, r1, r2) = rotationRows
        let sy = Swift.min(Swift.max(-r0.2, -1), 1)
        let cy = (1 - sy * sy).squareRoot()
        let y = _atan2(sy, cy)
        if cy > 1e-9 {
            return (_atan2(r1.2, r2.2), y, _atan2(r0.1, r0.0))
        }
        // Gimbal lock: only x ± z is defined; put it all in x.
        return (_atan2(-r2.1, r1.1), y, 0)
    }

    /// Replaces the rotation by angles about x, y and z applied in that order. Any angle is
    /// accepted (4π is two turns' worth, which matters only to the animation producing it).
    public mutating func setEulerAngles(x: Double, y: Double, z: Double) {
        let (sx, cx) = (_sin(x / 2), _cos(x / 2))
        let (sy, cy) = (_sin(y / 2), _cos(y / 2))
        let (sz, cz) = (_sin(z / 2), _cos(z / 2))
        // q = qz · qy · qx (Hamilton product; the right factor applies first).
        // qz · qy:
        let ax = -sz * sy, ay = cz * sy, az = sz * cy, aw = cz * cy
        // (qz · qy) · qx:
        quaternionX = aw * sx + ax * cx
        quaternionY = ay * cx + az * sx
        quaternionZ = az * cx - ay * sx
        quaternionW = aw * cx - ax * sx
    }
}

// MARK: - Small vector helpers (3-tuples keep everything on the stack)

@inline(__always) fileprivate func dot(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
    a.0 * b.0 + a.1 * b.1 + a.2 * b.2
}
@inline(__always) fileprivate func cross(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> (Double, Double, Double) {
    (a.1 * b.2 - a.2 * b.1, a.2 * b.0 - a.0 * b.2, a.0 * b.1 - a.1 * b.0)
}
@inline(__always) fileprivate func length(_ a: (Double, Double, Double)) -> Double { dot(a, a).squareRoot() }
@inline(__always) fileprivate func scaled(_ a: (Double, Double, Double), _ s: Double) -> (Double, Double, Double) {
    (a.0 * s, a.1 * s, a.2 * s)
}
/// a + b·s
@inline(__always) fileprivate func combine(_ a: (Double, Double, Double), _ b: (Double, Double, Double), _ s: Double) -> (Double, Double, Double) {
    (a.0 + b.0 * s, a.1 + b.1 * s, a.2 + b.2 * s)
}

/// The unit quaternion of an orthonormal, right-handed rotation given by its rows
/// (row-vector convention), by Shepperd's method (stable for every angle).
fileprivate func quaternion(rows r0: (Double, Double, Double), _ r1: (Double, Double, Double), _ r2: (Double, Double, Double))
    -> (Double, Double, Double, Double) {
    // In row-vector form R[i][j] = Rcol[j][i], so off-diagonal differences swap sign.
    let trace = r0.0 + r1.1 + r2.2
    var q: (Double, Double, Double, Double)
    if trace > 0 {
        let s = (trace + 1).squareRoot() * 2            // 4w
        q = ((r1.2 - r2.1) / s, (r2.0 - r0.2) / s, (r0.1 - r1.0) / s, s / 4)
    } else if r0.0 > r1.1, r0.0 > r2.2 {
        let s = (1 + r0.0 - r1.1 - r2.2).squareRoot() * 2   // 4x
        q = (s / 4, (r0.1 + r1.0) / s, (r0.2 + r2.0) / s, (r1.2 - r2.1) / s)
    } else if r1.1 > r2.2 {
        let s = (1 + r1.1 - r0.0 - r2.2).squareRoot() * 2   // 4y
        q = ((r0.1 + r1.0) / s, s / 4, (r1.2 + r2.1) / s, (r2.0 - r0.2) / s)
    } else {
        let s = (1 + r2.2 - r0.0 - r1.1).squareRoot() * 2   // 4z
        q = ((r0.2 + r2.0) / s, (r1.2 + r2.1) / s, s / 4, (r0.1 - r1.0) / s)
    }
    // Keep w ≥ 0 so the same rotation always has the same quaternion.
    if q.3 < 0 { q = (-q.0, -q.1, -q.2, -q.3) }
    return q
}

/// Spherical interpolation along the shorter arc; nearly parallel quaternions are lerped and
/// normalised, which avoids dividing by sin θ ≈ 0.
fileprivate func slerp(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double), _ t: Double)
    -> (Double, Double, Double, Double) {
    var b = b
    var cosTheta = a.0 * b.0 + a.1 * b.1 + a.2 * b.2 + a.3 * b.3
    if cosTheta < 0 {
        b = (-b.0, -b.1, -b.2, -b.3)
        cosTheta = -cosTheta
    }
    var wa: Double, wb: Double
    if cosTheta > 0.9995 {
        wa = 1 - t
        wb = t
    } else {
        let theta = _acos(Swift.min(cosTheta, 1))
        let sinTheta = (1 - cosTheta * cosTheta).squareRoot()
        wa = _sin((1 - t) * theta) / sinTheta
        wb = _sin(t * theta) / sinTheta
    }
    var q = (a.0 * wa + b.0 * wb, a.1 * wa + b.1 * wb, a.2 * wa + b.2 * wb, a.3 * wa + b.3 * wb)
    let len = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot()
    if len > 0 { q = (q.0 / len, q.1 / len, q.2 / len, q.3 / len) }
    return q
}
