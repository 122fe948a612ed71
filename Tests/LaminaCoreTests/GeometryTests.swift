import Testing
@testable import LaminaCore

@Suite("Geometry and the layer model")
struct GeometryTests {
    // semantics.md, "Geometry": bounds 100×50 at position (200,300) → frame (150,275,100,50).
    @Test func frameIsDerivedFromPositionAnchorAndBounds() {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
        p.position = Point(x: 200, y: 300)
        #expect(p.frame == Rect(x: 150, y: 275, width: 100, height: 50))
        // With anchorPoint (1,1): (100,250,100,50), also from semantics.md.
        p.anchorPoint = Point(x: 1, y: 1)
        #expect(p.frame == Rect(x: 100, y: 250, width: 100, height: 50))
    }

    @Test func boundsOriginDoesNotMoveTheFrame() {
        var p = LayerProperties()
        p.bounds = Rect(x: 30, y: -20, width: 100, height: 50)
        p.position = Point(x: 200, y: 300)
        #expect(p.frame == Rect(x: 150, y: 275, width: 100, height: 50))
        // …but it scrolls the content: bounds point (30,-20) is the frame's top-left corner.
        let top = p.transformToSuperlayer.apply(to: Point(x: 30, y: -20))!
        #expect(top.x == 150 && top.y == 275)
    }

    @Test func settingFrameSetsBoundsSizeAndPosition() {
        var p = LayerProperties()
        p.anchorPoint = Point(x: 0, y: 0)
        p.frame = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(p.bounds.size == Size(width: 30, height: 40))
        #expect(p.position == Point(x: 10, y: 20))
    }

    // The transform applies about the anchor point: a 90° rotation of a 100×50 layer at (200,300)
    // keeps the centre fixed and maps the top-left corner (0,0) to (225, 250) (hand derivation:
    // corner is (-50,-25) from the anchor; rotating by +90° in y-down coordinates gives (25,-50)).
    @Test func transformRotatesAboutTheAnchorPoint() {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
        p.position = Point(x: 200, y: 300)
        p.transform = .rotation(angle: .pi / 2, x: 0, y: 0, z: 1)
        let m = p.transformToSuperlayer
        let centre = m.apply(to: Point(x: 50, y: 25))!
        #expect(abs(centre.x - 200) < 1e-9 && abs(centre.y - 300) < 1e-9)
        let corner = m.apply(to: Point(x: 0, y: 0))!
        #expect(abs(corner.x - 225) < 1e-9 && abs(corner.y - 250) < 1e-9)
    }

    @Test func anchorPointZMovesTheRotationAxis() {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        p.position = Point(x: 0, y: 0)
        p.anchorPointZ = 10
        // The anchor sits at z = 10 in the layer's space and is placed at zPosition 0, so the
        // layer's plane (z = 0) lies at z = −10; a half turn about y swings it to z = +10.
        let flat = p.transformToSuperlayer.apply(to: Point(x: 50, y: 50))!
        #expect(abs(flat.z + 10) < 1e-9)
        p.transform = .rotation(angle: .pi, x: 0, y: 1, z: 0)
        let c = p.transformToSuperlayer.apply(to: Point(x: 50, y: 50))!
        #expect(abs(c.z - 10) < 1e-9)
    }

    // CATransform3DConcat(a, b) applies a first: scale then translate moves by the unscaled amount.
    @Test func concatenationAppliesTheLeftOperandFirst() {
        let t = Transform3D.scale(x: 2, y: 2).concatenating(.translation(x: 10, y: 0))
        let p = t.apply(to: Point(x: 1, y: 1))!
        #expect(p.x == 12 && p.y == 2)
        let u = Transform3D.translation(x: 10, y: 0).concatenating(.scale(x: 2, y: 2))
        #expect(u.apply(to: Point(x: 1, y: 1))!.x == 22)
    }

    @Test func perspectiveDividesByW() {
        // m34 = -1/500: a point pushed to z = -500 is at w = 2 and appears at half its distance.
        let t = Transform3D.translation(x: 0, y: 0, z: -500).concatenating(.perspective(distance: 500))
        let p = t.apply(to: Point(x: 100, y: 40))!
        #expect(abs(p.x - 50) < 1e-12 && abs(p.y - 20) < 1e-12)
        // Behind the eye (w ≤ 0) there is nothing to show.
        let behind = Transform3D.translation(x: 0, y: 0, z: 600).concatenating(.perspective(distance: 500))
        #expect(behind.apply(to: Point(x: 0, y: 0)) == nil)
    }

    @Test func inverseUndoesTheTransform() {
        let t = Transform3D.rotation(angle: 0.3, x: 1, y: 2, z: 3).concatenating(.translation(x: 5, y: -7, z: 2)).concatenating(.perspective(distance: 800))
        let i = t.inverted()!
        let id = t.concatenating(i)
        for (a, b) in zip(id.rowMajor, Transform3D.identity.rowMajor) { #expect(abs(a - b) < 1e-12) }
        #expect(Transform3D.scale(x: 0, y: 1).inverted() == nil)
    }

    @Test func sublayerTransformAppliesAboutTheAnchor() {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 200, height: 100)
        p.sublayerTransform = .scale(x: 2, y: 2)
        // The anchor (100,50) stays put; (0,0) moves twice as far from it.
        let s = p.sublayerTransformAboutAnchor
        let a = s.apply(to: Point(x: 100, y: 50))!
        #expect(a.x == 100 && a.y == 50)
        let o = s.apply(to: Point(x: 0, y: 0))!
        #expect(o.x == -100 && o.y == -50)
    }

    @Test func colourParsing() {
        #expect(Color(hex: "#FF000080") == Color(red: 1, green: 0, blue: 0, alpha: 128.0 / 255))
        #expect(Color(hex: "00FF00") == Color(red: 0, green: 1, blue: 0, alpha: 1))
        #expect(Color(hex: "#fff") == .white)
        #expect(Color(hex: "#0000") == .clear)
        #expect(Color(hex: "#12345") == nil)
        #expect(Color(hex: "#GG0000") == nil)
        #expect(Color(hex: "") == nil)
        #expect(Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 1).hexString == "#336699FF")
        // Components are clamped, NaN becomes 0.
        #expect(Color(red: 2, green: -1, blue: .nan, alpha: 0.5) == Color(red: 1, green: 0, blue: 0, alpha: 0.5))
    }

    @Test func propertiesCheckTypesAndFiniteness() throws {
        var p = LayerProperties()
        #expect(throws: PropertyError.typeMismatch(key: .opacity, expected: .number, got: .bool)) {
            try p.set(.opacity, .bool(true))
        }
        #expect(throws: PropertyError.notFinite(key: .position)) {
            try p.set(.position, .point(Point(x: .nan, y: 0)))
        }
        #expect(throws: (any Error).self) { try p.set(.bounds, .rect(Rect(x: 0, y: 0, width: -1, height: 5))) }
        try p.set(.opacity, .number(3))
        #expect(p.opacity == 1)  // clamped as Core Animation does
        try p.set(.name, .string("x"))
        #expect(p.changedKeys(from: .defaults) == [.name])  // opacity 3 was clamped back to the default 1
        for key in PropertyKey.allCases {
            #expect(PropertyKey(name: key.name) == key)
            // Every key round-trips through get/set with its own value.
            var q = LayerProperties()
            try q.set(key, LayerProperties.defaults[key])
            #expect(q == LayerProperties.defaults)
        }
    }

    @Test func defaultsAreCoreAnimations() {
        let d = LayerProperties.defaults
        #expect(d.anchorPoint == Point(x: 0.5, y: 0.5))
        #expect(d.opacity == 1)
        #expect(d.borderColor == .black)
        #expect(d.borderWidth == 0)
        #expect(d.transform.isIdentity && d.sublayerTransform.isIdentity)
        #expect(!d.isHidden)
    }
}
