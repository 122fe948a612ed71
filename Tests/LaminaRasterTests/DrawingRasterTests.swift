import CCairo
import LaminaCore
import LaminaCompositor
import LaminaRaster
import Testing

/// Drawings (`drawing`) rasterised by `DrawingRasterizer`, against the same figure drawn with
/// cairo's own calls here (the reference: Core Graphics' meaning of each command written out
/// by hand), at 1× and 2×.
@Suite("Drawings rasterised")
struct DrawingRasterTests {
    /// A gauge: a gradient face clipped to a rounded rectangle, a grey track and a green value
    /// arc with round caps, dashed ticks, a needle from SVG path data under a rotation, a hub.
    static let gauge: [DrawingCommand] = [
        DrawingCommand(.saveGState),
        DrawingCommand(.addRoundedRect, [4, 4, 112, 92, 12, 12]),
        DrawingCommand(.clip, [0]),
        DrawingCommand(.drawLinearGradient, [0, 0, 0, 100, 0, 0, 0.1, 0.1, 0.2, 1, 1, 0.2, 0.2, 0.4, 1]),
        DrawingCommand(.restoreGState),
        DrawingCommand(.setLineWidth, [8]),
        DrawingCommand(.setLineCap, [1]),
        DrawingCommand(.setStrokeColor, [0.5, 0.5, 0.5, 1]),
        DrawingCommand(.addArc, [60, 60, 40, Double.pi, 2 * Double.pi, 0]),
        DrawingCommand(.strokePath),
        DrawingCommand(.setStrokeColor, [0, 0.8, 0.2, 1]),
        DrawingCommand(.addArc, [60, 60, 40, Double.pi, Double.pi * 1.7, 0]),
        DrawingCommand(.strokePath),
        DrawingCommand(.setLineCap, [0]),
        DrawingCommand(.setLineWidth, [2]),
        DrawingCommand(.setLineDash, [0, 2, 6]),
        DrawingCommand(.setStrokeColor, [1, 1, 1, 0.8]),
        DrawingCommand(.move, [10, 90]),
        DrawingCommand(.addQuadCurve, [110, 90, 60, 70]),
        DrawingCommand(.strokePath),
        DrawingCommand(.setLineDash, [0]),
        DrawingCommand(.saveGState),
        DrawingCommand(.translateBy, [60, 60]),
        DrawingCommand(.rotateBy, [-0.6]),
        DrawingCommand(.setFillColor, [1, 0.3, 0, 1]),
        DrawingCommand(.addPath, [], ["M -3 0 L 0 -36 L 3 0 Z"]),
        DrawingCommand(.fillPath, [0]),
        DrawingCommand(.restoreGState),
        DrawingCommand(.setFillColor, [0.9, 0.9, 0.9, 1]),
        DrawingCommand(.fillEllipse, [54, 54, 12, 12]),
        DrawingCommand(.addCurve, [100, 20, 30, 0, 70, 40]),
        DrawingCommand(.setStrokeColor, [0, 0.5, 1, 0.5]),
        DrawingCommand(.strokePath),
    ]

    /// The gauge drawn with cairo directly.
    static func reference(scale: Double) -> [UInt8] {
        CairoReference.draw(width: 120, height: 100, scale: scale) { cr in
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD)
            cairo_save(cr)
            // Rounded rectangle: four quarter circles of radius 12.
            cairo_new_sub_path(cr)
            cairo_arc(cr, 104, 16, 12, -Double.pi / 2, 0)
            cairo_arc(cr, 104, 84, 12, 0, Double.pi / 2)
            cairo_arc(cr, 16, 84, 12, Double.pi / 2, Double.pi)
            cairo_arc(cr, 16, 16, 12, Double.pi, 3 * Double.pi / 2)
            cairo_close_path(cr)
            cairo_clip(cr)
            let g = cairo_pattern_create_linear(0, 0, 0, 100)!
            cairo_pattern_add_color_stop_rgba(g, 0, 0.1, 0.1, 0.2, 1)
            cairo_pattern_add_color_stop_rgba(g, 1, 0.2, 0.2, 0.4, 1)
            cairo_set_source(cr, g)
            cairo_paint(cr)
            cairo_pattern_destroy(g)
            cairo_restore(cr)
            cairo_set_line_width(cr, 8)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 1)
            cairo_arc(cr, 60, 60, 40, Double.pi, 2 * Double.pi)
            cairo_stroke(cr)
            cairo_set_source_rgba(cr, 0, 0.8, 0.2, 1)
            cairo_arc(cr, 60, 60, 40, Double.pi, Double.pi * 1.7)
            cairo_stroke(cr)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
            cairo_set_line_width(cr, 2)
            let dash: [Double] = [2, 6]
            cairo_set_dash(cr, dash, 2, 0)
            cairo_set_source_rgba(cr, 1, 1, 1, 0.8)
            cairo_move_to(cr, 10, 90)
            // The quadratic (10, 90) → (110, 90) through control (60, 70), as its cubic.
            cairo_curve_to(cr, 10 + 50 * 2 / 3.0, 90 - 20 * 2 / 3.0, 110 - 50 * 2 / 3.0, 90 - 20 * 2 / 3.0, 110, 90)
            cairo_stroke(cr)
            cairo_set_dash(cr, nil, 0, 0)
            cairo_save(cr)
            cairo_translate(cr, 60, 60)
            cairo_rotate(cr, -0.6)
            cairo_set_source_rgba(cr, 1, 0.3, 0, 1)
            cairo_move_to(cr, -3, 0)
            cairo_line_to(cr, 0, -36)
            cairo_line_to(cr, 3, 0)
            cairo_close_path(cr)
            cairo_fill(cr)
            cairo_restore(cr)
            cairo_set_source_rgba(cr, 0.9, 0.9, 0.9, 1)
            cairo_save(cr)
            cairo_translate(cr, 60, 60)
            cairo_scale(cr, 6, 6)
            cairo_arc(cr, 0, 0, 1, 0, 2 * Double.pi)
            cairo_restore(cr)
            cairo_fill(cr)
            // A curve with no current point starts at (0, 0).
            cairo_move_to(cr, 0, 0)
            cairo_curve_to(cr, 30, 0, 70, 40, 100, 20)
            cairo_set_source_rgba(cr, 0, 0.5, 1, 0.5)
            cairo_stroke(cr)
        }
    }

    static func style(_ commands: [DrawingCommand], bounds: Rect = Rect(x: 0, y: 0, width: 120, height: 100)) -> DrawingStyle {
        var p = LayerProperties()
        p.bounds = bounds
        p.drawing = Drawing(commands)
        return DrawingStyle(p)
    }

    @Test(arguments: [1.0, 2.0])
    func gaugeMatchesCairo(scale: Double) throws {
        try Drawing(Self.gauge).validate()
        let image = try #require(DrawingRasterizer.rasterize(Self.style(Self.gauge), scale: scale))
        #expect(image.bitmap.width == Int(120 * scale) && image.bitmap.height == Int(100 * scale))
        #expect(image.frame == Rect(x: 0, y: 0, width: 120, height: 100))
        let reference = Self.reference(scale: scale)
        #expect(reference.count == image.bitmap.bytes.count)
        let (differing, worst) = CairoReference.difference(reference, image.bitmap.bytes, tolerance: 2)
        #expect(differing == 0, "\(differing) channels differ by more than 2 (worst \(worst)) at \(scale)x")
        // The figure is there: the green value arc at its left end, the needle's colour.
        let arc = image.bitmap.pixel(x: Int(20 * scale), y: Int(60 * scale) - 2)
        #expect(arc.g > 150 && arc.r < 60, "green arc at the left: \(arc)")
    }

    @Test func evenOddClipAndAlpha() throws {
        // A ring filled even-odd: the hole stays clear; non-zero fills it.
        func ring(_ rule: Double) -> [DrawingCommand] {
            [DrawingCommand(.setFillColor, [1, 0, 0, 1]), DrawingCommand(.addEllipse, [10, 10, 80, 80]),
             DrawingCommand(.addEllipse, [30, 30, 40, 40]), DrawingCommand(.fillPath, [rule])]
        }
        let box = Rect(x: 0, y: 0, width: 100, height: 100)
        let evenOdd = try #require(DrawingRasterizer.rasterize(Self.style(ring(1), bounds: box), scale: 1))
        let nonZero = try #require(DrawingRasterizer.rasterize(Self.style(ring(0), bounds: box), scale: 1))
        #expect(evenOdd.bitmap.pixel(x: 50, y: 50).a == 0 && evenOdd.bitmap.pixel(x: 20, y: 50).a == 255)
        #expect(nonZero.bitmap.pixel(x: 50, y: 50).a == 255)
        // Global alpha halves a fill; a clip keeps it inside.
        let half = try #require(DrawingRasterizer.rasterize(Self.style([
            DrawingCommand(.addRect, [0, 0, 50, 100]), DrawingCommand(.clip, [0]),
            DrawingCommand(.setAlpha, [0.5]), DrawingCommand(.setFillColor, [0, 0, 1, 1]), DrawingCommand(.fillRect, [0, 0, 100, 100]),
        ], bounds: box), scale: 1))
        let inside = half.bitmap.pixel(x: 25, y: 50), outside = half.bitmap.pixel(x: 75, y: 50)
        #expect(abs(Int(inside.a) - 128) <= 1 && abs(Int(inside.b) - 128) <= 1, "\(inside)")
        #expect(outside.a == 0)
    }

    @Test func shadowIsBlurredAndOffset() throws {
        let box = Rect(x: 0, y: 0, width: 100, height: 100)
        let image = try #require(DrawingRasterizer.rasterize(Self.style([
            DrawingCommand(.setShadow, [10, 10, 8, 0, 0, 0, 1]),
            DrawingCommand(.setFillColor, [1, 1, 1, 1]), DrawingCommand(.fillRect, [20, 20, 40, 40]),
        ], bounds: box), scale: 1))
        // The square is white; right of it and below, its shadow: dark, fading out over the blur.
        #expect(image.bitmap.pixel(x: 40, y: 40) == (255, 255, 255, 255))
        let deep = image.bitmap.pixel(x: 65, y: 65), edge = image.bitmap.pixel(x: 72, y: 50), far = image.bitmap.pixel(x: 90, y: 90)
        #expect(deep.a > 100 && deep.r == 0, "inside the offset shadow: \(deep)")
        #expect(edge.a > 0 && edge.a < deep.a, "the shadow's edge is soft: \(edge)")
        #expect(far.a == 0)
    }

    @Test func textIsDrawnOnItsBaseline() throws {
        let image = try #require(DrawingRasterizer.rasterize(Self.style([
            DrawingCommand(.setFillColor, [1, 0, 0, 1]),
            DrawingCommand(.showText, [10, 40, 24], ["Lamina", "DejaVu Sans"]),
        ], bounds: Rect(x: 0, y: 0, width: 120, height: 60)), scale: 1))
        var top = Int.max, bottom = 0, red = 0
        for y in 0..<60 {
            for x in 0..<120 where image.bitmap.pixel(x: x, y: y).a > 128 {
                top = min(top, y); bottom = max(bottom, y); red += 1
                #expect(image.bitmap.pixel(x: x, y: y).g < 20)
            }
        }
        // No descenders in "Lamina": the ink ends at the baseline (y = 40); caps are ~17 px tall.
        #expect(red > 100 && abs(bottom - 39) <= 1 && abs(top - 22) <= 2, "ink from \(top) to \(bottom)")
    }

    /// A 2×2 image (straight alpha, one half-transparent pixel) stretched over a 40×40 rect at
    /// (10, 10), upright: each quadrant its pixel's colour, premultiplied; an image number the
    /// client does not have draws nothing.
    @Test func drawImageStretchesTheClientImage() throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128]
        let source = ImageSource(number: 4, bitmap: Bitmap(width: 2, height: 2, bytes: pixels)!, alpha: .straight)
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 60, height: 60)
        p.drawing = Drawing([DrawingCommand(.drawImage, [4, 10, 10, 40, 40]), DrawingCommand(.drawImage, [9, 0, 0, 60, 60])])
        let style = DrawingStyle(p, images: [4: source])
        #expect(style.imageVersions.keys.sorted() == [4])
        let image = try #require(DrawingRasterizer.rasterize(style, scale: 1, images: [4: source]))
        let b = image.bitmap
        #expect(b.pixel(x: 15, y: 15) == (255, 0, 0, 255), "top left red")
        #expect(b.pixel(x: 45, y: 15) == (0, 255, 0, 255), "top right green")
        #expect(b.pixel(x: 15, y: 45) == (0, 0, 255, 255), "bottom left blue")
        let half = b.pixel(x: 45, y: 45)
        #expect(abs(Int(half.a) - 128) <= 1 && abs(Int(half.r) - 128) <= 1, "bottom right white at half alpha, premultiplied: \(half)")
        #expect(b.pixel(x: 5, y: 5).a == 0 && b.pixel(x: 55, y: 55).a == 0, "nothing outside the rect")
        // A new generation of the image is a new cache key.
        source.replace(Bitmap(width: 2, height: 2, bytes: Array(repeating: 255, count: 16))!)
        #expect(DrawingStyle(p, images: [4: source]) != style)
    }

    @Test func bigDrawingIsDrawnSmallerNotRefused() throws {
        let image = try #require(DrawingRasterizer.rasterize(Self.style([DrawingCommand(.fillRect, [0, 0, 10_000, 10])],
                                                                        bounds: Rect(x: 0, y: 0, width: 10_000, height: 10)), scale: 2))
        #expect(image.bitmap.width <= rasterMaximumSide && image.scale < 1)
    }
}
