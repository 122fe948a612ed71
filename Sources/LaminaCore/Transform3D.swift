/// A 4×4 homogeneous transform laid out and applied exactly as Core Animation's `CATransform3D`.
///
/// Points are row vectors: `p' = p · M`, so translation lives in `m41…m43` and perspective in
/// `m34` (set `m34 = -1/d` for an eye at distance `d`). `a.concatenating(b)` applies `a` first,
/// then `b`, like `CATransform3DConcat(a, b)`.
public struct Transform3D: Hashable, Sendable, CustomStringConvertible {
    public var m11: Double, m12: Double, m13: Double, m14: Double
    public var m21: Double, m22: Double, m23: Double, m24: Double
    public var m31: Double, m32: Double, m33: Double, m34: Double
    public var m41: Double, m42: Double, m43: Double, m44: Double

    @inlinable public init(
        m11: Double, m12: Double, m13: Double, m14: Double,
        m21: Double, m22: Double, m23: Double, m24: Double,
        m31: Double, m32: Double, m33: Double, m34: Double,
        m41: Double, m42: Double, m43: Double, m44: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13; self.m14 = m14
        self.m21 = m21; self.m22 = m22; self.m23 = m23; self.m24 = m24
        self.m31 = m31; self.m32 = m32; self.m33 = m33; self.m34 = m34
        self.m41 = m41; self.m42 = m42; self.m43 = m43; self.m44 = m44
    }

    /// Builds a transform from 16 numbers in row-major order (`m11, m12, …, m44`).
    /// Returns nil unless there are exactly 16.
    public init?(rowMajor v: [Double]) {
        guard v.count == 16 else { return nil }
        self.init(m11: v[0], m12: v[1], m13: v[2], m14: v[3],
                  m21: v[4], m22: v[5], m23: v[6], m24: v[7],
                  m31: v[8], m32: v[9], m33: v[10], m34: v[11],
                  m41: v[12], m42: v[13], m43: v[14], m44: v[15])
    }

    /// The 16 entries in row-major order. Read as column-major, the same memory is the
    /// column-vector matrix that GLSL's `M * v` expects.
    @inlinable public var rowMajor: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    public static let identity = Transform3D(
        m11: 1, m12: 0, m13: 0, m14: 0,
        m21: 0, m22: 1, m23: 0, m24: 0,
        m31: 0, m32: 0, m33: 1, m34: 0,
        m41: 0, m42: 0, m43: 0, m44: 1)

    @inlinable public var isIdentity: Bool { self == .identity }

    /// `CATransform3DMakeTranslation`.
    @inlinable public static func translation(x: Double, y: Double, z: Double = 0) -> Transform3D {
        var t = Transform3D.identity
        t.m41 = x; t.m42 = y; t.m43 = z
        return t
    }

    /// `CATransform3DMakeScale`.
    @inlinable public static func scale(x: Double, y: Double, z: Double = 1) -> Transform3D {
        var t = Transform3D.identity
        t.m11 = x; t.m22 = y; t.m33 = z
        return t
    }

    /// `CATransform3DMakeRotation`: `angle` radians about the axis (x, y, z), which need not be
    /// unit length. A zero axis gives the identity, as in Core Animation.
    public static func rotation(angle: Double, x: Double = 0, y: Double = 0, z: Double = 1) -> Transform3D {
        let len = (x * x + y * y + z * z).squareRoot()
        guard len > 0 else { return .identity }
        let (ux, uy, uz) = (x / len, y / len, z / len)
        let c = _cos(angle), s = _sin(angle), t = 1 - c
        return Transform3D(
            m11: t * ux * ux + c, m12: t * ux * uy + s * uz, m13: t * ux * uz - s * uy, m14: 0,
            m21: t * ux * uy - s * uz, m22: t * uy * uy + c, m23: t * uy * uz + s * ux, m24: 0,
            m31: t * ux * uz + s * uy, m32: t * uy * uz - s * ux, m33: t * uz * uz + c, m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// A perspective projection for an eye at `distance` points: `m34 = -1/distance`.
    @inlinable public static func perspective(distance: Double) -> Transform3D {
        var t = Transform3D.identity
        t.m34 = -1 / distance
        return t
    }

    /// `self` then `other` (`CATransform3DConcat(self, other)`): the matrix product `self · other`.
    @inlinable public func concatenating(_ b: Transform3D) -> Transform3D {
        let a = self
        return Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// `CATransform3DTranslate`: translation first, then `self`.
    @inlinable public func translatedBy(x: Double, y: Double, z: Double = 0) -> Transform3D {
        Transform3D.translation(x: x, y: y, z: z).concatenating(self)
    }
    /// `CATransform3DScale`: scale first, then `self`.
    @inlinable public func scaledBy(x: Double, y: Double, z: Double = 1) -> Transform3D {
        Transform3D.scale(x: x, y: y, z: z).concatenating(self)
    }
    /// `CATransform3DRotate`: rotation first, then `self`.
    public func rotatedBy(angle: Double, x: Double = 0, y: Double = 0, z: Double = 1) -> Transform3D {
        Transform3D.rotation(angle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// Applies the transform to a point with the given z, dividing by w.
    /// Returns nil where w ≤ 0 (the point is behind the eye).
    @inlinable public func apply(to p: Point, z: Double = 0) -> (x: Double, y: Double, z: Double)? {
        let x = p.x * m11 + p.y * m21 + z * m31 + m41
        let y = p.x * m12 + p.y * m22 + z * m32 + m42
        let zz = p.x * m13 + p.y * m23 + z * m33 + m43
        let w = p.x * m14 + p.y * m24 + z * m34 + m44
        guard w > 0 else { return nil }
        return (x / w, y / w, zz / w)
    }

    /// True when every entry is finite.
    public var isFinite: Bool {
        // x·0 is 0 for finite x and NaN otherwise; no array, since this runs per value.
        let z = m11 * 0 + m12 * 0 + m13 * 0 + m14 * 0 + m21 * 0 + m22 * 0 + m23 * 0 + m24 * 0
            + m31 * 0 + m32 * 0 + m33 * 0 + m34 * 0 + m41 * 0 + m42 * 0 + m43 * 0 + m44 * 0
        return z == 0
    }

    /// `CATransform3DIsAffine`.
    public var isAffine: Bool {
        m13 == 0 && m14 == 0 && m23 == 0 && m24 == 0 && m31 == 0 && m32 == 0 && m33 == 1 && m34 == 0 && m43 == 0 && m44 == 1
    }

    /// `CATransform3DInvert`; returns nil where the matrix is singular.
    public func inverted() -> Transform3D? {
        let m = rowMajor
        var inv = [Double](repeating: 0, count: 16)
        inv[0] = m[5]*m[10]*m[15] - m[5]*m[11]*m[14] - m[9]*m[6]*m[15] + m[9]*m[7]*m[14] + m[13]*m[6]*m[11] - m[13]*m[7]*m[10]
        inv[4] = -m[4]*m[10]*m[15] + m[4]*m[11]*m[14] + m[8]*m[6]*m[15] - m[8]*m[7]*m[14] - m[12]*m[6]*m[11] + m[12]*m[7]*m[10]
        inv[8] = m[4]*m[9]*m[15] - m[4]*m[11]*m[13] - m[8]*m[5]*m[15] + m[8]*m[7]*m[13] + m[12]*m[5]*m[11] - m[12]*m[7]*m[9]
        inv[12] = -m[4]*m[9]*m[14] + m[4]*m[10]*m[13] + m[8]*m[5]*m[14] - m[8]*m[6]*m[13] - m[12]*m[5]*m[10] + m[12]*m[6]*m[9]
        inv[1] = -m[1]*m[10]*m[15] + m[1]*m[11]*m[14] + m[9]*m[2]*m[15] - m[9]*m[3]*m[14] - m[13]*m[2]*m[11] + m[13]*m[3]*m[10]
        inv[5] = m[0]*m[10]*m[15] - m[0]*m[11]*m[14] - m[8]*m[2]*m[15] + m[8]*m[3]*m[14] + m[12]*m[2]*m[11] - m[12]*m[3]*m[10]
        inv[9] = -m[0]*m[9]*m[15] + m[0]*m[11]*m[13] + m[8]*m[1]*m[15] - m[8]*m[3]*m[13] - m[12]*m[1]*m[11] + m[12]*m[3]*m[9]
        inv[13] = m[0]*m[9]*m[14] - m[0]*m[10]*m[13] - m[8]*m[1]*m[14] + m[8]*m[2]*m[13] + m[12]*m[1]*m[10] - m[12]*m[2]*m[9]
        inv[2] = m[1]*m[6]*m[15] - m[1]*m[7]*m[14] - m[5]*m[2]*m[15] + m[5]*m[3]*m[14] + m[13]*m[2]*m[7] - m[13]*m[3]*m[6]
        inv[6] = -m[0]*m[6]*m[15] + m[0]*m[7]*m[14] + m[4]*m[2]*m[15] - m[4]*m[3]*m[14] - m[12]*m[2]*m[7] + m[12]*m[3]*m[6]
        inv[10] = m[0]*m[5]*m[15] - m[0]*m[7]*m[13] - m[4]*m[1]*m[15] + m[4]*m[3]*m[13] + m[12]*m[1]*m[7] - m[12]*m[3]*m[5]
        inv[14] = -m[0]*m[5]*m[14] + m[0]*m[6]*m[13] + m[4]*m[1]*m[14] - m[4]*m[2]*m[13] - m[12]*m[1]*m[6] + m[12]*m[2]*m[5]
        inv[3] = -m[1]*m[6]*m[11] + m[1]*m[7]*m[10] + m[5]*m[2]*m[11] - m[5]*m[3]*m[10] - m[9]*m[2]*m[7] + m[9]*m[3]*m[6]
        inv[7] = m[0]*m[6]*m[11] - m[0]*m[7]*m[10] - m[4]*m[2]*m[11] + m[4]*m[3]*m[10] + m[8]*m[2]*m[7] - m[8]*m[3]*m[6]
        inv[11] = -m[0]*m[5]*m[11] + m[0]*m[7]*m[9] + m[4]*m[1]*m[11] - m[4]*m[3]*m[9] - m[8]*m[1]*m[7] + m[8]*m[3]*m[5]
        inv[15] = m[0]*m[5]*m[10] - m[0]*m[6]*m[9] - m[4]*m[1]*m[10] + m[4]*m[2]*m[9] + m[8]*m[1]*m[6] - m[8]*m[2]*m[5]
        let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12]
        guard det != 0, det.isFinite else { return nil }
        return Transform3D(rowMajor: inv.map { $0 / det })
    }

    public var description: String {
        "[\(m11) \(m12) \(m13) \(m14); \(m21) \(m22) \(m23) \(m24); \(m31) \(m32) \(m33) \(m34); \(m41) \(m42) \(m43) \(m44)]"
    }
}

extension Transform3D {
    /// `F · self`, where F drops z: points of a plane rendered into this layer keep their x, y
    /// and w and lose their depth, as Core Animation flattens a layer's sublayers into it.
    @inlinable public var flatteningZ: Transform3D {
        var t = self
        t.m31 = 0; t.m32 = 0; t.m33 = 0; t.m34 = 0
        return t
    }

    /// Whether a layer mapped by this transform shows its front: the z of its normal (0, 0, 1)
    /// carried by the inverse transpose is positive, i.e. the inverse's m33 > 0 (as CSS decides
    /// `backface-visibility`). A mirror in x or y is not a back face; a half turn about y is.
    /// A singular transform shows nothing, so counts as facing away.
    @inlinable public var facesViewer: Bool {
        // m33 of the inverse is the (3,3) cofactor over the determinant; only signs matter.
        let cofactor33 = m11 * (m22 * m44 - m24 * m42) - m12 * (m21 * m44 - m24 * m41) + m14 * (m21 * m42 - m22 * m41)
        // The determinant by Laplace expansion along 2×2 minors of the first two rows.
        let s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14
        let s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14
        let c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33
        let c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
        guard det != 0, det.isFinite else { return false }
        return cofactor33 / det > 0
    }
}
