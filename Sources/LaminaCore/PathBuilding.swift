// Building paths the way Core Graphics' `CGPath` constructors do, and the arithmetic shape
// layers and shadow paths need. Coordinates are the layer's bounds coordinates (y down).

extension Path {
    /// A closed rectangle (`CGPath(rect:)`), drawn from its minimum corner clockwise on screen.
    public init(rect r: Rect) {
        self.init()
        move(to: Point(x: r.minX, y: r.minY))
        addLine(to: Point(x: r.maxX, y: r.minY))
        addLine(to: Point(x: r.maxX, y: r.maxY))
        addLine(to: Point(x: r.minX, y: r.maxY))
        closeSubpath()
    }

    /// An ellipse inscribed in `r` (`CGPath(ellipseIn:)`), four cubic arcs.
    public init(ellipseIn r: Rect) {
        self.init()
        let k = 0.5522847498307936  // 4/3·(√2 − 1): the cubic closest to a quarter circle
        let cx = r.midX, cy = r.midY, rx = r.size.width / 2, ry = r.size.height / 2
        move(to: Point(x: cx + rx, y: cy))
        addCurve(to: Point(x: cx, y: cy + ry), control1: Point(x: cx + rx, y: cy + k * ry), control2: Point(x: cx + k * rx, y: cy + ry))
        addCurve(to: Point(x: cx - rx, y: cy), control1: Point(x: cx - k * rx, y: cy + ry), control2: Point(x: cx - rx, y: cy + k * ry))
        addCurve(to: Point(x: cx, y: cy - ry), control1: Point(x: cx - rx, y: cy - k * ry), control2: Point(x: cx - k * rx, y: cy - ry))
        addCurve(to: Point(x: cx + rx, y: cy), control1: Point(x: cx + k * rx, y: cy - ry), control2: Point(x: cx + rx, y: cy - k * ry))
        closeSubpath()
    }

    /// A rectangle with circular corners of `radius`, clamped to half the shorter side
    /// (`CGPath(roundedRect:cornerWidth:cornerHeight:)` with equal radii).
    public init(roundedRect r: Rect, cornerRadius radius: Double) {
        let rr = Swift.max(0, Swift.min(radius, r.size.width / 2, r.size.height / 2))
        if rr == 0 { self.init(rect: r); return }
        self.init()
        let k = 0.5522847498307936 * rr
        let x0 = r.minX, y0 = r.minY, x1 = r.maxX, y1 = r.maxY
        move(to: Point(x: x0 + rr, y: y0))
        addLine(to: Point(x: x1 - rr, y: y0))
        addCurve(to: Point(x: x1, y: y0 + rr), control1: Point(x: x1 - rr + k, y: y0), control2: Point(x: x1, y: y0 + rr - k))
        addLine(to: Point(x: x1, y: y1 - rr))
        addCurve(to: Point(x: x1 - rr, y: y1), control1: Point(x: x1, y: y1 - rr + k), control2: Point(x: x1 - rr + k, y: y1))
        addLine(to: Point(x: x0 + rr, y: y1))
        addCurve(to: Point(x: x0, y: y1 - rr), control1: Point(x: x0 + rr - k, y: y1), control2: Point(x: x0, y: y1 - rr + k))
        addLine(to: Point(x: x0, y: y0 + rr))
        addCurve(to: Point(x: x0 + rr, y: y0), control1: Point(x: x0, y: y0 + rr - k), control2: Point(x: x0 + rr - k, y: y0))
        closeSubpath()
    }

    /// Adds a circular arc (`CGPath.addArc(center:radius:startAngle:endAngle:clockwise:)`), with a
    /// line from the current point to the arc's start when a subpath is open, else a move.
    /// Angles are in radians from the +x axis towards +y (downwards on screen); `clockwise` is as
    /// seen on screen with y down, i.e. increasing angle.
    public mutating func addArc(center c: Point, radius: Double, startAngle a0: Double, endAngle a1: Double,
                                clockwise: Bool) {
        var sweep = a1 - a0
        let full = 2 * Double.pi
        if clockwise {
            if sweep < 0 { sweep = sweep.truncatingRemainder(dividingBy: full) + full }
        } else {
            if sweep > 0 { sweep = sweep.truncatingRemainder(dividingBy: full) - full }
        }
        if Swift.abs(sweep) > full { sweep = sweep < 0 ? -full : full }
        let start = Point(x: c.x + radius * _cos(a0), y: c.y + radius * _sin(a0))
        if elements.isEmpty || elements.last == .closeSubpath { move(to: start) } else { addLine(to: start) }
        let pieces = Swift.max(1, Int((Swift.abs(sweep) / (Double.pi / 2)).rounded(.up)))
        let step = sweep / Double(pieces)
        let k = 4.0 / 3.0 * _sin(step / 4) / _cos(step / 4)
        var a = a0
        for _ in 0..<pieces {
            let b = a + step
            let p0 = Point(x: c.x + radius * _cos(a), y: c.y + radius * _sin(a))
            let p3 = Point(x: c.x + radius * _cos(b), y: c.y + radius * _sin(b))
            let c1 = Point(x: p0.x - k * radius * _sin(a), y: p0.y + k * radius * _cos(a))
            let c2 = Point(x: p3.x + k * radius * _sin(b), y: p3.y - k * radius * _cos(b))
            addCurve(to: p3, control1: c1, control2: c2)
            a = b
        }
    }

    /// True when `other` has the same element kinds in the same order, so the two can be
    /// interpolated point by point (Core Animation animates `path` only between such paths).
    public func hasSameStructure(as other: Path) -> Bool {
        guard elements.count == other.elements.count else { return false }
        for (a, b) in zip(elements, other.elements) {
            switch (a, b) {
            case (.moveTo, .moveTo), (.lineTo, .lineTo), (.quadCurveTo, .quadCurveTo), (.curveTo, .curveTo),
                 (.closeSubpath, .closeSubpath): continue
            default: return false
            }
        }
        return true
    }

    /// Applies `f` to every point of the path.
    public func mapPoints(_ f: (Point) -> Point) -> Path {
        Path(elements.map { e in
            switch e {
            case .moveTo(let p): .moveTo(f(p))
            case .lineTo(let p): .lineTo(f(p))
            case let .quadCurveTo(c, p): .quadCurveTo(control: f(c), end: f(p))
            case let .curveTo(c1, c2, p): .curveTo(control1: f(c1), control2: f(c2), end: f(p))
            case .closeSubpath: .closeSubpath
            }
        })
    }

    /// Combines two paths of the same structure point by point with `f(a, b)`; nil otherwise.
    public func zipPoints(_ other: Path, _ f: (Point, Point) -> Point) -> Path? {
        guard hasSameStructure(as: other) else { return nil }
        return Path(zip(elements, other.elements).map { a, b in
            switch (a, b) {
            case let (.moveTo(p), .moveTo(q)): .moveTo(f(p, q))
            case let (.lineTo(p), .lineTo(q)): .lineTo(f(p, q))
            case let (.quadCurveTo(c, p), .quadCurveTo(d, q)): .quadCurveTo(control: f(c, d), end: f(p, q))
            case let (.curveTo(c1, c2, p), .curveTo(d1, d2, q)): .curveTo(control1: f(c1, d1), control2: f(c2, d2), end: f(p, q))
            default: .closeSubpath
            }
        })
    }

    /// The smallest rectangle holding every point and control point (`CGPath.boundingBox`);
    /// `.zero` for an empty path.
    public var controlPointBounds: Rect {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ p: Point) {
            minX = Swift.min(minX, p.x); minY = Swift.min(minY, p.y)
            maxX = Swift.max(maxX, p.x); maxY = Swift.max(maxY, p.y)
        }
        for e in elements {
            switch e {
            case .moveTo(let p), .lineTo(let p): add(p)
            case let .quadCurveTo(c, p): add(c); add(p)
            case let .curveTo(c1, c2, p): add(c1); add(c2); add(p)
            case .closeSubpath: break
            }
        }
        guard minX <= maxX else { return .zero }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

extension Path: CustomStringConvertible {
    /// SVG path data with absolute commands: `M 0 0 L 10 0 C … Z`.
    public var description: String {
        func n(_ v: Double) -> String {
            v == v.rounded() && Swift.abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
        }
        func pt(_ p: Point) -> String { "\(n(p.x)) \(n(p.y))" }
        return elements.map { e in
            switch e {
            case .moveTo(let p): "M \(pt(p))"
            case .lineTo(let p): "L \(pt(p))"
            case let .quadCurveTo(c, p): "Q \(pt(c)) \(pt(p))"
            case let .curveTo(c1, c2, p): "C \(pt(c1)) \(pt(c2)) \(pt(p))"
            case .closeSubpath: "Z"
            }
        }.joined(separator: " ")
    }
}
