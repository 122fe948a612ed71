import LaminaCore
import LaminaTestSupport
import LaminaPlatform
import LaminaProtocol
import LaminaCompositor

/// `lamina-bench hittest [N]`: what one touch costs laminad's router with N (10⁴) layers on
/// screen: 100 panels, each with N/100 sublayers in a grid, turned and scaled, one with a
/// perspective sublayerTransform; random points, hit-tested on the display tree as the router
/// does (presentation lookup included). Reports microseconds per hit test, for a point that
/// hits the front-most panel, a point over the back-most, and a point that misses everything
/// (the worst case: every layer is tested).
func runHitTestBenchmark(count n: Int) -> String {
    var limits = ClientLimits()
    limits.maxLayers = n + 200
    var tree = ModelTree(width: 1280, height: 720)
    let client = ClientID(rawValue: 1)
    _ = try? tree.attach(client, hello: Hello(clientName: "bench"))
    let panels = 100, perPanel = max(1, n / panels)
    var ops: [Operation] = []
    var next: UInt32 = 1
    for p in 0..<panels {
        let panel = LayerID(next); next += 1
        let (x, y) = (Double(p % 10) * 120 + 20, Double(p / 10) * 65 + 20)
        ops += [.create(panel), .set(panel, .bounds, .rect(Rect(x: 0, y: 0, width: 110, height: 60))),
                .set(panel, .position, .point(Point(x: x + 55, y: y + 30))),
                .set(panel, .transform, .transform(.rotation(angle: 0.05 * Double(p % 7)).scaledBy(x: 1.02, y: 0.98))),
                .insert(parent: .root, child: panel, index: .max)]
        if p == 0 {
            var m = Transform3D.identity
            m.m34 = -1.0 / 500
            ops.append(.set(panel, .sublayerTransform, .transform(m.rotatedBy(angle: 0.2, x: 0, y: 1, z: 0))))
        }
        let side = Int(Double(perPanel).squareRoot().rounded(.up))
        for c in 0..<perPanel {
            let id = LayerID(next); next += 1
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 100 / Double(side), height: 50 / Double(side)))),
                    .set(id, .position, .point(Point(x: 5 + (Double(c % side) + 0.5) * 100 / Double(side),
                                                     y: 5 + (Double(c / side) + 0.5) * 50 / Double(side)))),
                    .insert(parent: panel, child: id, index: .max)]
        }
    }
    do { _ = try tree.apply(ops, from: client, limits: limits) } catch { return "hittest: refused: \(error)" }
    let layers = tree.layerCount
    func measure(_ points: [Point]) -> (Double, Int) {
        var hits = 0
        let rounds = 200
        let start = monotonicSeconds()
        for _ in 0..<rounds {
            for p in points {
                if tree.hitTest(p, at: 0, animated: { _, _ in nil }) != nil { hits += 1 }
            }
        }
        return ((monotonicSeconds() - start) / Double(rounds * points.count) * 1e6, hits)
    }
    var rng = SplitMix(state: 0x417)
    func unit(_ r: inout SplitMix) -> Double { Double(r.next() >> 11) / Double(1 << 53) }
    let front = (0..<50).map { _ in Point(x: 1100 + unit(&rng) * 80, y: 620 + unit(&rng) * 40) }   // last panel: tested first
    let back = (0..<50).map { _ in Point(x: 30 + unit(&rng) * 80, y: 25 + unit(&rng) * 40) }      // first panel
    let miss = (0..<50).map { _ in Point(x: 1250 + unit(&rng) * 20, y: 700 + unit(&rng) * 15) }
    let (f, _) = measure(front), (b, _) = measure(back), (m, hits) = measure(miss)
    func us(_ v: Double) -> String { "\(Double(Int((v * 10).rounded())) / 10)" }
    return "hit test, \(layers) layers: front-most panel \(us(f)) µs, back-most panel \(us(b)) µs, a miss (every layer tested) \(us(m)) µs per touch\(hits > 0 ? " (misses hit \(hits)?)" : "")"
}
