import Glibc
import LaminaCore
import LaminaGLES
import LaminaHeadless
import LaminaServer

/// Measures how long the headless GLES backend takes to draw a busy frame: 100 visible
/// 200×200 quads at 1280×720, a third of them rotated, all at 0.8 opacity so every one blends.
/// Each sample is `present` plus `glFinish`, so it counts the GPU's (or llvmpipe's) work, not
/// just command submission. Returns a report for the terminal.
func runRenderBenchmark() throws -> String {
    let width = 1280, height = 720
    let warmUpFrames = 20, measuredFrames = 200
    let backend = try HeadlessBackend(width: width, height: height)
    let list = DrawList(width: width, height: height, background: .black, quads: benchmarkQuads(width: width, height: height))

    for _ in 0..<warmUpFrames {
        try backend.present(list)
        backend.context.finish()
    }
    var milliseconds: [Double] = []
    milliseconds.reserveCapacity(measuredFrames)
    for _ in 0..<measuredFrames {
        let start = monotonicSeconds()
        try backend.present(list)
        backend.context.finish()
        milliseconds.append((monotonicSeconds() - start) * 1000)
    }

    milliseconds.sort()
    let mean = milliseconds.reduce(0, +) / Double(milliseconds.count)
    let median = (milliseconds[(measuredFrames - 1) / 2] + milliseconds[measuredFrames / 2]) / 2
    let p99 = milliseconds[min(measuredFrames - 1, Int((Double(measuredFrames) * 0.99).rounded(.up)) - 1)]
    return """
        render: \(list.quads.count) quads of 200×200 at \(width)×\(height), 0.8 opacity, \(measuredFrames) frames \
        after \(warmUpFrames) warm-up (present + glFinish)
          renderer: \(backend.rendererDescription)
          mean \(format(mean)) ms, median \(format(median)) ms, p99 \(format(p99)) ms, \
        min \(format(milliseconds[0])) ms, max \(format(milliseconds[measuredFrames - 1])) ms
        """
}

/// 100 quads spread over the display by a fixed linear congruential sequence, so every run
/// draws the same frame; every third one is rotated about its centre.
private func benchmarkQuads(width: Int, height: Int) -> [DrawQuad] {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ range: Double) -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53) * range
    }
    let side = 200.0
    return (0..<100).map { index in
        var layer = LayerProperties()
        layer.bounds = Rect(0, 0, side, side)
        // Centres kept at least half a side inside the display so every quad is fully visible.
        layer.position = Point(side / 2 + next(Double(width) - side), side / 2 + next(Double(height) - side))
        if index % 3 == 0 { layer.transform = .rotation(angle: next(.pi / 2)) }
        let color = Color(red: 0.3 + next(0.7), green: 0.3 + next(0.7), blue: 0.3 + next(0.7))
        return DrawQuad(transform: layer.transformToSuperlayer, bounds: layer.bounds, color: color, opacity: 0.8)
    }
}

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Two decimal places, without Foundation's String(format:).
private func format(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
