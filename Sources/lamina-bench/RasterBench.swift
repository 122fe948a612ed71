#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaRaster

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
    return lines.joined(separator: "\n")
}
