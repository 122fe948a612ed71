import Testing
@testable import LaminaCore

@Suite("Path trimming by arc length (strokeStart / strokeEnd)")
struct PathTrimmingTests {
    func close(_ a: Point, _ b: Point, _ eps: Double = 1e-6) -> Bool { abs(a.x - b.x) < eps && abs(a.y - b.y) < eps }

    /// The end point of the last drawn element.
    func lastPoint(_ p: Path) -> Point? {
        switch p.elements.last {
        case .lineTo(let q), .moveTo(let q): q
        case let .curveTo(_, _, q): q
        case let .quadCurveTo(_, q): q
        default: nil
        }
    }

    @Test func lengthsOfLinesAndCircles() {
        var l = Path()
        l.move(to: Point(0, 0)); l.addLine(to: Point(30, 40)); l.addLine(to: Point(30, 0))
        #expect(abs(l.length - 90) < 1e-9)
        #expect(abs(Path(rect: Rect(0, 0, 10, 20)).length - 60) < 1e-9, "the closing line counts")
        let circle = Path(ellipseIn: Rect(0, 0, 100, 100))
        // Four cubic quarter arcs are 0.027% longer than the circle.
        #expect(abs(circle.length - 100 * Double.pi) < 0.1)
        #expect(Path().length == 0)
    }

    @Test func wholeAndEmptyTrims() {
        let r = Path(rect: Rect(0, 0, 10, 10))
        #expect(r.trimmed(from: 0, to: 1).path == r)
        #expect(r.trimmed(from: -1, to: 2).path == r, "fractions are clamped")
        #expect(r.trimmed(from: 0.5, to: 0.5).path.elements.isEmpty)
        #expect(r.trimmed(from: 0.7, to: 0.2).path.elements.isEmpty, "start after end keeps nothing")
    }

    @Test func trimmingARectangleFollowsItsSides() {
        // 40 points round: each side is a quarter.
        let r = Path(rect: Rect(0, 0, 10, 10))
        let half = r.trimmed(from: 0, to: 0.5).path
        #expect(half.elements == [.moveTo(Point(0, 0)), .lineTo(Point(10, 0)), .lineTo(Point(10, 10))])
        let middle = r.trimmed(from: 0.125, to: 0.625)
        #expect(middle.path.elements == [.moveTo(Point(5, 0)), .lineTo(Point(10, 0)), .lineTo(Point(10, 10)), .lineTo(Point(5, 10))])
        #expect(abs(middle.startOffsetInSubpath - 5) < 1e-9)
        // Into the closing side: the close becomes an open line; no closeSubpath survives.
        let tail = r.trimmed(from: 0.8, to: 1).path
        #expect(tail.elements.count == 2)
        #expect(close(lastPoint(tail)!, Point(0, 0)))
        #expect(!tail.elements.contains(.closeSubpath))
        #expect(abs(tail.length - 8) < 1e-9)
    }

    @Test func trimmedCirclesKeepTheirShapeAndLength() {
        let circle = Path(ellipseIn: Rect(0, 0, 100, 100))
        let total = circle.length
        for end in [0.1, 0.25, 0.5, 0.9] {
            let t = circle.trimmed(from: 0, to: end).path
            #expect(abs(t.length - end * total) < 1e-3 * total, "length of the first \(end)")
            // Every point of the trimmed arc is still on the circle (radius 50 about (50, 50)).
            for case let .curveTo(_, _, p) in t.elements {
                #expect(abs(((p.x - 50) * (p.x - 50) + (p.y - 50) * (p.y - 50)).squareRoot() - 50) < 0.05)
            }
        }
        // Half of a circle starting at angle 0 (the +x point) going clockwise on screen ends at the −x point.
        let half = circle.trimmed(from: 0, to: 0.5).path
        #expect(close(lastPoint(half)!, Point(0, 50), 1e-3))
        let quarterToHalf = circle.trimmed(from: 0.25, to: 0.5)
        if case .moveTo(let p) = quarterToHalf.path.elements.first { #expect(close(p, Point(50, 100), 1e-3)) } else { Issue.record("no move") }
        #expect(abs(quarterToHalf.startOffsetInSubpath - total / 4) < 1e-6)
    }

    @Test func trimsAcrossSubpathsAndQuadratics() {
        var p = Path()
        p.move(to: Point(0, 0)); p.addLine(to: Point(10, 0))          // 10
        p.move(to: Point(0, 10)); p.addQuadCurve(to: Point(20, 10), control: Point(10, 10)) // a straight quad, 20
        #expect(abs(p.length - 30) < 1e-9)
        let t = p.trimmed(from: 0.2, to: 0.5)  // 6 … 15
        #expect(t.path.elements.count == 4)
        #expect(t.path.elements[0] == .moveTo(Point(6, 0)))
        #expect(t.path.elements[1] == .lineTo(Point(10, 0)))
        #expect(t.path.elements[2] == .moveTo(Point(0, 10)))
        #expect(close(lastPoint(t.path)!, Point(5, 10), 1e-6))
        #expect(abs(t.startOffsetInSubpath - 6) < 1e-9)
        // Starting in the second subpath: the offset is measured from that subpath's start.
        let u = p.trimmed(from: 0.5, to: 1)
        #expect(abs(u.startOffsetInSubpath - 5) < 1e-9)
        // A whole closed subpath keeps its close when the trim ends after it.
        var two = Path(rect: Rect(0, 0, 10, 10))
        two.move(to: Point(20, 0)); two.addLine(to: Point(60, 0))
        let kept = two.trimmed(from: 0, to: 0.75).path  // all of the square (40) and half the line (20 of 40)
        #expect(kept.elements.contains(.closeSubpath))
        #expect(close(lastPoint(kept)!, Point(40, 0), 1e-9))
    }
}
