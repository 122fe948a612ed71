extension Path {
    /// The path's subpaths as closed polygons, for filling: each curve is replaced by
    /// `curveSteps` chords and every subpath is closed (a fill closes open subpaths, as Core
    /// Graphics does). Subpaths with fewer than three points enclose nothing and are left out.
    public func fillPolygons(curveSteps: Int = 16) -> [[Point]] {
        var polygons: [[Point]] = []
        var current: [Point] = []
        var position = Point.zero
        func finish() {
            if current.count >= 3 { polygons.append(current) }
            current.removeAll()
        }
        for e in elements {
            switch e {
            case .moveTo(let p):
                finish()
                current = [p]
                position = p
            case .lineTo(let p):
                if current.isEmpty { current = [position] }
                current.append(p)
                position = p
            case let .quadCurveTo(c, p):
                if current.isEmpty { current = [position] }
                let a = position
                for i in 1...curveSteps {
                    let u = Double(i) / Double(curveSteps), v = 1 - u
                    current.append(Point(x: v * v * a.x + 2 * v * u * c.x + u * u * p.x,
                                         y: v * v * a.y + 2 * v * u * c.y + u * u * p.y))
                }
                position = p
            case let .curveTo(c1, c2, p):
                if current.isEmpty { current = [position] }
                let s = CubicSegment(p0: position, c1: c1, c2: c2, p3: p)
                for i in 1...curveSteps { current.append(s.point(at: Double(i) / Double(curveSteps))) }
                position = p
            case .closeSubpath:
                if let first = current.first { position = first }
                finish()
            }
        }
        finish()
        return polygons
    }
}
