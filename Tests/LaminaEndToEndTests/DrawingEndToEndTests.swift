import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// The gauge of docs/clients.md ("A gauge drawn with the drawing API"), as a delegate.
@MainActor
final class GaugeDelegate: LayerDelegate {
    var value = 0.7
    var draws = 0
    func draw(_ layer: Layer, in ctx: DrawingContext) {
        draws += 1
        let b = layer.bounds
        let center = Point(x: b.width / 2, y: b.height * 0.6), radius = b.width * 0.35
        ctx.setFillColor(Color(red: 0.1, green: 0.1, blue: 0.2, alpha: 1))
        ctx.addRoundedRect(in: b, cornerWidth: 12, cornerHeight: 12)
        ctx.fillPath()
        ctx.setLineWidth(8)
        ctx.setLineCap(.round)
        ctx.setStrokeColor(Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))
        ctx.addArc(center: center, radius: radius, startAngle: .pi, endAngle: 2 * .pi, clockwise: false)
        ctx.strokePath()
        ctx.setStrokeColor(Color(red: 0, green: 0.8, blue: 0.2, alpha: 1))
        ctx.addArc(center: center, radius: radius, startAngle: .pi, endAngle: .pi * (1 + value), clockwise: false)
        ctx.strokePath()
        ctx.saveGState()
        ctx.translateBy(x: center.x, y: center.y)
        ctx.rotate(by: .pi * (value - 0.5))
        ctx.setFillColor(Color(red: 1, green: 0.3, blue: 0, alpha: 1))
        ctx.addPath("M -3 0 L 0 -\(radius - 4) L 3 0 Z")
        ctx.fillPath()
        ctx.restoreGState()
        ctx.setFillColor(Color(red: 1, green: 1, blue: 1, alpha: 1))
        ctx.showText("\(Int(value * 100))", at: Point(x: center.x - 10, y: b.height - 8), font: "DejaVu Sans", size: 14)
    }
}

/// Drawings by a real laminad: the drawing delegate run before the commit, the gauge's pixels,
/// sharpness under a scale transform, and refusals.
@Suite("Drawings end to end", .serialized)
@MainActor
struct DrawingEndToEndTests {
    @Test func gaugeDelegateDrawsBeforeTheCommit() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "drawing")
        let gauge = Layer()
        let delegate = GaugeDelegate()
        gauge.delegate = delegate
        gauge.bounds = Rect(x: 0, y: 0, width: 200, height: 120)
        gauge.position = Point(x: 160, y: 120)
        gauge.needsDisplayOnBoundsChange = true
        // Marked before it is in the tree: it displays when it joins it.
        gauge.setNeedsDisplay()
        c.rootLayer.addSublayer(gauge)
        gauge.setNeedsDisplay(in: Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(gauge.needsDisplay && delegate.draws == 0)
        try await c.sync()
        #expect(delegate.draws == 1 && !gauge.needsDisplay)
        #expect(gauge.drawing.commands.count > 10)
        var shot = try await c.screenshot()
        // Layer origin on screen: (60, 60). The track's left end (x = 30, y = 72), the value arc
        // (green) starts there; the face is dark blue; the needle is orange near the hub.
        let arcStart = shot.pixel(x: 60 + 30, y: 60 + 68)
        #expect(arcStart.g > 150 && arcStart.r < 60, "green arc start \(arcStart)")
        let face = shot.pixel(x: 60 + 10, y: 60 + 110)
        #expect(face.b > 40 && face.r < 40 && face.g < 40, "face \(face)")
        // Right end of the track: grey (value 0.7 stops short of it).
        let trackEnd = shot.pixel(x: 60 + 170, y: 60 + 70)
        #expect(abs(Int(trackEnd.r) - 128) < 30 && abs(Int(trackEnd.g) - 128) < 30, "grey track end \(trackEnd)")
        // The number is drawn in white at the bottom.
        var white = 0
        for y in 160..<176 { for x in 150..<190 where shot.pixel(x: x, y: y).r > 200 && shot.pixel(x: x, y: y).b > 200 { white += 1 } }
        #expect(white > 20, "text pixels: \(white)")

        // A new value redraws once for the next commit; a bounds change redraws (needsDisplayOnBoundsChange).
        delegate.value = 0.2
        gauge.setNeedsDisplay()
        try await c.sync()
        #expect(delegate.draws == 2)
        shot = try await c.screenshot()
        let afterArc = shot.pixel(x: 60 + 170, y: 60 + 70)
        #expect(afterArc.g < 160, "the value arc no longer reaches the right: \(afterArc)")
        gauge.bounds = Rect(x: 0, y: 0, width: 220, height: 120)
        try await c.sync()
        #expect(delegate.draws == 3)
        gauge.bounds = Rect(x: 0, y: 0, width: 220, height: 120)
        try await c.sync()
        #expect(delegate.draws == 3, "same size: no redraw")
    }

    /// The width of the antialiased edge of a half-white drawing along row `y`: the pixels
    /// strictly between dark and light.
    static func edgeWidth(_ shot: Bitmap, y: Int, from x0: Int, to x1: Int) -> Int {
        (x0..<x1).filter { let r = shot.pixel(x: $0, y: y).r; return r > 20 && r < 235 }.count
    }

    @Test func drawingUnderScaleThreeIsAsSharpAsDrawnAtThree() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "drawing")
        // A circle's edge: 40-point layer magnified 3× …
        let scaled = Layer()
        scaled.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        scaled.position = Point(x: 80, y: 120)
        scaled.transform = .scale(x: 3, y: 3, z: 1)
        let small = DrawingContext(bounds: scaled.bounds)
        small.setFillColor(.white)
        small.fillEllipse(in: Rect(x: 0, y: 0, width: 40, height: 40))
        scaled.drawing = small.drawing
        // … and a 120-point layer drawing the same circle 3× as large.
        let large = Layer()
        large.bounds = Rect(x: 0, y: 0, width: 120, height: 120)
        large.position = Point(x: 240, y: 120)
        let big = DrawingContext(bounds: large.bounds)
        big.setFillColor(.white)
        big.fillEllipse(in: Rect(x: 0, y: 0, width: 120, height: 120))
        large.drawing = big.drawing
        c.rootLayer.sublayers = [scaled, large]
        try await c.sync()
        let shot = try await c.screenshot()
        // Row 100 crosses each circle's edge twice (20 points above the centre).
        let scaledEdge = Self.edgeWidth(shot, y: 100, from: 15, to: 145)
        let largeEdge = Self.edgeWidth(shot, y: 100, from: 175, to: 305)
        #expect(scaledEdge <= largeEdge + 1, "scaled drawing edge \(scaledEdge) px vs drawn at 3× \(largeEdge) px")
        #expect(largeEdge <= 4)
        // A 1× raster magnified 3× would blur each edge over about 3 pixels (6 on the row).
        print("drawing edge widths on row 100: under transform.scale 3: \(scaledEdge) px, drawn at 3x: \(largeEdge) px")
    }

    /// A drawing is rasterised once and kept while the layer moves or fades; a new on-screen
    /// scale draws it again (once), as does a new drawing (`rasterizations` in stats).
    @Test func rasterisedAgainOnlyWhenTheScaleOrDrawingChanges() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "drawing")
        func rasterizations() async throws -> Double {
            try await c.stats().first { $0.name == "rasterizations" }?.value ?? -1
        }
        /// Changes without implicit animations, then on screen.
        func change(_ body: () -> Void) async throws {
            Transaction.begin()
            Transaction.disableActions = true
            body()
            Transaction.commit()
            try await c.sync()
            _ = try await c.screenshot()
        }
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        layer.position = Point(x: 60, y: 60)
        let ctx = DrawingContext(bounds: layer.bounds)
        ctx.setFillColor(.white)
        ctx.fillEllipse(in: layer.bounds)
        layer.drawing = ctx.drawing
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        _ = try await c.screenshot()
        let first = try await rasterizations()
        #expect(first >= 1)
        for x in [80.0, 100, 120] {
            try await change {
                layer.position = Point(x: x, y: 60)
                layer.opacity = x / 200
            }
        }
        #expect(try await rasterizations() == first, "moving and fading reuse the raster")
        try await change { layer.transform = .scale(x: 2, y: 2) }
        #expect(try await rasterizations() == first + 1, "a 2x magnification draws it again")
        try await change { layer.position = Point(x: 160, y: 120) }
        #expect(try await rasterizations() == first + 1)
        ctx.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        try await change { layer.drawing = ctx.drawing }
        #expect(try await rasterizations() == first + 2, "a new drawing draws again")
    }

    /// `draw(_:in:)` of a client `Image`: its pixels in the drawing, stretched; an update of the
    /// image shows in the drawing.
    @Test func drawingAnImage() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "drawing")
        let image = try Image(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 255], connection: c)
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
        layer.position = Point(x: 100, y: 75)
        let ctx = DrawingContext(bounds: layer.bounds)
        ctx.setFillColor(.white)
        ctx.fill(layer.bounds)
        ctx.draw(image, in: Rect(x: 10, y: 10, width: 80, height: 30))
        layer.drawing = ctx.drawing
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        var shot = try await c.screenshot()
        // Layer origin (50, 50): red on the left half of the rect, blue on the right, white around.
        #expect(shot.pixel(x: 50 + 20, y: 50 + 25) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 50 + 80, y: 50 + 25) == (0, 0, 255, 255))
        #expect(shot.pixel(x: 50 + 5, y: 50 + 25) == (255, 255, 255, 255))
        try image.update(rect: PixelRect(x: 0, y: 0, width: 1, height: 1), pixels: [0, 255, 0, 255])
        try await c.sync()
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 50 + 20, y: 50 + 25) == (0, 255, 0, 255), "the updated image is drawn again")
    }

    @Test func badDrawingsAreRefusedWithTheCommandNamed() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "drawing")
        let layer = Layer()
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        for (commands, message) in [
            ([DrawingCommand(.restoreGState)], "command 0 (restoreGState): restoreGState without a saveGState"),
            ([DrawingCommand(.setLineDash, [0] + Array(repeating: 1, count: 65))], "65 dash entries is more than the limit of 64"),
            ([DrawingCommand(.addPath, [], ["M 0 0 K 3 3"])], "unknown path command 'K'"),
        ] {
            layer.drawing = Drawing(commands)
            var refused: LaminaError?
            do { try await c.sync() } catch let e as LaminaError { refused = e }
            #expect(refused?.serverError?.subject == .commit)
            #expect("\(String(describing: refused))".contains(message), "\(String(describing: refused))")
            #expect("\(String(describing: refused))".contains("drawing"))
        }
    }
}
