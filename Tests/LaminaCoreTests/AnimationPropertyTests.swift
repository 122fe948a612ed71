import Testing
import LaminaCore

/// Invariants checked over seeded random inputs (SplitMix64; the seed is in each test).
@Suite("Animation properties (seeded random)")
struct AnimationPropertyTests {
    func randomKeyTimes(_ n: Int, _ rng: inout AnimationTestRNG) -> [Double] {
        var inner = (0..<(n - 2)).map { _ in rng.double(in: 0...1) }
        inner.sort()
        return [0] + inner + [1]
    }

    @Test func valuesAtKeyTimesEqualTheKeyframes() throws {
        var rng = AnimationTestRNG(seed: 1)
        for trial in 0..<150 {
            let n = Int.random(in: 2...8, using: &rng)
            let values = (0..<n).map { _ in rng.double(in: -100...100) }
            let keyTimes = randomKeyTimes(n, &rng)
            let mode: CalculationMode = [.linear, .cubic][trial % 2]
            let anim = KeyframeAnimation(keyPath: "zPosition", values: values.map(PropertyValue.number), keyTimes: keyTimes,
                                         calculationMode: mode,
                                         timing: MediaTiming(duration: 1, fillMode: .forwards), isRemovedOnCompletion: false)
            for (i, k) in keyTimes.enumerated() {
                // Where key times repeat, the later keyframe wins.
                if i + 1 < n, keyTimes[i + 1] == k { continue }
                expectNear(try presentation(.keyframe(anim), at: k).zPosition, values[i], 1e-9, "\(mode) trial \(trial) key \(i)")
            }
        }
    }

    @Test func pointKeyframesPassThroughTheirValuesInEveryMode() throws {
        var rng = AnimationTestRNG(seed: 2)
        for trial in 0..<100 {
            let n = Int.random(in: 2...6, using: &rng)
            let pts = (0..<n).map { _ in Point(rng.double(in: -50...50), rng.double(in: -50...50)) }
            let mode = CalculationMode.allCases[trial % CalculationMode.allCases.count]
            let anim = KeyframeAnimation(keyPath: "position", values: pts.map(PropertyValue.point), calculationMode: mode,
                                         timing: MediaTiming(duration: 1, fillMode: .forwards), isRemovedOnCompletion: false)
            expectNear(try presentation(.keyframe(anim), at: 0).position, pts[0], 1e-9, "\(mode) start")
            expectNear(try presentation(.keyframe(anim), at: 1).position, pts[n - 1], 1e-9, "\(mode) end")
            if mode == .linear || mode == .cubic || mode == .discrete {
                for (i, k) in anim.effectiveKeyTimes.prefix(n).enumerated() {
                    expectNear(try presentation(.keyframe(anim), at: k).position, pts[i], 1e-9, "\(mode) key \(i)")
                }
            }
        }
    }

    @Test func pacedSegmentsHaveEqualSpeed() throws {
        // Over a fine time grid, each step moves exactly speed·dt, except steps that cross a
        // keyframe where the direction turns (they move less); the total is the path length.
        var rng = AnimationTestRNG(seed: 3)
        for trial in 0..<60 {
            let n = Int.random(in: 2...7, using: &rng)
            let pts = (0..<n).map { _ in Point(rng.double(in: -100...100), rng.double(in: -100...100)) }
            let length = zip(pts, pts.dropFirst()).reduce(0.0) { $0 + (($1.1.x - $1.0.x) * ($1.1.x - $1.0.x) + ($1.1.y - $1.0.y) * ($1.1.y - $1.0.y)).squareRoot() }
            let anim = KeyframeAnimation(keyPath: "position", values: pts.map(PropertyValue.point), calculationMode: .paced,
                                         timing: MediaTiming(duration: 1, fillMode: .forwards), isRemovedOnCompletion: false)
            let steps = 500
            var previous = try presentation(.keyframe(anim), at: 0).position
            var full = 0
            for i in 1...steps {
                let p = try presentation(.keyframe(anim), at: Double(i) / Double(steps)).position
                let d = ((p.x - previous.x) * (p.x - previous.x) + (p.y - previous.y) * (p.y - previous.y)).squareRoot()
                #expect(d <= length / Double(steps) + 1e-9, "trial \(trial) step \(i)")
                if Swift.abs(d - length / Double(steps)) < 1e-9 { full += 1 }
                previous = p
            }
            #expect(full >= steps - (n - 2), "trial \(trial): \(full) of \(steps) steps at full speed")
        }
    }

    @Test func pacedNumbersReachEachValueAtItsShareOfTheDistance() throws {
        var rng = AnimationTestRNG(seed: 4)
        for trial in 0..<100 {
            let n = Int.random(in: 2...9, using: &rng)
            let values = (0..<n).map { _ in rng.double(in: -10...10) }
            var cumulative = [0.0]
            for i in 1..<n { cumulative.append(cumulative[i - 1] + Swift.abs(values[i] - values[i - 1])) }
            guard let total = cumulative.last, total > 1e-6 else { continue }
            let anim = KeyframeAnimation(keyPath: "zPosition", values: values.map(PropertyValue.number), calculationMode: .paced,
                                         timing: MediaTiming(duration: 1, fillMode: .forwards), isRemovedOnCompletion: false)
            for i in 0..<n {
                expectNear(try presentation(.keyframe(anim), at: cumulative[i] / total).zPosition, values[i], 1e-9, "trial \(trial) key \(i)")
            }
        }
    }

    @Test func transformDecompositionRoundTrips() {
        var rng = AnimationTestRNG(seed: 5)
        for trial in 0..<300 {
            var m = Transform3D.scale(x: rng.double(in: 0.2...3) * (trial % 7 == 0 ? -1 : 1), y: rng.double(in: 0.2...3),
                                      z: rng.double(in: 0.2...3))
            if trial % 3 == 0 {
                var skew = Transform3D.identity
                skew.m21 = rng.double(in: -1...1)
                m = m.concatenating(skew)
            }
            m = m.concatenating(.rotation(angle: rng.double(in: -7...7), x: rng.double(in: -1...1),
                                          y: rng.double(in: -1...1), z: rng.double(in: -1...1)))
            m = m.concatenating(.translation(x: rng.double(in: -100...100), y: rng.double(in: -100...100), z: rng.double(in: -10...10)))
            if trial % 4 == 0 { m = m.concatenating(.perspective(distance: rng.double(in: 200...2000))) }
            guard let d = DecomposedTransform(m) else { Issue.record("no decomposition for \(m)"); continue }
            // The decomposition is of the matrix normalised to m44 = 1 (the same projective map).
            let normalised = Transform3D(rowMajor: m.rowMajor.map { $0 / m.m44 })!
            expectNear(d.transform, normalised, 1e-9, "trial \(trial)")
            // Interpolating a transform with itself is that transform, at every t.
            expectNear(Interpolation.interpolate(m, m, rng.double(in: 0.01...0.99)), normalised, 1e-9)
        }
    }

    @Test func eulerAnglesRoundTrip() {
        var rng = AnimationTestRNG(seed: 6)
        for _ in 0..<300 {
            var d = DecomposedTransform()
            let (x, y, z) = (rng.double(in: -3...3), rng.double(in: -1.5...1.5), rng.double(in: -3...3))
            d.setEulerAngles(x: x, y: y, z: z)
            let e = d.eulerAngles
            expectNear(e.x, x, 1e-9); expectNear(e.y, y, 1e-9); expectNear(e.z, z, 1e-9)
        }
    }

    @Test func timeConversionsRoundTrip() {
        var rng = AnimationTestRNG(seed: 7)
        func timing() -> MediaTiming {
            MediaTiming(beginTime: rng.double(in: -5...5), speed: rng.double(in: 0.1...4) * (Bool.random(using: &rng) ? 1 : -1),
                        timeOffset: rng.double(in: -5...5))
        }
        for _ in 0..<300 {
            let shared = (0..<Int.random(in: 1...3, using: &rng)).map { _ in timing() }
            let a = shared + (0..<Int.random(in: 0...3, using: &rng)).map { _ in timing() }
            let b = shared + (0..<Int.random(in: 0...3, using: &rng)).map { _ in timing() }
            let t = rng.double(in: -100...100)
            let there = LayerTime.convert(t, from: a, to: b, sharedAncestors: shared.count)
            let back = LayerTime.convert(there, from: b, to: a, sharedAncestors: shared.count)
            expectNear(back, t, 1e-9 * Swift.max(1, Swift.abs(t)) * 1e3)
            // Via media time gives the same answer as via the common ancestor.
            let viaMedia = LayerTime.localTime(fromMedia: LayerTime.mediaTime(fromLocal: t, chain: a), chain: b)
            expectNear(viaMedia, there, 1e-6 * Swift.max(1, Swift.abs(there)))
        }
    }

    @Test func linearBasicAnimationsStayBetweenTheirEndpoints() throws {
        var rng = AnimationTestRNG(seed: 8)
        for _ in 0..<200 {
            let (a, b) = (rng.double(in: -1000...1000), rng.double(in: -1000...1000))
            let tf = TimingFunction(controlPoints: rng.double(in: 0...1), rng.double(in: 0...1), rng.double(in: 0...1), rng.double(in: 0...1))
            let anim = BasicAnimation(keyPath: "position.x", from: .number(a), to: .number(b), duration: 1, timingFunction: tf)
            let x = try presentation(.basic(anim), at: rng.double(in: 0...0.999)).position.x
            #expect(x >= Swift.min(a, b) - 1e-9 && x <= Swift.max(a, b) + 1e-9)
        }
    }
}
