import Testing
import LaminaCore

@Suite("Animation key paths")
struct KeyPathTests {
    @Test("parses every key path of issue item 2", arguments: [
        ("position.x", PropertyKey.position, AnimationKeyPath.Component.x, PropertyValueType.number),
        ("position.y", .position, .y, .number),
        ("bounds.size", .bounds, .size, .size),
        ("bounds.size.width", .bounds, .sizeWidth, .number),
        ("bounds.origin.x", .bounds, .originX, .number),
        ("anchorPoint.x", .anchorPoint, .x, .number),
        ("transform.rotation", .transform, .rotationZ, .number),
        ("transform.rotation.x", .transform, .rotationX, .number),
        ("transform.rotation.y", .transform, .rotationY, .number),
        ("transform.rotation.z", .transform, .rotationZ, .number),
        ("transform.scale", .transform, .scale, .number),
        ("transform.scale.y", .transform, .scaleY, .number),
        ("transform.translation", .transform, .translation, .size),
        ("transform.translation.z", .transform, .translationZ, .number),
        ("shadowOffset.height", .shadowOffset, .height, .number),
        ("sublayerTransform.scale.x", .sublayerTransform, .scaleX, .number),
        ("opacity", .opacity, .whole, .number),
        ("hidden", .isHidden, .whole, .bool),
    ] as [(String, PropertyKey, AnimationKeyPath.Component, PropertyValueType)])
    func parses(text: String, key: PropertyKey, component: AnimationKeyPath.Component, type: PropertyValueType) throws {
        let path = try AnimationKeyPath.parse(text)
        #expect(path.property == key && path.component == component && path.valueType == type)
    }

    @Test func errorsNameTheKeyPathAndWhatIsValid() {
        #expect(throws: KeyPathError.empty) { try AnimationKeyPath.parse("") }
        #expect(throws: KeyPathError.notAnimatable(keyPath: "name", property: "name")) { try AnimationKeyPath.parse("name") }
        do {
            _ = try AnimationKeyPath.parse("position.z")
            Issue.record("position.z parsed")
        } catch {
            #expect(error == .unknownComponent(keyPath: "position.z", component: "z", valid: ["x", "y"]))
            #expect(error.description.contains("position.z") && error.description.contains("x, y"))
        }
        do {
            _ = try AnimationKeyPath.parse("opacity.x")
            Issue.record("opacity.x parsed")
        } catch {
            #expect(error == .unknownComponent(keyPath: "opacity.x", component: "x", valid: []))
        }
        do {
            _ = try AnimationKeyPath.parse("frame")
            Issue.record("frame parsed")
        } catch {
            #expect(error.description.contains("'frame'") && error.description.contains("position"))
        }
    }

    @Test func readsAndWritesFields() throws {
        var p = LayerProperties()
        p.bounds = Rect(1, 2, 30, 40)
        p.position = Point(5, 6)
        try AnimationKeyPath.parse("bounds.size.width").apply(.number(99), to: &p)
        try AnimationKeyPath.parse("bounds.origin").apply(.point(Point(7, 8)), to: &p)
        try AnimationKeyPath.parse("position.y").apply(.number(60), to: &p)
        try AnimationKeyPath.parse("shadowOffset.height").apply(.number(-9), to: &p)
        #expect(p.bounds == Rect(7, 8, 99, 40))
        #expect(p.position == Point(5, 60))
        #expect(p.shadowOffset == Size(0, -9))
        #expect(try AnimationKeyPath.parse("bounds.size").value(in: p) == .size(Size(99, 40)))
        #expect(try AnimationKeyPath.parse("anchorPoint.x").value(in: p) == .number(0.5))
    }

    @Test func writesAreClampedOrIgnoredLikeTheModel() throws {
        var p = LayerProperties()
        try AnimationKeyPath.parse("opacity").apply(.number(1.7), to: &p)
        #expect(p.opacity == 1)
        try AnimationKeyPath.parse("bounds.size.height").apply(.number(-4), to: &p)
        #expect(p.bounds.size.height == 0)
        try AnimationKeyPath.parse("position.x").apply(.number(.nan), to: &p)
        #expect(p.position.x == 0)
        try AnimationKeyPath.parse("position").apply(.number(3), to: &p)   // wrong type: ignored
        #expect(p.position == .zero)
    }

    @Test func transformFieldsReadTheDecomposition() throws {
        var p = LayerProperties()
        p.transform = Transform3D.scale(x: 2, y: 3).concatenating(.rotation(angle: 0.5)).concatenating(.translation(x: 7, y: 8, z: 9))
        expectNear(try AnimationKeyPath.parse("transform.rotation").value(in: p).asNumber!, 0.5, 1e-12)
        expectNear(try AnimationKeyPath.parse("transform.scale.x").value(in: p).asNumber!, 2, 1e-12)
        expectNear(try AnimationKeyPath.parse("transform.scale.y").value(in: p).asNumber!, 3, 1e-12)
        // CA: transform.scale is "the average of all three scale factors": (2 + 3 + 1)/3.
        expectNear(try AnimationKeyPath.parse("transform.scale").value(in: p).asNumber!, 2, 1e-12)
        #expect(try AnimationKeyPath.parse("transform.translation").value(in: p) == .size(Size(7, 8)))
        expectNear(try AnimationKeyPath.parse("transform.translation.z").value(in: p).asNumber!, 9, 1e-12)
    }

    @Test func transformFieldsWriteOneComponent() throws {
        var p = LayerProperties()
        p.transform = .translation(x: 5, y: 0)
        try AnimationKeyPath.parse("transform.scale").apply(.number(3), to: &p)
        expectNear(p.transform, Transform3D.scale(x: 3, y: 3, z: 3).concatenating(.translation(x: 5, y: 0)), 1e-12)
        try AnimationKeyPath.parse("transform.translation.x").apply(.number(-1), to: &p)
        expectNear(p.transform, Transform3D.scale(x: 3, y: 3, z: 3).concatenating(.translation(x: -1, y: 0)), 1e-12)
        // Euler angles compose x, then y, then z.
        var q = LayerProperties()
        try AnimationKeyPath.parse("transform.rotation.x").apply(.number(0.3), to: &q)
        try AnimationKeyPath.parse("transform.rotation.y").apply(.number(0.4), to: &q)
        try AnimationKeyPath.parse("transform.rotation.z").apply(.number(0.5), to: &q)
        let expected = Transform3D.rotation(angle: 0.3, x: 1, y: 0, z: 0)
            .concatenating(.rotation(angle: 0.4, x: 0, y: 1, z: 0))
            .concatenating(.rotation(angle: 0.5, x: 0, y: 0, z: 1))
        expectNear(q.transform, expected, 1e-12)
        expectNear(try AnimationKeyPath.parse("transform.rotation.y").value(in: q).asNumber!, 0.4, 1e-12)
    }

    @Test func scaleCanAnimateOutOfZero() throws {
        // A model transform with a zero scale has no decomposition; transform.scale still works.
        var p = LayerProperties()
        p.transform = .scale(x: 0, y: 0)
        let anim = BasicAnimation(keyPath: "transform.scale", from: .number(0), to: .number(1), duration: 1)
        let half = try presentation(.basic(anim), at: 0.5, model: p).transform
        expectNear(half.m11, 0.5, 1e-12)
        expectNear(half.m22, 0.5, 1e-12)
    }
}
