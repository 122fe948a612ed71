import Testing
@testable import LaminaCore

@Suite("Appearance properties: kinds, lists, paths, names")
struct AppearancePropertyTests {
    @Test func namedValuesAreCheckedAgainstTheKeysNames() throws {
        var p = LayerProperties(kind: .shape)
        try p.set(.lineCap, .string("round"))
        #expect(p.lineCap == .round)
        try p.set(.fillRule, .string("even-odd"))
        #expect(p.fillRule == .evenOdd)
        #expect(throws: PropertyError.outOfRange(key: .contentsGravity,
            reason: "'middle' is not one of resize, resizeAspect, resizeAspectFill, center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight")) {
            try p.set(.contentsGravity, .string("middle"))
        }
        #expect(p.contentsGravity == .resize)
        // Every key with names accepts each of them, and its default is the first.
        for key in PropertyKey.allCases {
            guard let names = key.allowedNames else { continue }
            #expect(LayerProperties()[key] == .string(names[0]), "default of \(key)")
            for n in names { try p.set(key, .string(n)); #expect(p[key] == .string(n)) }
        }
    }

    @Test func listsAndCountsHaveLimits() throws {
        var p = LayerProperties(kind: .gradient)
        try p.set(.colors, .colors([.red, .blue]))
        #expect(p.colors == [.red, .blue])
        #expect(throws: PropertyError.self) { try p.set(.locations, .numbers(Array(repeating: 0.5, count: 1025))) }
        #expect(throws: PropertyError.self) { try p.set(.lineDashPattern, .numbers([4, -1])) }
        #expect(throws: PropertyError.notFinite(key: .locations)) { try p.set(.locations, .numbers([0, .nan])) }
        #expect(throws: PropertyError.self) { try p.set(.instanceCount, .number(2.5)) }
        #expect(throws: PropertyError.self) { try p.set(.instanceCount, .number(10_001)) }
        try p.set(.instanceCount, .number(12))
        #expect(p.instanceCount == 12)
        #expect(throws: PropertyError.self) { try p.set(.contentsScale, .number(0)) }
        try p.set(.strokeEnd, .number(1.5))
        #expect(p.strokeEnd == 1)
    }

    @Test func everyKeyRoundTripsThroughItsSubscript() throws {
        // store(key, p[key]) must keep every default, so the subscript and the store agree.
        for kind in LayerKind.allCases {
            var p = LayerProperties(kind: kind)
            for key in PropertyKey.allCases {
                let stored = p.store(key, p[key])
                #expect(stored, "\(key) stores its own value")
            }
            #expect(p == LayerProperties(kind: kind))
        }
    }

    @Test func colourListsAndPathsInterpolateWhenTheyMatch() {
        let a = PropertyValue.colors([.black, .white]), b = PropertyValue.colors([.white, .black])
        #expect(Interpolation.interpolate(a, b, 0.25) == .colors([Color(red: 0.25, green: 0.25, blue: 0.25, alpha: 1),
                                                                   Color(red: 0.75, green: 0.75, blue: 0.75, alpha: 1)]))
        // Lists of different lengths cannot be blended: they switch halfway.
        #expect(Interpolation.interpolate(a, .colors([.red]), 0.4) == a)
        #expect(Interpolation.interpolate(a, .colors([.red]), 0.6) == .colors([.red]))

        let p = Path(rect: Rect(x: 0, y: 0, width: 10, height: 10))
        let q = Path(rect: Rect(x: 10, y: 20, width: 30, height: 10))
        guard case .path(let mid) = Interpolation.interpolate(.path(p), .path(q), 0.5) else { Issue.record("not a path"); return }
        #expect(mid == Path(rect: Rect(x: 5, y: 10, width: 20, height: 10)))
        let circle = Path(ellipseIn: Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(Interpolation.interpolate(.path(p), .path(circle), 0.49) == .path(p))
    }

    @Test func pathBuildersMatchCoreGraphics() {
        let r = Path(roundedRect: Rect(x: 0, y: 0, width: 100, height: 40), cornerRadius: 50)
        // The radius is clamped to half the shorter side.
        #expect(r.controlPointBounds == Rect(x: 0, y: 0, width: 100, height: 40))
        #expect(r.elements.first == .moveTo(Point(x: 20, y: 0)))
        var arc = Path()
        arc.addArc(center: Point(x: 0, y: 0), radius: 10, startAngle: 0, endAngle: .pi, clockwise: true)
        #expect(arc.elements.count == 3)  // a move and two quarter arcs
        if case .curveTo(_, _, let end)? = arc.elements.last {
            #expect(abs(end.x + 10) < 1e-12 && abs(end.y) < 1e-12)
        } else { Issue.record("expected a curve") }
        if case .curveTo(_, _, let mid) = arc.elements[1] {
            #expect(abs(mid.x) < 1e-12 && abs(mid.y - 10) < 1e-12, "clockwise on screen passes through +y (down)")
        }
        #expect(Path(rect: Rect(x: 1, y: 2, width: 3, height: 4)).description == "M 1 2 L 4 2 L 4 6 L 1 6 Z")
    }
}
