import LaminaCore
import LaminaCompositor
import Testing

/// Gradient layers (`CAGradientLayer`) drawn by the GLES renderer from trees built by the
/// server: axial, radial and conic, locations, premultiplied interpolation, rounded clipping,
/// Core Animation's blank cases, and dithering.
@Suite("Gradient layers")
struct GradientTests {
    func gradient(_ frame: Rect, _ colors: [Color], locations: [Double] = [], type: GradientType = .axial,
                  start: Point = Point(x: 0.5, y: 0), end: Point = Point(x: 0.5, y: 1), color: Color = .clear,
                  _ configure: (inout LayerProperties) -> Void = { _ in }) -> SceneLayer {
        SceneLayer(.gradient, frame: frame, color: color) {
            $0.colors = colors
            $0.locations = locations
            $0.gradientType = type
            $0.startPoint = start
            $0.endPoint = end
            configure(&$0)
        }
    }

    @Test("axial, radial and conic gradients, locations, rounded clipping and the blank cases")
    func kinds() throws {
        let across = (Point(x: 0, y: 0.5), Point(x: 1, y: 0.5))
        // 1. Axial, left to right, red to blue over 100 points.
        let axial = gradient(Rect(10, 10, 100, 40), [.red, .blue], start: across.0, end: across.1)
        // 2. Three colours, evenly spaced (no locations): the middle is green exactly.
        let three = gradient(Rect(120, 10, 100, 40), [.red, .green, .blue], start: across.0, end: across.1)
        // 3. Locations [0, 0.2, 1] and a diagonal.
        let located = gradient(Rect(230, 10, 100, 40), [.white, .black, .white], locations: [0, 0.2, 1],
                               start: across.0, end: across.1)
        // 4. Radial: white at the centre, black at the corners' ellipse (radii 40 and 30).
        let radial = gradient(Rect(10, 60, 80, 60), [.white, .black], type: .radial,
                              start: Point(x: 0.5, y: 0.5), end: Point(x: 1, y: 1))
        // 5. Conic about the centre, starting to the right, clockwise on screen.
        let conic = gradient(Rect(100, 60, 80, 80), [.red, .blue], type: .conic,
                             start: Point(x: 0.5, y: 0.5), end: Point(x: 1, y: 0.5))
        // 6. Premultiplied interpolation: red to a clear green shows no green at all.
        let fade = gradient(Rect(190, 60, 100, 30), [.red, Color(red: 0, green: 1, blue: 0, alpha: 0)],
                            start: across.0, end: across.1)
        // 7. Drawn above the background, clipped to the rounded bounds like it, under the border.
        let rounded = gradient(Rect(190, 100, 100, 50), [Color(red: 1, green: 1, blue: 1, alpha: 0.5), .clear],
                               start: across.0, end: across.1, color: .blue) {
            $0.cornerRadius = 20
            $0.maskedCorners = [.minXMinY, .maxXMaxY]
            $0.borderWidth = 3
            $0.borderColor = .red
        }
        // 8. Blank: locations whose count is not that of colours; a single colour.
        let mismatched = gradient(Rect(10, 150, 60, 40), [.red, .green, .blue], locations: [0, 1], color: .blue)
        let single = gradient(Rect(80, 150, 60, 40), [.red], color: .blue)
        let image = try render([axial, three, located, radial, conic, fade, rounded, mismatched, single],
                               width: 340, height: 200)

        // Axial: pixel centre x + 0.5 of 100: red·(1 − t) + blue·t, within dithering.
        for x in [0, 25, 50, 99] {
            let t = (Double(x) + 0.5) / 100
            let expected = Pixel(Int((255 * (1 - t)).rounded()), 0, Int((255 * t).rounded()))
            #expect(Pixel(image, 10 + x, 30).isClose(to: expected, tolerance: 2), "axial x \(x): \(Pixel(image, 10 + x, 30))")
        }
        // Evenly spaced: green at the middle (t = 0.5 between pixels 49 and 50).
        #expect(Pixel(image, 120 + 49, 30).isClose(to: Pixel(5, 250, 0), tolerance: 3))
        #expect(Pixel(image, 120 + 75, 30).isClose(to: Pixel(0, 126, 129), tolerance: 3))
        // Locations: black at t = 0.2, halfway back to white at t = 0.6.
        #expect(Pixel(image, 230 + 20, 30).isClose(to: Pixel(1, 1, 1), tolerance: 3))
        #expect(Pixel(image, 230 + 10, 30).isClose(to: Pixel(121, 121, 121), tolerance: 3))
        #expect(Pixel(image, 230 + 60, 30).isClose(to: Pixel(126, 126, 126), tolerance: 3))
        // Radial: t = |((x, y) − centre) / (40, 30)|.
        #expect(Pixel(image, 50, 90).isClose(to: Pixel(251, 251, 251), tolerance: 3))
        #expect(Pixel(image, 70, 90).isClose(to: Pixel(124, 124, 124), tolerance: 3))  // t = 20.5/40
        #expect(Pixel(image, 50, 105).isClose(to: Pixel(124, 124, 124), tolerance: 3))  // t = 15.5/30
        #expect(Pixel(image, 11, 61).isClose(to: Pixel(0, 0, 0), tolerance: 2))
        // Conic about (140, 100): right of the centre t ≈ 0, below it t = 0.25, left 0.5, above 0.75.
        #expect(Pixel(image, 170, 100).isClose(to: Pixel(255, 0, 0), tolerance: 6))
        #expect(Pixel(image, 140, 130).isClose(to: Pixel(191, 0, 64), tolerance: 6))
        #expect(Pixel(image, 110, 100).isClose(to: Pixel(128, 0, 127), tolerance: 6))
        #expect(Pixel(image, 140, 70).isClose(to: Pixel(64, 0, 191), tolerance: 6))
        // Premultiplied: red fading out, never green.
        for x in [10, 50, 90] {
            let p = Pixel(image, 190 + x, 75)
            let t = (Double(x) + 0.5) / 100
            #expect(p.g == 0 && abs(p.r - Int(255 * (1 - t))) <= 2, "fade x \(x): \(p)")
        }
        // Rounded: the gradient over the blue background, the red border on top, the rounded
        // corners cut (top left and bottom right only).
        #expect(Pixel(image, 190 + 10, 125).isClose(to: Pixel(114, 114, 255), tolerance: 3))
        #expect(Pixel(image, 190 + 95, 125).isClose(to: Pixel(3, 3, 255), tolerance: 3))
        #expect(Pixel(image, 190 + 50, 101) == Pixel(255, 0, 0))
        #expect(Pixel(image, 190, 100) == Pixel(0, 0, 0))
        #expect(Pixel(image, 289, 149) == Pixel(0, 0, 0))
        #expect(Pixel(image, 289, 100) == Pixel(255, 0, 0))
        // Blank gradients: only the background shows.
        #expect(Pixel(image, 40, 170) == Pixel(0, 0, 255))
        #expect(Pixel(image, 110, 170) == Pixel(0, 0, 255))
        expectReference(image, "gradients")
    }

    @Test("a long low-contrast gradient is dithered: no bands of identical columns, and the mean follows the ramp")
    func dithering() throws {
        // Grey 100 to 110 across 1000 points: undithered, each of the 11 levels would fill a
        // band about 100 columns wide.
        let ramp = gradient(Rect(0, 0, 1000, 16), [rgb(100, 100, 100), rgb(110, 110, 110)],
                            start: Point(x: 0, y: 0.5), end: Point(x: 1, y: 0.5))
        let image = try render([ramp], width: 1000, height: 16)
        var longestRun = 1, run = 1
        var previous: [Int] = []
        for x in 0..<1000 {
            let column = (0..<16).map { Pixel(image, x, $0).r }
            run = column == previous ? run + 1 : 1
            longestRun = max(longestRun, run)
            previous = column
            // Each column's mean is the ideal value to within a fraction of a level.
            let mean = Double(column.reduce(0, +)) / 16
            let ideal = 100 + 10 * (Double(x) + 0.5) / 1000
            #expect(abs(mean - ideal) < 0.75, "column \(x): mean \(mean), ideal \(ideal)")
            #expect(column.allSatisfy { abs(Double($0) - ideal) <= 1.5 }, "column \(x): \(column)")
        }
        #expect(longestRun <= 3, "a run of \(longestRun) identical columns")
    }

    /// Dithering moves alpha too, but never below 1 where the colour is opaque: an opaque
    /// gradient shows nothing of what lies behind it, so it hides draws like an opaque layer
    /// (`Occlusion`). Over a red and over a blue display the pixels are the same.
    @Test("an opaque gradient stays opaque when dithered")
    func opaqueStaysOpaque() throws {
        let ramp = gradient(Rect(0, 0, 400, 16), [rgb(100, 100, 100), rgb(110, 110, 110)],
                            start: Point(x: 0, y: 0.5), end: Point(x: 1, y: 0.5))
        let overRed = try render([ramp], width: 400, height: 16, background: rgb(255, 0, 0))
        let overBlue = try render([ramp], width: 400, height: 16, background: rgb(0, 0, 255))
        let d = overRed.difference(from: overBlue)
        #expect(d.worst == 0, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
        // The translucent gradient still lets each show through.
        let veil = gradient(Rect(0, 0, 400, 16), [rgb(100, 100, 100, 128), rgb(110, 110, 110, 128)],
                            start: Point(x: 0, y: 0.5), end: Point(x: 1, y: 0.5))
        let veiled = try render([veil], width: 400, height: 16, background: rgb(255, 0, 0))
        #expect(Pixel(veiled, 200, 8).r > 150)
    }
}
