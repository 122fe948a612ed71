#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LaminaCore

// Benchmarks of the animation engine (issue 3): the per-frame cost of evaluating animations.
// Each case evaluates a layer's `LayerAnimations` at a time that advances every frame, and folds
// every result into a checksum that is printed, so the optimiser cannot drop the work.

/// Seconds of CLOCK_MONOTONIC.
private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// A value the optimiser must assume is used.
@inline(never) private func consume(_ x: Double) -> Double { x }

/// Runs `body` for at least `minimumSeconds` (after a warm-up) and returns nanoseconds per call
/// of the best of five rounds.
private func measure(iterations: Int, rounds: Int = 5, _ body: (Int) -> Double) -> (ns: Double, checksum: Double) {
    var checksum = 0.0
    for i in 0..<Swift.min(iterations, 1000) { checksum += body(i) }   // warm-up
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = monotonicSeconds()
        for i in 0..<iterations { checksum += body(i) }
        let elapsed = monotonicSeconds() - start
        best = Swift.min(best, elapsed / Double(iterations) * 1e9)
    }
    return (best, consume(checksum))
}

/// A layer with `animations` attached at time 0, repeating forever so they stay active.
private func layer(with animations: [Animation]) -> LayerAnimations {
    var list = LayerAnimations()
    var events: [AnimationEvent] = []
    for (i, a) in animations.enumerated() {
        var a = a
        var timing = a.timing
        timing.repeatCount = .infinity
        a.timing = timing
        do {
            try list.add(a, forKey: "a\(i)", layerTime: 0, events: &events)
        } catch {
            print("benchmark animation refused: \(error)")
        }
    }
    return list
}

private func format(_ ns: Double) -> String {
    let rounded = (ns * 10).rounded() / 10
    return "\(rounded) ns"
}

/// Measures the animation engine and returns a human-readable report.
func runAnimationBenchmark() -> String {
    var lines: [String] = ["Animation engine (per-frame evaluation; best of 5 rounds)"]
    var model = LayerProperties()
    model.bounds = Rect(0, 0, 100, 100)
    model.position = Point(50, 50)
    var checksum = 0.0

    // The cost of a frame with nothing attached: copying the model into the presentation.
    do {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        events.reserveCapacity(16)
        let r = measure(iterations: 2_000_000) { i in
            list.evaluate(model: model, time: Double(i) * 1e-4, events: &events).properties.position.x
        }
        checksum += r.checksum
        lines.append("  layer with no animations:            \(format(r.ns))")
    }

    let points: [PropertyValue] = (0..<10).map { (i: Int) -> PropertyValue in
        let x = Double(i * 37 % 100), y = Double(i * i % 50)
        return PropertyValue.point(Point(x, y))
    }
    let cases: [(String, Animation)] = [
        ("basic (position, ease-in-out)",
         .basic(BasicAnimation(keyPath: "position", from: .point(Point(0, 0)), to: .point(Point(100, 40)),
                               duration: 2, timingFunction: .easeInEaseOut))),
        ("basic (transform matrices)",
         .basic(BasicAnimation(keyPath: "transform", from: .transform(.identity),
                               to: .transform(Transform3D.rotation(angle: 2).scaledBy(x: 2, y: 2)), duration: 2))),
        ("basic (transform.rotation.z)",
         .basic(BasicAnimation(keyPath: "transform.rotation.z", from: .number(0), to: .number(6.28), duration: 2))),
        ("keyframe, 10 points, linear",
         .keyframe(KeyframeAnimation(keyPath: "position", values: points, timing: MediaTiming(duration: 2)))),
        ("keyframe, 10 points, paced",
         .keyframe(KeyframeAnimation(keyPath: "position", values: points, calculationMode: .paced,
                                     timing: MediaTiming(duration: 2)))),
        ("keyframe, 10 points, cubic",
         .keyframe(KeyframeAnimation(keyPath: "position", values: points, calculationMode: .cubic,
                                     timing: MediaTiming(duration: 2)))),
        ("keyframe, 10 points, cubicPaced",
         .keyframe(KeyframeAnimation(keyPath: "position", values: points, calculationMode: .cubicPaced,
                                     timing: MediaTiming(duration: 2)))),
        ("spring (position.x)",
         .spring(SpringAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(100),
                                 timing: MediaTiming(duration: 1.3)))),
    ]
    for (name, animation) in cases {
        var list = layer(with: [animation])
        var events: [AnimationEvent] = []
        events.reserveCapacity(16)
        let r = measure(iterations: 1_000_000) { i in
            let p = list.evaluate(model: model, time: Double(i) * 1.7e-4, events: &events).properties
            events.removeAll(keepingCapacity: true)
            return p.position.x + p.transform.m12
        }
        checksum += r.checksum
        lines.append("  one \(name):".padding(to: 40) + format(r.ns))
    }

    // 10,000 layers, each with two animations (a move and a fade), evaluated once per frame.
    do {
        let move = Animation.basic(BasicAnimation(keyPath: "position", from: .point(Point(0, 0)), to: .point(Point(300, 200)),
                                                  duration: 1.5, timingFunction: .default))
        let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .number(0), to: .number(1), duration: 0.8))
        var layers = (0..<10_000).map { _ in layer(with: [move, fade]) }
        var models = (0..<10_000).map { i -> LayerProperties in
            var m = model
            m.position = Point(Double(i % 100), Double(i / 100))
            return m
        }
        // The server keeps one presentation per layer and evaluates into it.
        var presentations = models.map { PresentationState(properties: $0) }
        var events: [AnimationEvent] = []
        events.reserveCapacity(64)
        var frame = 0
        let r = measure(iterations: 60) { _ in
            frame += 1
            let t = Double(frame) / 60
            var sum = 0.0
            for i in layers.indices {
                layers[i].evaluate(model: models[i], time: t, into: &presentations[i], events: &events)
                sum += presentations[i].properties.position.x + presentations[i].properties.opacity
            }
            events.removeAll(keepingCapacity: true)
            return sum
        }
        models[0].opacity = r.checksum   // keep `models` mutable and used
        checksum += models[0].opacity
        let perLayer = r.ns / 10_000
        lines.append("  10,000 layers × 2 animations:        \((r.ns / 1e4).rounded() / 100) ms per frame, "
                     + "\(format(perLayer)) per layer (target ≤ 1000 ns)")
    }
    lines.append("  (checksum \(checksum))")
    return lines.joined(separator: "\n")
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
