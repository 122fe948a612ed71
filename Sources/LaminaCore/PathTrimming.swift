// Trimming a path by arc length: `CAShapeLayer.strokeStart` / `strokeEnd`. Core Graphics has no
// such operation and neither has cairo, so it is done here, on the path itself, before stroking.

/// A path cut to a fraction of its length, and where its first piece starts along the subpath
/// it came from (a dash pattern restarts at every subpath; offsetting the dash phase by this
/// keeps dashes where they were on the untrimmed path while `strokeStart` moves).
public struct TrimmedPath: Sendable, Hashable {
    /// The kept part: open subpaths, except that a closed subpath kept whole stays closed.
    public var path: Path
    /// The arc length from the start of the first kept piece's subpath to where the piece starts.
    public var startOffsetInSubpath: Double
}

extension Path {
    /// One drawn segment with what trimming needs to rebuild elements from it.
    private struct Piece {
        var curve: CubicSegment
        /// Lines (and closing lines) stay lines when cut.
        var isLine: Bool
        /// The segment drawn by `closeSubpath`.
        var isClose: Bool
        var subpath: Int
    }

    /// The drawn segments, numbered by subpath.
    private var pieces: [Piece] {
        var out: [Piece] = []
        var current = Point.zero, start = Point.zero
        var subpath = 0, subpathHasSegments = false
        for e in elements {
            switch e {
            case .moveTo(let p):
                if subpathHasSegments { subpath += 1; subpathHasSegments = false }
                current = p
                start = p
            case .lineTo(let p):
                out.append(Piece(curve: .line(current, p), isLine: true, isClose: false, subpath: subpath))
                current = p
                subpathHasSegments = true
            case let .quadCurveTo(c, p):
                out.append(Piece(curve: CubicSegment(p0: current, c1: current + (c - current) * (2.0 / 3),
                                                     c2: p + (c - p) * (2.0 / 3), p3: p),
                                 isLine: false, isClose: false, subpath: subpath))
                current = p
                subpathHasSegments = true
            case let .curveTo(c1, c2, p):
                out.append(Piece(curve: CubicSegment(p0: current, c1: c1, c2: c2, p3: p), isLine: false, isClose: false, subpath: subpath))
                current = p
                subpathHasSegments = true
            case .closeSubpath:
                out.append(Piece(curve: .line(current, start), isLine: true, isClose: true, subpath: subpath))
                current = start
                // A segment after a close starts a new subpath at the same point.
                subpath += 1
                subpathHasSegments = false
            }
        }
        return out
    }

    private static func arcLengths(_ pieces: [Piece]) -> ArcLengthTable {
        ArcLengthTable(segmentCount: pieces.count) { i, u in
            let d = pieces[i].curve.derivative(at: u)
            return (d.x * d.x + d.y * d.y).squareRoot()
        }
    }

    /// The total arc length of the drawn segments (lines, curves and closing lines).
    public var length: Double {
        let p = pieces
        return p.isEmpty ? 0 : Path.arcLengths(p).total
    }

    /// The part of the path from fraction `start` to fraction `end` of its total length, as
    /// `strokeStart` and `strokeEnd` select it. Both are clamped to [0, 1]; `start ≥ end` keeps
    /// nothing. The whole path (0…1) comes back as it was.
    public func trimmed(from start: Double, to end: Double) -> TrimmedPath {
        let s = start.isNaN ? 0 : Swift.min(Swift.max(start, 0), 1)
        let e = end.isNaN ? 1 : Swift.min(Swift.max(end, 0), 1)
        if s <= 0, e >= 1 { return TrimmedPath(path: self, startOffsetInSubpath: 0) }
        let pieces = self.pieces
        guard s < e, !pieces.isEmpty else { return TrimmedPath(path: Path(), startOffsetInSubpath: 0) }
        let table = Path.arcLengths(pieces)
        guard table.total > 0 else { return TrimmedPath(path: Path(), startOffsetInSubpath: 0) }
        let (i0, u0) = table.locate(fraction: s)
        let (i1, u1) = table.locate(fraction: e)

        // The length covered before the first kept point, within its subpath.
        let n = ArcLengthTable.resolution
        var firstOfSubpath = i0
        while firstOfSubpath > 0, pieces[firstOfSubpath - 1].subpath == pieces[i0].subpath { firstOfSubpath -= 1 }
        let offset = s * table.total - table.cumulative[firstOfSubpath * n]

        // Whether each subpath is kept whole (and so keeps its closing join).
        func keptWhole(_ subpath: Int) -> Bool {
            guard let first = pieces.firstIndex(where: { $0.subpath == subpath }),
                  let last = pieces.lastIndex(where: { $0.subpath == subpath }) else { return false }
            let startsInside = first > i0 || (first == i0 && u0 <= 0)
            let endsInside = last < i1 || (last == i1 && u1 >= 1)
            return startsInside && endsInside
        }

        var out = Path()
        var openSubpath = -1
        for i in i0...i1 {
            let piece = pieces[i]
            let a = i == i0 ? u0 : 0, b = i == i1 ? u1 : 1
            // A trim point exactly on a segment's end: nothing of that segment is kept.
            if i == i1, i != i0, b <= 0 { break }
            if i == i0, i != i1, a >= 1 { continue }
            let cut = piece.curve.portion(from: a, to: b)
            if piece.subpath != openSubpath {
                out.move(to: cut.p0)
                openSubpath = piece.subpath
            }
            if piece.isClose, a <= 0, b >= 1, keptWhole(piece.subpath) {
                out.closeSubpath()
            } else if piece.isLine {
                out.addLine(to: cut.p3)
            } else {
                out.addCurve(to: cut.p3, control1: cut.c1, control2: cut.c2)
            }
        }
        return TrimmedPath(path: out, startOffsetInSubpath: Swift.max(offset, 0))
    }
}

extension CubicSegment {
    /// The part of the curve between parameters `a` and `b` (de Casteljau's subdivision), the
    /// same curve reparameterised to [0, 1].
    func portion(from a: Double, to b: Double) -> CubicSegment {
        if a <= 0, b >= 1 { return self }
        // Cut at b first, then cut the left part at a / b.
        var left = self
        if b < 1 { left = split(at: b).0 }
        if a > 0 {
            let t = b > 0 ? a / b : 0
            left = left.split(at: Swift.min(t, 1)).1
        }
        return left
    }

    /// The two halves at parameter `t`.
    func split(at t: Double) -> (CubicSegment, CubicSegment) {
        func lerp(_ p: Point, _ q: Point) -> Point { p + (q - p) * t }
        let p01 = lerp(p0, c1), p12 = lerp(c1, c2), p23 = lerp(c2, p3)
        let p012 = lerp(p01, p12), p123 = lerp(p12, p23)
        let mid = lerp(p012, p123)
        return (CubicSegment(p0: p0, c1: p01, c2: p012, p3: mid), CubicSegment(p0: mid, c1: p123, c2: p23, p3: p3))
    }
}
