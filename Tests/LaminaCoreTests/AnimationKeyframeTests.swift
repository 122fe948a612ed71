import Testing
import LaminaCore

@Suite("Keyframe animations")
struct AnimationKeyframeTests {
    /// Seed "Animating Layer Content", Listing 3-3: two arcs (a bounce), 5 s, linear mode.
    var bouncePath: Path {
        var p = Path()
        p.move(to: Point(74, 74))
        p.addCurve(to: Point(320, 74), control1: Point(74, 500), control2: Point(320, 500))
        p.addCurve(to: Point(566, 74), control1: Point(320, 500), control2: Point(566, 500))
        return p
    }

    // Each curve takes half the 5 s (two segments, even key times). Boundaries are the end
    // points; a midpoint is B(½) = (P0 + 3P1 + 3P2 + P3)/8 (hand derivation):
    // x = (74 + 222 + 960 + 320)/8 = 197, y = (74 + 1500 + 1500 + 74)/8 = 393.5;
    // x = (320 + 960 + 1698 + 566)/8 = 443 for the second arc.
    @Test("Listing 3-3", arguments: [
        (0.0, Point(74, 74)), (1.25, Point(197, 393.5)), (2.5, Point(320, 74)), (3.75, Point(443, 393.5)),
        (5.0, Point(566, 74)),
    ] as [(Double, Point)])
    func listing33(t: Double, expected: Point) throws {
        var anim = KeyframeAnimation(keyPath: "position", path: bouncePath)
        anim.duration = 5
        anim.fillMode = .forwards           // to see the end value at 5 s
        anim.isRemovedOnCompletion = false
        expectNear(try presentation(.keyframe(anim), at: t).position, expected, 1e-9, "at \(t)")
    }

    @Test func listing33KeyframeCount() {
        // semantics.md: each curve end point is a keyframe, the move-to is not (plus the start).
        #expect(KeyframeAnimation(keyPath: "position", path: bouncePath).keyframeCount == 3)
        #expect(KeyframeAnimation(keyPath: "position", path: bouncePath).effectiveKeyTimes == [0, 0.5, 1])
    }

    /// Seed Listing 3-4: a group of two paced keyframe animations over 5 s.
    var listing34: AnimationGroup {
        let width = KeyframeAnimation(keyPath: "borderWidth",
                                      values: [1, 10, 5, 30, 0.5, 15, 2, 50, 0].map(PropertyValue.number),
                                      calculationMode: .paced)
        let color = KeyframeAnimation(keyPath: "borderColor",
                                      values: [.color(.green), .color(.red), .color(.blue)], calculationMode: .paced)
        return AnimationGroup([.keyframe(color), .keyframe(width)], duration: 5)
    }

    // Paced borderWidth: the distances 9, 5, 25, 29.5, 14.5, 13, 48, 50 total 194, travelled at
    // 194/5 = 38.8 per second (hand derivation). At t the distance is 38.8·t:
    // t = 1 → 38.8, in 5→30 (from 14): 29.8; t = 2 → 77.6, in 0.5→15 (from 68.5): 9.6;
    // t = 2.5 → 97, in 2→50 (from 96): 3; t = 4 → 155.2, in 50→0 (from 144): 38.8.
    @Test("Listing 3-4 paced borderWidth", arguments: [
        (0.0, 1.0), (1.0, 29.8), (2.0, 9.6), (2.5, 3.0), (4.0, 38.8),
        (1.0051546391752577, 30.0), (2.4742268041237114, 2.0),   // keyframes land at their paced times: 39/194·5, 96/194·5
    ] as [(Double, Double)])
    func listing34Width(t: Double, width: Double) throws {
        expectNear(try presentation(.group(listing34), at: t).borderWidth, width, 1e-9, "at \(t)")
    }

    // Paced colours: green → red → blue are √2 apart each (RGBA Euclidean), so red is reached
    // at 2.5 s and the midpoints at 1.25 s and 3.75 s (hand derivation).
    @Test("Listing 3-4 paced colours", arguments: [
        (0.0, Color.green), (1.25, Color(red: 0.5, green: 0.5, blue: 0)), (2.5, Color.red),
        (3.75, Color(red: 0.5, green: 0, blue: 0.5)),
    ] as [(Double, Color)])
    func listing34Colors(t: Double, color: Color) throws {
        expectNear(try presentation(.group(listing34), at: t).borderColor, color, 1e-9, "at \(t)")
    }

    @Test func listing34ChildrenTakeTheGroupDuration() {
        // A child with duration 0 runs for the group's 5 s (Listing 3-4 sets only the group's).
        guard case .group(let g) = Animation.group(listing34).resolvingDefaults(addedAt: 0) else { return }
        #expect(g.animations.allSatisfy { $0.timing.duration == 5 })
    }

    // MARK: Discrete

    @Test func discreteWithOneMoreKeyTimeThanValues() throws {
        // semantics.md: discrete takes one more key time than values. Value i shows from
        // keyTimes[i] until keyTimes[i+1] (hand derivation, duration 10).
        let anim = KeyframeAnimation(keyPath: "zPosition", values: [1, 2, 3].map(PropertyValue.number),
                                     keyTimes: [0, 0.2, 0.7, 1], calculationMode: .discrete,
                                     timing: MediaTiming(duration: 10, fillMode: .forwards), isRemovedOnCompletion: false)
        for (t, z) in [(0.0, 1.0), (1.9, 1.0), (2.0, 2.0), (6.9, 2.0), (7.0, 3.0), (9.99, 3.0), (12.0, 3.0)] {
            #expect(try presentation(.keyframe(anim), at: t).zPosition == z, "at \(t)")
        }
    }

    @Test func discreteWithoutKeyTimesSpacesValuesEvenly() throws {
        // Each of n values shows for 1/n of the duration (hand derivation: thirds of 3 s).
        let anim = KeyframeAnimation(keyPath: "zPosition", values: [1, 2, 3].map(PropertyValue.number),
                                     calculationMode: .discrete, timing: MediaTiming(duration: 3))
        for (t, z) in [(0.99, 1.0), (1.0, 2.0), (1.99, 2.0), (2.0, 3.0), (2.99, 3.0)] {
            #expect(try presentation(.keyframe(anim), at: t).zPosition == z, "at \(t)")
        }
        // Invalid key times (too few) are ignored: the same even spacing.
        var invalid = anim
        invalid.keyTimes = [0, 0.9]
        #expect(invalid.effectiveKeyTimes == [0, 1.0 / 3, 2.0 / 3])
        #expect(try presentation(.keyframe(invalid), at: 1.5).zPosition == 2)
    }

    @Test func discreteIgnoresTimingFunctions() throws {
        var anim = KeyframeAnimation(keyPath: "zPosition", values: [1, 2].map(PropertyValue.number),
                                     timingFunctions: [.easeIn], calculationMode: .discrete, timing: MediaTiming(duration: 2))
        #expect(try presentation(.keyframe(anim), at: 1).zPosition == 2)
        anim.calculationMode = .linear
        expectNear(try presentation(.keyframe(anim), at: 1).zPosition, 1.315356813, 1e-9)   // 1 + easeIn(0.5)
    }

    // MARK: Linear key times and timing functions

    @Test func linearKeyTimesValidatedAndIgnoredWhenInvalid() throws {
        // semantics.md: linear needs first 0 and last 1. [0, 0.8, 1] is valid: the first segment
        // takes 80% (hand derivation: at 40% of 10 s, half of 0→10).
        var anim = KeyframeAnimation(keyPath: "zPosition", values: [0, 10, 20].map(PropertyValue.number),
                                     keyTimes: [0, 0.8, 1], timing: MediaTiming(duration: 10))
        expectNear(try presentation(.keyframe(anim), at: 4).zPosition, 5)
        expectNear(try presentation(.keyframe(anim), at: 9).zPosition, 15)
        // Invalid (last is not 1, decreasing, NaN, wrong count): even spacing, 4 s → 8.
        for bad: [Double] in [[0, 0.8, 0.9], [0, 0.6, 0.5, 1], [0, .nan, 1], [0, 1]] {
            anim.keyTimes = bad
            expectNear(try presentation(.keyframe(anim), at: 4).zPosition, 8, 1e-12, "keyTimes \(bad)")
        }
    }

    @Test func segmentTimingFunctionsApplyAfterTheAnimationLevelOne() throws {
        // CAKeyframeAnimation reference: "that function is applied first followed by the timing
        // function for the specific keyframe segment". Values 0, 10, 20 over 2 s.
        var anim = KeyframeAnimation(keyPath: "zPosition", values: [0, 10, 20].map(PropertyValue.number),
                                     timingFunctions: [.easeIn, .easeOut], timing: MediaTiming(duration: 2))
        // Hand derivation: 0.5 s → p 0.25 → segment 0 at u 0.5 → 10·easeIn(0.5) = 3.15356813;
        // 1.5 s → segment 1 at 0.5 → 10 + 10·easeOut(0.5) = 16.84643187.
        expectNear(try presentation(.keyframe(anim), at: 0.5).zPosition, 3.15356813, 1e-8)
        expectNear(try presentation(.keyframe(anim), at: 1.5).zPosition, 16.84643187, 1e-8)
        // With easeInEaseOut on the animation: p = eio(0.25) = 0.129161931, u = 0.258323862,
        // 10·easeIn(u) = 0.99147731 (bisection, Python).
        anim.timingFunction = .easeInEaseOut
        expectNear(try presentation(.keyframe(anim), at: 0.5).zPosition, 0.9914773098710795, 1e-8)
    }

    // MARK: Cubic

    @Test func cubicIsCatmullRomByDefault() throws {
        // Hand derivation: values 0, 10, 0, 10 at thirds; tangents (end points repeated):
        // m0 = 5, m1 = 0, m2 = 0, m3 = 5. Segment 0 at u = ½: 5·⅛ + 10·½ = 5.625.
        var anim = KeyframeAnimation(keyPath: "zPosition", values: [0, 10, 0, 10].map(PropertyValue.number),
                                     calculationMode: .cubic, timing: MediaTiming(duration: 3))
        expectNear(try presentation(.keyframe(anim), at: 0.5).zPosition, 5.625)
        expectNear(try presentation(.keyframe(anim), at: 1.5).zPosition, 5)
        expectNear(try presentation(.keyframe(anim), at: 1).zPosition, 10)
        // Tension 1 flattens every tangent: smoothstep, ½ of 10 at u = ½.
        anim.tensionValues = [1, 1, 1, 1]
        expectNear(try presentation(.keyframe(anim), at: 0.5).zPosition, 5)
        // Bias 1 on keyframe 1 makes both its tangents the incoming chord (10): the segment
        // before it at u = ½: 5·⅛ + 10·½ − 10·⅛ = 4.375 (h11 = −⅛); tension restored.
        anim.tensionValues = nil
        anim.biasValues = [0, 1]
        expectNear(try presentation(.keyframe(anim), at: 0.5).zPosition, 4.375)
    }

    @Test func cubicPacedMovesAtConstantSpeed() throws {
        // A Catmull-Rom curve through four points, travelled at constant speed: equal time steps
        // cover equal arc lengths (measured on a fine polyline).
        let pts = [Point(0, 0), Point(100, 0), Point(100, 100), Point(300, 120)]
        let anim = KeyframeAnimation(keyPath: "position", values: pts.map(PropertyValue.point),
                                     calculationMode: .cubicPaced, timing: MediaTiming(duration: 1))
        var samples: [Point] = []
        for i in 0...400 { samples.append(try presentation(.keyframe(anim), at: Double(i) / 400 * 0.9999999).position) }
        let steps = zip(samples, samples.dropFirst()).map { ((($1.x - $0.x) * ($1.x - $0.x) + ($1.y - $0.y) * ($1.y - $0.y))).squareRoot() }
        let mean = steps.reduce(0, +) / Double(steps.count)
        for s in steps { expectNear(s, mean, mean * 0.01) }
        expectNear(samples.first!, pts[0], 1e-9)
        expectNear(samples.last!, pts[3], 1e-3)
    }

    // MARK: Paths

    @Test func pathElementsLinesQuadsAndClose() throws {
        // A square by lines and a close (4 segments, 1 s each over 4 s), hand derivation.
        let square = Path([.moveTo(Point(0, 0)), .lineTo(Point(10, 0)), .lineTo(Point(10, 10)),
                           .lineTo(Point(0, 10)), .closeSubpath])
        let anim = KeyframeAnimation(keyPath: "position", path: square, timing: MediaTiming(duration: 4))
        expectNear(try presentation(.keyframe(anim), at: 0.5).position, Point(5, 0))
        expectNear(try presentation(.keyframe(anim), at: 2.5).position, Point(5, 10))
        expectNear(try presentation(.keyframe(anim), at: 3.5).position, Point(0, 5))
        // A quadratic with control (5, 10) from (0,0) to (10,0): B(½) = (5, 5).
        let quad = Path([.moveTo(.zero), .quadCurveTo(control: Point(5, 10), end: Point(10, 0))])
        let q = KeyframeAnimation(keyPath: "position", path: quad, timing: MediaTiming(duration: 1))
        expectNear(try presentation(.keyframe(q), at: 0.5).position, Point(5, 5), 1e-12)
    }

    @Test func pacedPathUsesArcLength() throws {
        // Two lines of lengths 30 and 10: paced, the corner is reached at ¾ of the time.
        let l = Path([.moveTo(.zero), .lineTo(Point(30, 0)), .lineTo(Point(30, 10))])
        let anim = KeyframeAnimation(keyPath: "position", path: l, calculationMode: .paced, timing: MediaTiming(duration: 4))
        expectNear(try presentation(.keyframe(anim), at: 3).position, Point(30, 0), 1e-9)
        expectNear(try presentation(.keyframe(anim), at: 1).position, Point(10, 0), 1e-9)
        expectNear(try presentation(.keyframe(anim), at: 3.5).position, Point(30, 5), 1e-9)
    }

    @Test func rotationModeTurnsToTheTangent() throws {
        // A 45° line: auto rotates by π/4, autoReverse by π/4 + π (issue item 5).
        let diagonal = Path([.moveTo(.zero), .lineTo(Point(10, 10))])
        var anim = KeyframeAnimation(keyPath: "position", path: diagonal, rotationMode: .auto,
                                     timing: MediaTiming(duration: 1))
        expectNear(try presentation(.keyframe(anim), at: 0.5).transform, .rotation(angle: .pi / 4), 1e-12)
        anim.rotationMode = .autoReverse
        expectNear(try presentation(.keyframe(anim), at: 0.5).transform, .rotation(angle: .pi / 4 + .pi), 1e-12)
        // On the bounce path the tangent at the start points straight down (+y): π/2.
        var bounce = KeyframeAnimation(keyPath: "position", path: bouncePath, rotationMode: .auto)
        bounce.duration = 5
        expectNear(try presentation(.keyframe(bounce), at: 0).transform, .rotation(angle: .pi / 2), 1e-12)
    }

    @Test func cumulativeAndAdditiveKeyframes() throws {
        // Cumulative adds the last keyframe per finished repeat; additive adds the model value.
        var anim = KeyframeAnimation(keyPath: "position.x", values: [0, 4, 10].map(PropertyValue.number),
                                     timing: MediaTiming(duration: 2, repeatCount: 2), isCumulative: true)
        expectNear(try presentation(.keyframe(anim), at: 3).position.x, 14)   // 4 + 10
        anim.isCumulative = false
        anim.isAdditive = true
        var model = LayerProperties()
        model.position.x = 100
        expectNear(try presentation(.keyframe(anim), at: 1, model: model).position.x, 104)
    }

    @Test func transformKeyframesRotateThroughHalfTurns() throws {
        // Identity → 180° → 360° keyframes: each segment rotates (decomposition), never shrinks.
        let anim = KeyframeAnimation(keyPath: "transform",
                                     values: [.transform(.identity), .transform(.rotation(angle: .pi)),
                                              .transform(.rotation(angle: 2 * .pi))],
                                     timing: MediaTiming(duration: 2))
        for i in 0..<20 {
            let m = try presentation(.keyframe(anim), at: Double(i) / 10).transform
            expectNear(m.m11 * m.m22 - m.m12 * m.m21, 1, 1e-9, "determinant at \(Double(i) / 10)")
        }
        expectNear(Swift.abs(try presentation(.keyframe(anim), at: 0.5).transform.m12), 1, 1e-12)
    }

    @Test func boolKeyframesSwitchDiscretely() throws {
        let anim = KeyframeAnimation(keyPath: "hidden", values: [.bool(false), .bool(true)], timing: MediaTiming(duration: 1))
        #expect(try presentation(.keyframe(anim), at: 0.4).isHidden == false)
        #expect(try presentation(.keyframe(anim), at: 0.6).isHidden == true)
    }
}
