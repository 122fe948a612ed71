import Testing
import LaminaCore

@Suite("Basic and spring animations")
struct AnimationBasicTests {
    // Seed "Property-Based Animations", Listing 1: position (74,74) → (566,406) over 3 s with
    // the timing function (0.25, 0.1, 0.25, 1). Expected: 74 + 492·y and 74 + 332·y, with y the
    // curve's value at t/3 (hand derivation: bisection to 1e-15, Python).
    @Test("Listing 1", arguments: [
        (0.0, 74.0, 74.0),
        (0.3, 120.63978241229327, 105.47237349772635),
        (0.75, 274.98721094685476, 209.62551632999143),
        (1.5, 468.7824666917496, 340.3979246781725),
        (2.25, 546.5458173476952, 392.8723808118594),
    ])
    func listing1(t: Double, x: Double, y: Double) throws {
        let anim = BasicAnimation(keyPath: "position", from: .point(Point(74, 74)), to: .point(Point(566, 406)),
                                  duration: 3, timingFunction: TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1))
        let p = try presentation(.basic(anim), at: t, model: modelAt(566, 406))
        expectNear(p.position, Point(x, y), 1e-6, "at \(t) s")
    }

    @Test func listing1EndsOnTheModelValue() throws {
        // Seed, "Animating Layer Content": the animation is removed at the end and the layer
        // shows its model value.
        let anim = BasicAnimation(keyPath: "position", from: .point(Point(74, 74)), to: .point(Point(566, 406)), duration: 3)
        #expect(try presentation(.basic(anim), at: 3.0, model: modelAt(10, 10)).position == Point(10, 10))
    }

    func modelAt(_ x: Double, _ y: Double) -> LayerProperties {
        var m = LayerProperties()
        m.position = Point(x, y)
        return m
    }

    // semantics.md "CABasicAnimation value rules": the seven combinations. The model (current)
    // value is 100, the previous presentation 40; samples at 0, half way and just before the end.
    @Test("from/to/by rules", arguments: [
        ("from+to", 10.0, 20.0, nil, [10.0, 15.0, 20.0]),
        ("from+by", 10.0, nil, 5.0, [10.0, 12.5, 15.0]),
        ("by+to", nil, 20.0, 5.0, [15.0, 17.5, 20.0]),
        ("from", 10.0, nil, nil, [10.0, 55.0, 100.0]),          // from → current
        ("to", nil, 20.0, nil, [100.0, 60.0, 20.0]),            // current → to
        ("by", nil, nil, 5.0, [100.0, 102.5, 105.0]),           // current → current + by
        ("none", nil, nil, nil, [40.0, 70.0, 100.0]),           // previous → current
    ] as [(String, Double?, Double?, Double?, [Double])])
    func valueRules(name: String, from: Double?, to: Double?, by: Double?, expected: [Double]) throws {
        let anim = BasicAnimation(keyPath: "position.x", fromValue: from.map(PropertyValue.number),
                                  toValue: to.map(PropertyValue.number), byValue: by.map(PropertyValue.number),
                                  timing: MediaTiming(duration: 2, fillMode: .forwards), isRemovedOnCompletion: false)
        var previous = LayerProperties()
        previous.position.x = 40
        for (t, value) in zip([0.0, 1.0, 2.0], expected) {
            let p = try presentation(.basic(anim), at: t, model: modelAt(100, 0), previous: previous)
            expectNear(p.position.x, value, 1e-12, "\(name) at \(t)")
        }
    }

    @Test func additiveAddsToTheModelValue() throws {
        // semantics.md: "additive adds the animated value to the model value". Hand derivation:
        // model x 50, additive 0 → 10 half way = 55.
        let anim = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10),
                                  timing: MediaTiming(duration: 1), isAdditive: true)
        expectNear(try presentation(.basic(anim), at: 0.5, model: modelAt(50, 0)).position.x, 55)
    }

    @Test func additiveAnimationsStack() throws {
        // Order of addition: a non-additive one replaces, additive ones add on top.
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let base = BasicAnimation(keyPath: "position.x", from: .number(100), to: .number(200), duration: 1)
        var shake = BasicAnimation(keyPath: "position.x", from: .number(0), to: .number(10), duration: 1)
        shake.isAdditive = true
        try list.add(.basic(base), forKey: "move", layerTime: 0, events: &events)
        try list.add(.basic(shake), forKey: "shake", layerTime: 0, events: &events)
        try list.add(.basic(shake), forKey: nil, layerTime: 0, events: &events)
        // Hand derivation at 0.5: 150 + 5 + 5.
        expectNear(list.evaluate(model: modelAt(0, 0), time: 0.5, events: &events).properties.position.x, 160)
        // A later non-additive animation overrides everything before it.
        let pin = BasicAnimation(keyPath: "position.x", from: .number(7), to: .number(7), duration: 1)
        try list.add(.basic(pin), forKey: "pin", layerTime: 0, events: &events)
        expectNear(list.evaluate(model: modelAt(0, 0), time: 0.5, events: &events).properties.position.x, 7)
    }

    @Test func cumulativeAddsTheEndValueOfEachFinishedRepeat() throws {
        // semantics.md: "cumulative adds the end value of each finished repeat".
        // Hand derivation: 0 → 10 over 1 s, 3 repeats: t = 1.5 → 5 + 10, t = 2.5 → 5 + 20.
        let anim = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10),
                                  timing: MediaTiming(duration: 1, repeatCount: 3, fillMode: .forwards),
                                  isRemovedOnCompletion: false, isCumulative: true)
        expectNear(try presentation(.basic(anim), at: 0.5).position.x, 5)
        expectNear(try presentation(.basic(anim), at: 1.5).position.x, 15)
        expectNear(try presentation(.basic(anim), at: 2.5).position.x, 25)
        expectNear(try presentation(.basic(anim), at: 4).position.x, 30)   // held after 3 repeats
    }

    @Test func repeatCountTwoAndAHalfWithAutoreverse() throws {
        // Hand derivation (see TimingTests): 0 → 10, d = 1, values at t = 0.5, 1.5, 2.25, 3, 4.5, end.
        let anim = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10),
                                  timing: MediaTiming(duration: 1, repeatCount: 2.5, autoreverses: true, fillMode: .forwards),
                                  isRemovedOnCompletion: false)
        for (t, x) in [(0.5, 5.0), (1.5, 5.0), (2.25, 2.5), (3.0, 10.0), (4.5, 5.0), (6.0, 10.0)] {
            expectNear(try presentation(.basic(anim), at: t).position.x, x, 1e-12, "at \(t)")
        }
    }

    @Test("fill modes before, inside and after the span", arguments: [
        (FillMode.removed, [1.0, 0.5, 1.0]),
        (.forwards, [1.0, 0.5, 0.8]),
        (.backwards, [0.2, 0.5, 1.0]),
        (.both, [0.2, 0.5, 0.8]),
    ])
    func fillModes(mode: FillMode, expected: [Double]) throws {
        // semantics.md "fillMode". Opacity 0.2 → 0.8 from layer time 2 for 1 s, model 1,
        // not removed on completion; samples at 1, 2.5 and 4.
        let anim = BasicAnimation(keyPath: "opacity", fromValue: .number(0.2), toValue: .number(0.8),
                                  timing: MediaTiming(beginTime: 2, duration: 1, fillMode: mode), isRemovedOnCompletion: false)
        for (t, opacity) in zip([1.0, 2.5, 4.0], expected) {
            expectNear(try presentation(.basic(anim), at: t, model: LayerProperties()).opacity, opacity, 1e-12, "\(mode) at \(t)")
        }
    }

    @Test func forwardsFillDoesNothingWhenRemovedOnCompletion() throws {
        // semantics.md: forwards "only matters while isRemovedOnCompletion is false".
        let anim = BasicAnimation(keyPath: "opacity", fromValue: .number(0.2), toValue: .number(0.8),
                                  timing: MediaTiming(duration: 1, fillMode: .forwards))
        #expect(try presentation(.basic(anim), at: 2).opacity == 1)
    }

    @Test func rotationKeyPathFromZeroToFourPiTurnsTwice() throws {
        // Issue item 2: transform.rotation from 0 to 4π turns twice. Hand derivation: at 1/8 of
        // the way the angle is π/2; at 5/8 it is 5π/2 (a quarter turn into the second turn).
        let anim = BasicAnimation(keyPath: "transform.rotation", from: .number(0), to: .number(4 * .pi), duration: 8)
        expectNear(try presentation(.basic(anim), at: 1).transform, Transform3D.rotation(angle: .pi / 2), 1e-12)
        expectNear(try presentation(.basic(anim), at: 5).transform, Transform3D.rotation(angle: 5 * .pi / 2), 1e-12)
        // The angle passes through every quarter: sample the sine of the angle at eighths.
        for i in 0..<8 {
            let m = try presentation(.basic(anim), at: Double(i)).transform
            expectNear(_atan2(m.m12, m.m11), _atan2(_sin(Double(i) * .pi / 2), _cos(Double(i) * .pi / 2)), 1e-9)
        }
    }

    @Test func rotationKeyPathKeepsTheModelScale() throws {
        // Transform fields replace one component of the model's decomposition.
        var model = LayerProperties()
        model.transform = .scale(x: 2, y: 2)
        let anim = BasicAnimation(keyPath: "transform.rotation.z", from: .number(0), to: .number(.pi), duration: 2)
        let expected = Transform3D.scale(x: 2, y: 2).concatenating(.rotation(angle: .pi / 2))
        expectNear(try presentation(.basic(anim), at: 1, model: model).transform, expected, 1e-12)
    }

    @Test func valueFunctionRotateZTurnsTwice() throws {
        // CAValueFunction rotateZ on "transform": 0 → 4π over 4 s; at 1.5 s the angle is 1.5π.
        var anim = BasicAnimation(keyPath: "transform", from: .number(0), to: .number(4 * .pi), duration: 4)
        anim.valueFunction = .rotateZ
        expectNear(try presentation(.basic(anim), at: 1.5).transform, .rotation(angle: 1.5 * .pi), 1e-12)
        // Without the value function the same two (equal) matrices do not move at all.
        let matrices = BasicAnimation(keyPath: "transform", from: .transform(.identity),
                                      to: .transform(.rotation(angle: 4 * .pi)), duration: 4)
        expectNear(try presentation(.basic(matrices), at: 1.5).transform, .identity, 1e-9)
    }

    @Test func valueFunctionsBuildTheirTransforms() {
        #expect(ValueFunction.scale.transform(for: .number(2)) == .scale(x: 2, y: 2, z: 2))
        #expect(ValueFunction.scale.transform(for: .point(Point(2, 3))) == .scale(x: 2, y: 3))
        #expect(ValueFunction.translate.transform(for: .point(Point(4, 5))) == .translation(x: 4, y: 5))
        #expect(ValueFunction.translateZ.transform(for: .number(9)) == .translation(x: 0, y: 0, z: 9))
        #expect(ValueFunction.rotateX.transform(for: .point(.zero)) == nil)
    }

    @Test func additiveValueFunctionAppliesBeforeTheModelTransform() throws {
        var model = LayerProperties()
        model.transform = .translation(x: 10, y: 0)
        var anim = BasicAnimation(keyPath: "transform", from: .number(0), to: .number(.pi), duration: 1)
        anim.valueFunction = .rotateZ
        anim.isAdditive = true
        // Hand derivation: at 0.5 rotate by π/2, then the model translation.
        let expected = Transform3D.rotation(angle: .pi / 2).concatenating(.translation(x: 10, y: 0))
        expectNear(try presentation(.basic(anim), at: 0.5, model: model).transform, expected, 1e-12)
    }

    @Test func transformMatricesInterpolateByDecomposition() throws {
        // Issue item 1: identity → 180° rotation rotates (90° half way) rather than shrinking.
        let anim = BasicAnimation(keyPath: "transform", from: .transform(.identity),
                                  to: .transform(.rotation(angle: .pi)), duration: 1)
        let half = try presentation(.basic(anim), at: 0.5).transform
        expectNear(Swift.abs(half.m12), 1, 1e-12)       // |sin 90°|
        expectNear(half.m11, 0, 1e-12)
        expectNear(half.m11 * half.m22 - half.m12 * half.m21, 1, 1e-12)   // no shrinking
    }

    @Test func colorsInterpolateComponentWiseAndClamp() throws {
        let anim = BasicAnimation(keyPath: "backgroundColor", from: .color(.red), to: .color(.blue), duration: 1)
        expectNear(try presentation(.basic(anim), at: 0.5).backgroundColor, Color(red: 0.5, green: 0, blue: 0.5))
        // from + by pushes past 1: the end value is clamped to 1, so 0.8 → 1 (0.95 at 3/4).
        let bright = BasicAnimation(keyPath: "backgroundColor", from: .color(Color(red: 0.8, green: 0, blue: 0)),
                                    by: .color(Color(red: 1, green: 0, blue: 0)), duration: 1)
        expectNear(try presentation(.basic(bright), at: 0.75).backgroundColor.red, 0.95, 1e-12)
    }

    // MARK: Springs

    @Test func springProgressMatchesTheClosedForm() {
        // Hand derivation (Python, closed form; see DampedSpring): 1 − x(t) at t = 0.1, 0.25, 0.5.
        let cases: [(DampedSpring, [Double])] = [
            (DampedSpring(), [0.340299847, 1.02335958, 1.074590567]),                                  // under-damped
            (DampedSpring(damping: 20), [0.264241118, 0.712702505, 0.959572318]),                      // critical
            (DampedSpring(damping: 30), [0.213354401, 0.549661305, 0.82659535]),                       // over-damped
            (DampedSpring(mass: 2, stiffness: 300, damping: 5, initialVelocity: 3), [0.814333477, 1.738310099, 0.459888287]),
        ]
        for (spring, expected) in cases {
            for (t, y) in zip([0.1, 0.25, 0.5], expected) { expectNear(spring.progress(at: t), y, 1e-8, "\(spring) at \(t)") }
            #expect(spring.progress(at: 0) == 0)
        }
    }

    @Test func springSettlingDuration() {
        // Hand derivation: the last time |x(t)| > 0.001 on a 10 µs grid (Python), rounded up to
        // the millisecond: 1.27016 → 1.271, 0.92334 → 0.924, 1.84976 → 1.850, 5.44197 → 5.442.
        #expect(DampedSpring().settlingDuration == 1.271)
        #expect(DampedSpring(damping: 20).settlingDuration == 0.924)
        #expect(DampedSpring(damping: 30).settlingDuration == 1.85)
        #expect(DampedSpring(mass: 2, stiffness: 300, damping: 5, initialVelocity: 3).settlingDuration == 5.442)
        #expect(SpringAnimation(keyPath: "opacity").settlingDuration == 1.271)
    }

    @Test func springAnimationOvershootsAndSettles() throws {
        // Position 0 → 100 with the default spring: progress 1.02335958 at 0.25 s (see above).
        let anim = SpringAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(100),
                                   timing: MediaTiming(duration: 2))
        expectNear(try presentation(.spring(anim), at: 0.25).position.x, 102.335958, 1e-5)
        let settled = try presentation(.spring(anim), at: anim.settlingDuration).position.x
        #expect(Swift.abs(settled - 100) <= 0.1)
    }

    @Test func springOvershootBelowZeroIsClampedForSizes() throws {
        // bounds.size.width cannot go negative: 10 → 0 with a bouncy spring dips below 0.
        var model = LayerProperties()
        model.bounds = Rect(0, 0, 10, 10)
        let anim = SpringAnimation(keyPath: "bounds.size.width", fromValue: .number(10), toValue: .number(0),
                                   timing: MediaTiming(duration: 2), damping: 2)
        for t in stride(from: 0.0, to: 2, by: 0.01) {
            #expect(try presentation(.spring(anim), at: t, model: model).bounds.size.width >= 0)
        }
    }
}
