import Testing
import LaminaCore

// Shared helpers for the animation-engine tests.

/// |a − b| ≤ tolerance, recorded as a test expectation with the values in the message.
func expectNear(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9, _ note: String = "",
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(Swift.abs(a - b) <= tolerance, "\(a) vs expected \(b) (±\(tolerance)) \(note)", sourceLocation: sourceLocation)
}

func expectNear(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9, _ note: String = "",
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(Swift.abs(a.x - b.x) <= tolerance && Swift.abs(a.y - b.y) <= tolerance,
            "\(a) vs expected \(b) (±\(tolerance)) \(note)", sourceLocation: sourceLocation)
}

func expectNear(_ a: Transform3D, _ b: Transform3D, _ tolerance: Double = 1e-9, _ note: String = "",
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let worst = zip(a.rowMajor, b.rowMajor).map { Swift.abs($0 - $1) }.max() ?? 0
    #expect(worst <= tolerance, "\(a) vs expected \(b) (worst \(worst)) \(note)", sourceLocation: sourceLocation)
}

func expectNear(_ a: Color, _ b: Color, _ tolerance: Double = 1e-9, _ note: String = "",
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let ok = Swift.abs(a.red - b.red) <= tolerance && Swift.abs(a.green - b.green) <= tolerance
        && Swift.abs(a.blue - b.blue) <= tolerance && Swift.abs(a.alpha - b.alpha) <= tolerance
    #expect(ok, "\(a.red),\(a.green),\(a.blue),\(a.alpha) vs expected \(b.red),\(b.green),\(b.blue),\(b.alpha) \(note)",
            sourceLocation: sourceLocation)
}

/// The presentation of `model` at layer time `t` with `animation` added at layer time `addedAt`
/// (a fresh list each call, so removal at the end shows as the model value).
func presentation(_ animation: Animation, at t: Double, model: LayerProperties = LayerProperties(),
             addedAt: Double = 0, previous: LayerProperties? = nil) throws -> LayerProperties {
    var list = LayerAnimations()
    var events: [AnimationEvent] = []
    try list.add(animation, forKey: "a", layerTime: addedAt, previous: previous, events: &events)
    return list.evaluate(model: model, time: t, events: &events).properties
}

/// A deterministic generator (SplitMix64) for property-based tests: the seed is in the test, so a
/// failure reproduces.
struct AnimationTestRNG: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func double(in range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }
}

extension PropertyValue {
    var asNumber: Double? { if case .number(let v) = self { v } else { nil } }
    var asPoint: Point? { if case .point(let v) = self { v } else { nil } }
}
