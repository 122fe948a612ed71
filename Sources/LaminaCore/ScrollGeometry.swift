/// Scroll layers' geometry (`CAScrollLayer`), shared by laminad and the client library: where
/// `scroll(to:)` puts the origin, what rectangle it shows, and what there is to scroll.
extension LayerProperties {
    /// The bounds origin `scroll(to: point)` gives: `point` on the axes `scrollMode` allows, the
    /// current origin on the others (Core Animation's `scrollToPoint:`).
    public func scrollOrigin(to point: Point) -> Point {
        Point(x: scrollMode.scrollsHorizontally ? point.x : bounds.origin.x,
              y: scrollMode.scrollsVertically ? point.y : bounds.origin.y)
    }

    /// The bounds origin that shows `rect` (in the layer's bounds coordinates) with the least
    /// movement (Core Animation's `scrollToRect:`): an axis on which it is already in view stays;
    /// one on which it is before the bounds brings its leading edge to the bounds' leading edge,
    /// after them its trailing edge to their trailing edge (its leading edge, where it is longer
    /// than the bounds). Limited by `scrollMode`, as `scrollOrigin(to:)` is.
    public func scrollOrigin(showing rect: Rect) -> Point {
        func axis(_ origin: Double, _ length: Double, _ lo: Double, _ hi: Double) -> Double {
            if lo < origin || hi - lo > length { return lo }
            if hi > origin + length { return hi - length }
            return origin
        }
        return scrollOrigin(to: Point(x: axis(bounds.origin.x, bounds.size.width, rect.minX, rect.maxX),
                                      y: axis(bounds.origin.y, bounds.size.height, rect.minY, rect.maxY)))
    }

    /// The layer's frame in its superlayer's coordinates with its transform applied: the box
    /// around its transformed bounds (Core Animation's `frame` for any affine transform; the
    /// untransformed frame where a perspective puts a corner behind the eye).
    public var transformedFrame: Rect {
        if transform.isIdentity { return frame }
        let m = transformToSuperlayer
        var corners: [Point] = []
        corners.reserveCapacity(4)
        for c in bounds.corners {
            guard let p = m.apply(to: c) else { return frame }
            corners.append(Point(x: p.x, y: p.y))
        }
        return Rect(bounding: corners) ?? frame
    }

    /// What a scroll layer scrolls over, in its bounds coordinates: (0, 0) to `scrollContentSize`
    /// where that is set (either side non-zero), else the union of `sublayerFrames` (its
    /// sublayers' `transformedFrame`s) and the point (0, 0), so content laid out from the top
    /// left starts at rest.
    public func scrollContent(sublayerFrames: some Sequence<Rect>) -> Rect {
        if scrollContentSize.width > 0 || scrollContentSize.height > 0 {
            return Rect(origin: .zero, size: scrollContentSize)
        }
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        for f in sublayerFrames where f.minX.isFinite && f.minY.isFinite && f.maxX.isFinite && f.maxY.isFinite {
            x0 = Swift.min(x0, f.minX); y0 = Swift.min(y0, f.minY)
            x1 = Swift.max(x1, f.maxX); y1 = Swift.max(y1, f.maxY)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
