import Glibc
import LaminaCore
import LaminaProtocol
import LaminaRaster
import LaminaCompositor
import LaminaTestSupport
import Testing

/// A pentagram: one self-crossing subpath whose centre is wound twice.
private func star(center c: Point, radius r: Double) -> Path {
    var p = Path()
    for i in 0..<5 {
        let a = -Double.pi / 2 + Double(i) * 4 * Double.pi / 5
        let q = Point(x: c.x + r * cos(a), y: c.y + r * sin(a))
        if i == 0 { p.move(to: q) } else { p.addLine(to: q) }
    }
    p.closeSubpath()
    return p
}

/// A shape layer at `frame` with a `size`-point bounds origin at 0.
private func shape(_ frame: Rect, _ configure: (inout LayerProperties) -> Void) -> SceneLayer {
    var layer = SceneLayer(frame: frame)
    layer.properties.kind = .shape
    configure(&layer.properties)
    return layer
}

/// A text layer in DejaVu Sans 16 pt, white.
private func text(_ frame: Rect, _ string: String, _ configure: (inout LayerProperties) -> Void = { _ in }) -> SceneLayer {
    var layer = SceneLayer(frame: frame)
    layer.properties.kind = .text
    layer.properties.string = string
    layer.properties.font = "DejaVu Sans"
    layer.properties.fontSize = 16
    configure(&layer.properties)
    return layer
}

extension Bitmap {
    /// The mean x of the red channel above 60 over a box: the glyphs' centroid over a dark grey.
    func centroidX(x: Range<Int>, y: Range<Int>) -> Double {
        var sum = 0.0, weight = 0.0
        for row in y { for col in x { let v = Double(max(0, Int(pixel(x: col, y: row).r) - 60)); sum += v * Double(col); weight += v } }
        return weight > 0 ? sum / weight : -1
    }

    /// The glyphs' coverage in a box over a background of red level 40 (in pixels).
    func glyphInk(x: Range<Int>, y: Range<Int>) -> Double {
        var sum = 0
        for row in y { for col in x { sum += max(0, Int(pixel(x: col, y: row).r) - 40) } }
        return Double(sum) / 215
    }

    /// How sharp the edges in a box are: the mean squared difference between horizontal
    /// neighbours in the red channel, per unit of ink. Blurring spreads each step over more
    /// pixels and lowers it.
    func edgeEnergy(x: Range<Int>, y: Range<Int>) -> Double {
        var energy = 0.0
        for row in y {
            for col in x.dropLast() {
                let d = Double(pixel(x: col + 1, y: row).r) - Double(pixel(x: col, y: row).r)
                energy += d * d
            }
        }
        return energy / max(ink(x: x, y: y), 1) / 255
    }
}

/// Shape layers (`CAShapeLayer`) and text layers (`CATextLayer`) rasterised on the CPU by
/// LaminaRaster and drawn through the contents pipeline, as laminad draws them.
@Suite("Shape and text layers")
struct ShapeTextTests {
    @Test("fill rules: non-zero fills the star's centre, even-odd leaves it empty")
    func fillRules() throws {
        let layers = [FillRule.nonZero, .evenOdd].enumerated().map { i, rule in
            shape(Rect(10 + Double(i) * 110, 10, 100, 100)) {
                $0.path = star(center: Point(50, 52), radius: 46)
                $0.fillColor = rgb(255, 200, 0)
                $0.fillRule = rule
            }
        }
        let image = try render(layers, width: 230, height: 120)
        #expect(Pixel(image, 60, 62) == Pixel(255, 200, 0), "non-zero: centre filled")
        #expect(Pixel(image, 170, 62) == Pixel(0, 0, 0), "even-odd: centre empty")
        #expect(Pixel(image, 60, 22) == Pixel(255, 200, 0) && Pixel(image, 170, 22) == Pixel(255, 200, 0), "top point")
        // Antialiased edges: grey levels across the top point's slanted sides.
        let row = (45..<75).map { Pixel(image, $0, 30).r }
        #expect(row.filter { $0 > 20 && $0 < 235 }.count >= 2, "no antialiased pixels across the top point: \(row)")
        expectReference(image, "shape-fill-rules")
    }

    @Test("stroke caps and joins, and a miter limit that bevels a sharp corner")
    func capsAndJoins() throws {
        var layers: [SceneLayer] = []
        for (row, cap) in LineCap.allCases.enumerated() {
            for (column, join) in LineJoin.allCases.enumerated() {
                layers.append(shape(Rect(20 + Double(column) * 100, 20 + Double(row) * 90, 80, 70)) {
                    var v = Path()
                    v.move(to: Point(0, 60)); v.addLine(to: Point(30, 10)); v.addLine(to: Point(60, 60))
                    $0.path = v
                    $0.fillColor = .clear
                    $0.strokeColor = .white
                    $0.lineWidth = 12
                    $0.lineCap = cap
                    $0.lineJoin = join
                })
            }
        }
        // A sharp corner (about 11°) with the default miter limit 10 is beveled, with limit 20 mitered.
        for (i, limit) in [10.0, 20.0].enumerated() {
            layers.append(shape(Rect(320 + Double(i) * 50, 20, 40, 250)) {
                var v = Path()
                v.move(to: Point(5, 240)); v.addLine(to: Point(20, 90)); v.addLine(to: Point(35, 240))
                $0.path = v
                $0.fillColor = .clear
                $0.strokeColor = rgb(0, 200, 255)
                $0.lineWidth = 6
                $0.miterLimit = limit
            })
        }
        let image = try render(layers, width: 430, height: 290)
        // The start point (0, 60) is at (20, 80 + 90·row) on screen and the line leaves it
        // towards the apex. Just beyond the end (3.8 along the line's extension), round and square
        // caps cover and butt does not; at the square cap's corner (5.7 along, 5.1 across) only square.
        for row in 0..<3 {
            let beyond = Pixel(image, 18, 83 + row * 90).r, corner = Pixel(image, 21, 87 + row * 90).r
            #expect(row == 0 ? beyond < 40 : beyond > 215, "cap \(LineCap.allCases[row]): beyond the end \(beyond)")
            #expect(row == 2 ? corner > 128 : corner < 60, "cap \(LineCap.allCases[row]): square corner \(corner)")
        }
        // Above the apex (30, 10): miter reaches highest, round less, bevel least.
        func apexInk(_ column: Int) -> Double { image.ink(x: 20 + column * 100 + 20 ..< 20 + column * 100 + 41, y: 20 ..< 30) }
        #expect(apexInk(0) > apexInk(1) && apexInk(1) > apexInk(2), "miter \(apexInk(0)), round \(apexInk(1)), bevel \(apexInk(2))")
        // The miter of the sharp corner reaches ~31 points above the apex only with limit 20.
        let tip10 = image.ink(x: 320 ..< 360, y: 20 ..< 100, channel: 2), tip20 = image.ink(x: 370 ..< 410, y: 20 ..< 100, channel: 2)
        #expect(tip10 < 5 && tip20 > 20, "limit 10: \(tip10), limit 20: \(tip20)")
        expectReference(image, "shape-caps-joins")
    }

    @Test("dashes follow lineDashPattern and lineDashPhase")
    func dashes() throws {
        var layers: [SceneLayer] = []
        for (i, phase) in [0.0, 5.0, 10.0].enumerated() {
            layers.append(shape(Rect(10, 10 + Double(i) * 20, 200, 10)) {
                var line = Path()
                line.move(to: Point(0, 5)); line.addLine(to: Point(200, 5))
                $0.path = line
                $0.strokeColor = .white
                $0.lineWidth = 6
                $0.lineDashPattern = [20, 10]
                $0.lineDashPhase = phase
            })
        }
        // A dashed circle with round caps and a dot-dash pattern.
        layers.append(shape(Rect(230, 10, 80, 80)) {
            $0.path = Path(ellipseIn: Rect(5, 5, 70, 70))
            $0.fillColor = .clear
            $0.strokeColor = rgb(255, 80, 80)
            $0.lineWidth = 5
            $0.lineCap = .round
            $0.lineDashPattern = [0, 10, 15, 10]
        })
        let image = try render(layers, width: 320, height: 100)
        func on(_ row: Int, _ x: Int) -> Bool { Pixel(image, 10 + x, 15 + row * 20).r > 127 }
        // Phase 0: on 0–20, off 20–30. Phase 5: on 0–15, off 15–25. Phase 10: on 0–10, off 10–20.
        #expect(on(0, 5) && on(0, 18) && !on(0, 25) && on(0, 35))
        #expect(on(1, 5) && !on(1, 18) && on(1, 27))
        #expect(on(2, 5) && !on(2, 15) && on(2, 25))
        expectReference(image, "shape-dashes")
    }

    @Test("strokeStart and strokeEnd trim the stroke by length; strokes reach outside the bounds")
    func strokeEnd() throws {
        // CGPath(ellipseIn:) runs clockwise on screen from the right-hand point: the first half
        // is the lower half.
        let half = shape(Rect(10, 10, 100, 100)) {
            $0.path = Path(ellipseIn: Rect(10, 10, 80, 80))
            $0.fillColor = .clear
            $0.strokeColor = .green
            $0.lineWidth = 10
            $0.strokeEnd = 0.5
        }
        let middle = shape(Rect(130, 10, 100, 100)) {
            $0.path = Path(ellipseIn: Rect(10, 10, 80, 80))
            $0.fillColor = .clear
            $0.strokeColor = .green
            $0.lineWidth = 10
            $0.lineCap = .round
            $0.strokeStart = 0.25
            $0.strokeEnd = 0.75
        }
        // A stroke along the bounds' edge: half of it lies outside, and is drawn.
        let outside = shape(Rect(260, 30, 60, 60)) {
            $0.path = Path(rect: Rect(0, 0, 60, 60))
            $0.fillColor = rgb(0, 0, 160)
            $0.strokeColor = .white
            $0.lineWidth = 10
        }
        let image = try render([half, middle, outside], width: 340, height: 120)
        #expect(Pixel(image, 60, 99).g == 255, "bottom drawn")
        #expect(Pixel(image, 60, 21).g == 0, "top not drawn")
        #expect(Pixel(image, 195, 97).g == 0 && Pixel(image, 195, 23).g == 0, "0.25…0.75 leaves the right-hand side")
        #expect(Pixel(image, 141, 60).g == 255, "0.25…0.75 draws the left side")
        #expect(Pixel(image, 256, 60) == Pixel(255, 255, 255), "the stroke outside the bounds is drawn")
        #expect(Pixel(image, 290, 60) == Pixel(0, 0, 160))
        expectReference(image, "shape-stroke-end")
    }

    @Test("a magnified shape is rasterised at its on-screen scale; masksToBounds clips it")
    func magnifiedShapeStaysSharp() throws {
        // The same circle: drawn at 2× by a transform, and drawn 2× as large.
        let scaled = shape(Rect(20, 20, 50, 50)) {
            $0.path = Path(ellipseIn: Rect(5, 5, 40, 40))
            $0.fillColor = rgb(255, 255, 0)
            $0.transform = .scale(x: 2, y: 2)
        }
        let large = shape(Rect(120, -5, 100, 100)) {
            $0.path = Path(ellipseIn: Rect(10, 10, 80, 80))
            $0.fillColor = rgb(255, 255, 0)
        }
        let clipped = shape(Rect(240, 20, 50, 50)) {
            $0.path = Path(ellipseIn: Rect(0, 0, 80, 80))
            $0.fillColor = rgb(255, 255, 0)
            $0.masksToBounds = true
        }
        let image = try render([scaled, large, clipped], width: 320, height: 100)
        // Same pixels, 125 apart (the scaled one's bounds map to −5…95 about its centre 45).
        var worst = 0
        for y in 0..<100 { for x in 0..<100 { worst = max(worst, abs(Pixel(image, x, y).r - Pixel(image, x + 125, y).r)) } }
        #expect(worst <= 8, "scaled and natively large circles differ by \(worst)")
        #expect(Pixel(image, 289, 60).r == 255 && Pixel(image, 291, 60).r == 0, "clipped at the bounds' right edge")
        expectReference(image, "shape-scale-clip")
    }

    @Test("text alignment: left, center, right and natural in the bounds")
    func textAlignment() throws {
        let modes: [TextAlignment] = [.left, .center, .right, .natural]
        let layers = modes.enumerated().map { i, mode in
            text(Rect(10, 10 + Double(i) * 30, 200, 24), "Lamina \(mode)") {
                $0.alignmentMode = mode
                $0.backgroundColor = rgb(40, 40, 40)
            }
        }
        let image = try render(layers, width: 220, height: 130)
        let centroids = (0..<4).map { image.centroidX(x: 10 ..< 210, y: 10 + $0 * 30 ..< 34 + $0 * 30) }
        #expect(centroids[0] < 70, "left: \(centroids[0])")
        #expect(abs(centroids[1] - 110) < 4, "center: \(centroids[1])")
        #expect(centroids[2] > 150, "right: \(centroids[2])")
        // Left and natural start at the left edge, right ends at the right edge.
        func inkColumns(_ row: Int) -> [Int] { (10..<210).filter { image.glyphInk(x: $0 ..< $0 + 1, y: 10 + row * 30 ..< 34 + row * 30) > 0.3 } }
        #expect(inkColumns(0).first! <= 12 && inkColumns(3).first! <= 12, "left \(inkColumns(0).first!), natural \(inkColumns(3).first!)")
        #expect(inkColumns(2).last! >= 206, "right ends at \(inkColumns(2).last!)")
        // Drawn from the top of the bounds: the first rows hold ink, the bottom few do not.
        #expect(image.glyphInk(x: 10 ..< 210, y: 12 ..< 20) > 10)
        expectReference(image, "text-alignment")
    }

    @Test("wrapping breaks at the bounds' width; justified stretches all but the last line")
    func textWrapping() throws {
        let string = "Lamina draws text layers with Pango: lines wrap at words to the bounds' width."
        let plain = text(Rect(10, 10, 150, 110), string) { $0.isWrapped = true; $0.backgroundColor = rgb(40, 40, 40) }
        let justified = text(Rect(170, 10, 150, 110), string) {
            $0.isWrapped = true
            $0.alignmentMode = .justified
            $0.backgroundColor = rgb(40, 40, 40)
        }
        let single = text(Rect(10, 130, 150, 24), "Unwrapped text runs past the edge") { $0.backgroundColor = rgb(40, 40, 40) }
        let image = try render([plain, justified, single], width: 330, height: 160)
        // Several lines inside each wrapped layer; the unwrapped one runs into its right edge.
        let rowsWithInk = (10..<120).filter { y in (10..<160).contains { Pixel(image, $0, y).r > 128 } }
        #expect(rowsWithInk.count > 50, "\(rowsWithInk.count) rows of ink")
        #expect(image.glyphInk(x: 150 ..< 160, y: 130 ..< 154) > 5, "unwrapped text reaches the edge")
        #expect(image.glyphInk(x: 160 ..< 170, y: 130 ..< 154) == 0, "and is clipped there")
        // Justified lines end at the right edge more often than ragged ones.
        func rightEdgeInk(_ x0: Int) -> Double { image.glyphInk(x: x0 + 140 ..< x0 + 150, y: 10 ..< 120) }
        #expect(rightEdgeInk(170) > rightEdgeInk(10), "justified \(rightEdgeInk(170)), ragged \(rightEdgeInk(10))")
        expectReference(image, "text-wrapping")
    }

    @Test("truncation: an ellipsis at the end, in the middle or at the start")
    func textTruncation() throws {
        let modes: [TruncationMode] = [.none, .end, .middle, .start]
        var layers = modes.enumerated().map { i, mode in
            text(Rect(10, 10 + Double(i) * 28, 150, 24), "Core Animation for Linux, in Swift") {
                $0.truncationMode = mode
                $0.backgroundColor = rgb(40, 40, 40)
            }
        }
        // Wrapped and truncated: the last line that fits ends with the ellipsis.
        layers.append(text(Rect(170, 10, 150, 44), "Core Animation for Linux, in Swift, with Pango and cairo") {
            $0.isWrapped = true
            $0.truncationMode = .end
            $0.backgroundColor = rgb(40, 40, 40)
        })
        let image = try render(layers, width: 330, height: 125)
        func columnInk(_ row: Int, _ x: Range<Int>) -> Double { image.glyphInk(x: x, y: 10 + row * 28 ..< 34 + row * 28) }
        // Untruncated text is cut at the edge; truncated at the end it stops short of it.
        #expect(columnInk(0, 155 ..< 160) > 1 && columnInk(1, 157 ..< 160) < 0.5)
        // The end and none begin alike; middle and start end alike ("…in Swift").
        #expect(abs(columnInk(0, 10 ..< 50) - columnInk(1, 10 ..< 50)) < 0.5)
        #expect(abs(columnInk(2, 110 ..< 160) - columnInk(3, 110 ..< 160)) < 0.5)
        #expect(abs(columnInk(1, 110 ..< 160) - columnInk(2, 110 ..< 160)) > 1)
        // Two lines in the wrapped layer, nothing below them.
        #expect(image.glyphInk(x: 170 ..< 320, y: 10 ..< 32) > 50 && image.glyphInk(x: 170 ..< 320, y: 32 ..< 54) > 50)
        expectReference(image, "text-truncation")
    }

    @Test("contentsScale 2 text is sharper than contentsScale 1 when magnified")
    func textContentsScale() throws {
        let layers = [1.0, 2.0].enumerated().map { i, scale in
            text(Rect(45 + Double(i) * 160, 23, 70, 24), "Sharp") {
                $0.contentsScale = scale
                $0.transform = .scale(x: 2, y: 2)
                $0.foregroundColor = .white
            }
        }
        let image = try render(layers, width: 330, height: 70)
        let soft = image.edgeEnergy(x: 0 ..< 160, y: 0 ..< 70), sharp = image.edgeEnergy(x: 165 ..< 325, y: 0 ..< 70)
        #expect(sharp > soft * 1.3, "edge energy at contentsScale 2: \(sharp), at 1: \(soft)")
        // The same text in the same place: about the same ink.
        let inkSoft = image.ink(x: 0 ..< 160, y: 0 ..< 70), inkSharp = image.ink(x: 165 ..< 325, y: 0 ..< 70)
        #expect(abs(inkSoft - inkSharp) / inkSharp < 0.1, "ink \(inkSoft) vs \(inkSharp)")
        expectReference(image, "text-contents-scale")
    }

    @Test("a raster is drawn once and reused while the layer moves; strokeEnd redraws it")
    func rastersAreCached() throws {
        let backend = try HeadlessDisplay(width: 120, height: 120)
        let rasters = ServerRasterizer()
        var display = ModelTree(width: 120, height: 120)
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "raster-cache"))
        let id = LayerID(rawValue: 1)
        var line = Path()
        line.move(to: Point(0, 10)); line.addLine(to: Point(100, 10))
        _ = try display.apply([
            .create(id, kind: .shape), .set(id, .bounds, .rect(Rect(0, 0, 100, 20))), .set(id, .position, .point(Point(60, 30))),
            .set(id, .path, .path(line)), .set(id, .strokeColor, .color(.white)), .set(id, .lineWidth, .number(4)),
            .insert(parent: .root, child: id, index: .max),
        ], from: client, limits: ClientLimits())
        func frame() throws -> Bitmap {
            try backend.present(display.drawList(rasters: rasters))
            rasters.endFrame()
            return try backend.screenshot()
        }
        _ = try frame()
        #expect(rasters.cache.rasterizations == 1)
        _ = try display.apply([.set(id, .position, .point(Point(60, 80)))], from: client, limits: ClientLimits())
        let moved = try frame()
        #expect(rasters.cache.rasterizations == 1, "moving does not redraw")
        #expect(Pixel(moved, 60, 80) == Pixel(255, 255, 255) && Pixel(moved, 60, 30) == Pixel(0, 0, 0))
        _ = try display.apply([.set(id, .strokeEnd, .number(0.5))], from: client, limits: ClientLimits())
        let half = try frame()
        #expect(rasters.cache.rasterizations == 2, "strokeEnd redraws")
        #expect(Pixel(half, 30, 80) == Pixel(255, 255, 255) && Pixel(half, 90, 80) == Pixel(0, 0, 0))
        // Removed: the raster and its image source go.
        _ = try display.apply([.remove(id)], from: client, limits: ClientLimits())
        _ = try frame()
        _ = try frame()
        #expect(rasters.cache.count == 0 && rasters.store.count == 0)
    }
}
