#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaProtocol
import LaminaRaster
import LaminaCompositor
import LaminaTestSupport

// Benchmarks of CPU rasterisation (issue 6, shape and text layers): what redrawing costs when a
// shape's strokeEnd animates (a raster every frame) and what a text layer costs once, against a
// cache hit (what every other frame costs).

private func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Best of five rounds of `iterations` calls, in microseconds per call.
private func microseconds(iterations: Int, _ body: (Int) -> Int) -> (us: Double, checksum: Int) {
    var checksum = 0
    for i in 0..<min(iterations, 3) { checksum &+= body(i) }
    var best = Double.infinity
    for _ in 0..<5 {
        let start = now()
        for i in 0..<iterations { checksum &+= body(i) }
        best = min(best, (now() - start) / Double(iterations) * 1e6)
    }
    return (best, checksum)
}

/// `x` with `digits` decimals.
private func fixed(_ x: Double, _ digits: Int) -> String {
    var m = 1.0
    for _ in 0..<digits { m *= 10 }
    let v = (x * m).rounded() / m
    return digits == 0 ? String(Int(v)) : String(v)
}

func runRasterBenchmark() -> String {
    var lines = ["raster (CPU, cairo/pango; µs per layer per frame, best of 5):"]
    var circle = LayerProperties(kind: .shape)
    circle.bounds = Rect(x: 0, y: 0, width: 200, height: 200)
    circle.path = Path(ellipseIn: Rect(x: 10, y: 10, width: 180, height: 180))
    circle.fillColor = .clear
    circle.strokeColor = .green
    circle.lineWidth = 12
    circle.lineCap = .round
    for scale in [1.0, 2.0] {
        // strokeEnd animating: a new value, so a new raster, every frame.
        let r = microseconds(iterations: 200) { i in
            var p = circle
            p.strokeEnd = Double(i % 100 + 1) / 100
            return ShapeRasterizer.rasterize(ShapeStyle(p), scale: scale)?.bitmap.width ?? 0
        }
        lines.append("  strokeEnd animating, 200×200 circle stroke at scale \(Int(scale)): \(fixed(r.us, 0)) µs  [\(r.checksum)]")
    }
    var star = LayerProperties(kind: .shape)
    star.bounds = Rect(x: 0, y: 0, width: 200, height: 200)
    var path = Path()
    for i in 0..<5 {
        let a = -Double.pi / 2 + Double(i) * 4 * Double.pi / 5
        let q = Point(x: 100 + 95 * cos(a), y: 100 + 95 * sin(a))
        if i == 0 { path.move(to: q) } else { path.addLine(to: q) }
    }
    path.closeSubpath()
    star.path = path
    star.fillColor = .red
    let fill = microseconds(iterations: 200) { _ in ShapeRasterizer.rasterize(ShapeStyle(star), scale: 1)?.bitmap.width ?? 0 }
    lines.append("  200×200 star fill at scale 1: \(fixed(fill.us, 0)) µs  [\(fill.checksum)]")

    var text = LayerProperties(kind: .text)
    text.bounds = Rect(x: 0, y: 0, width: 400, height: 120)
    text.string = "Lamina is a Core Animation–style compositor for Linux: layers, transactions and animations."
    text.fontSize = 18
    text.isWrapped = true
    for scale in [1.0, 2.0] {
        let t = microseconds(iterations: 50) { _ in TextRasterizer.rasterize(TextStyle(text), scale: scale)?.bitmap.width ?? 0 }
        lines.append("  400×120 wrapped paragraph, 18 pt, at scale \(Int(scale)): \(fixed(t.us, 0)) µs  [\(t.checksum)]")
    }
    let cache = RasterCache()
    let key = RasterCache.Key(tree: 1, layer: 1)
    _ = cache.raster(for: key, text, scale: 1)
    let hit = microseconds(iterations: 100_000) { _ in cache.raster(for: key, text, scale: 1)?.image.bitmap.width ?? 0 }
    lines.append("  cache hit (text layer unchanged): \(fixed(hit.us, 2)) µs  [\(hit.checksum)]")
    do {
        lines.append(try frameCost(animating: false))
        lines.append(try frameCost(animating: true))
    } catch {
        lines.append("  frames: failed: \(error)")
    }
    return lines.joined(separator: "\n")
}

/// Whole frames at 1280×720 (render list, rasters, texture upload, draw, glFinish) with 10
/// stroked 200×200 circles and 10 text layers, the circles' strokeEnd changing every frame or not.
private func frameCost(animating: Bool) throws -> String {
    let backend = try HeadlessDisplay(width: 1280, height: 720)
    let rasters = ServerRasterizer()
    var display = ModelTree(width: 1280, height: 720)
    let client = ClientID(rawValue: 1)
    _ = try display.attach(client, hello: Hello(clientName: "raster-bench"))
    var ops: [Operation] = []
    for i in 0..<20 {
        let id = LayerID(rawValue: UInt32(i + 1))
        let position = Operation.set(id, .position, .point(Point(x: 120 + Double(i % 5) * 250, y: 120 + Double(i / 5) * 160)))
        if i < 10 {
            ops += [.create(id, kind: .shape), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 200, height: 200))), position,
                    .set(id, .path, .path(Path(ellipseIn: Rect(x: 10, y: 10, width: 180, height: 180)))),
                    .set(id, .fillColor, .color(.clear)), .set(id, .strokeColor, .color(.green)), .set(id, .lineWidth, .number(12))]
        } else {
            ops += [.create(id, kind: .text), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 220, height: 80))), position,
                    .set(id, .string, .string("Text layer \(i): drawn once, then cached")), .set(id, .fontSize, .number(18)),
                    .set(id, .isWrapped, .bool(true))]
        }
        ops.append(.insert(parent: .root, child: id, index: .max))
    }
    _ = try display.apply(ops, from: client, limits: ClientLimits())
    var times: [Double] = []
    for frame in 0..<120 {
        if animating {
            let end = Double(frame % 100 + 1) / 100
            _ = try display.apply((0..<10).map { .set(LayerID(rawValue: UInt32($0 + 1)), .strokeEnd, .number(end)) },
                                  from: client, limits: ClientLimits())
        }
        let start = now()
        try backend.present(display.drawList(rasters: rasters))
        rasters.endFrame()
        backend.context.finish()
        if frame >= 20 { times.append((now() - start) * 1000) }
    }
    times.sort()
    return "  frame 1280×720, 10 shapes + 10 text layers, strokeEnd \(animating ? "animating (10 rasters a frame)" : "still (cached)"): "
        + "median \(fixed(times[times.count / 2], 2)) ms, max \(fixed(times[times.count - 1], 2)) ms, "
        + "\(rasters.cache.rasterizations) rasters in 120 frames"

}
