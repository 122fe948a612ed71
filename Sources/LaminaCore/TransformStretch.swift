extension Transform3D {
    /// How many display pixels one point of `rect` covers at most under this transform (a layer's
    /// transform to the display): the largest stretch of the map's derivative at the rectangle's
    /// corners, where perspective magnifies most. 1 for the identity; 0 when no corner is in
    /// front of the eye.
    public func largestStretch(over rect: Rect) -> Double {
        var best = 0.0
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)] {
            let X = x * m11 + y * m21 + m41, Y = x * m12 + y * m22 + m42
            let w = x * m14 + y * m24 + m44
            guard w > 0 else { continue }
            // d(X/w)/dx = (m11·w − X·m14) / w², and so on.
            let w2 = w * w
            let dxdx = (m11 * w - X * m14) / w2, dydx = (m12 * w - Y * m14) / w2
            let dxdy = (m21 * w - X * m24) / w2, dydy = (m22 * w - Y * m24) / w2
            let s = Swift.max((dxdx * dxdx + dydx * dydx).squareRoot(), (dxdy * dxdy + dydy * dydy).squareRoot())
            if s.isFinite { best = Swift.max(best, s) }
        }
        return best
    }
}
