import Glibc
import LaminaCore
import LaminaCompositor
import Testing

/// The layer's shape, border, culling, flipping, group opacity, clipping and shadows, drawn by
/// the GLES renderer from trees built by the server (llvmpipe on CI).
@Suite("Layer appearance")
struct AppearanceTests {
    let gray = rgb(64, 64, 64)

    @Test("rounded corners are antialiased and cover exactly the analytic area")
    func roundedCorners() throws {
        // Four 60×60 white squares with radii 0, 4, 12.5 and 40 (limited to 30, a circle).
        let radii = [0, 4, 12.5, 40]
        let layers = radii.enumerated().map { i, r in
            SceneLayer(frame: Rect(10 + Double(i) * 75, 10, 60, 60), color: .white) { $0.cornerRadius = r }
        }
        // maskedCorners: top left only, bottom right only, both diagonals, none.
        let masks: [CornerMask] = [.minXMinY, .maxXMaxY, [.minXMinY, .maxXMaxY], []]
        let masked = masks.enumerated().map { i, m in
            SceneLayer(frame: Rect(10 + Double(i) * 75, 85, 60, 60), color: .white) {
                $0.cornerRadius = 20
                $0.maskedCorners = m
            }
        }
        // A rotated rounded rectangle: antialiasing follows the transform.
        let rotated = SceneLayer(frame: Rect(100, 170, 120, 40), color: rgb(255, 153, 0)) {
            $0.cornerRadius = 12
            $0.transform = .rotation(angle: .pi / 9)
        }
        let image = try render(layers + masked + [rotated], width: 310, height: 240)

        for (i, r) in radii.enumerated() {
            let radius = min(r, 30)
            let x0 = 10 + i * 75
            let expected = 3600 - (4 - Double.pi) * radius * radius
            let ink = image.ink(x: x0 - 2 ..< x0 + 62, y: 8 ..< 72)
            #expect(abs(ink - expected) < 1.5, "radius \(r): covered \(ink) px², the shape has \(expected)")
            // The middle of each flat edge is fully covered; the corner pixel only when square.
            if radius < 30 { #expect(Pixel(image, x0 + 30, 10) == Pixel(255, 255, 255)) }
            #expect(Pixel(image, x0, 10) == (radius == 0 ? Pixel(255, 255, 255) : Pixel(0, 0, 0)))
            if radius >= 12 {
                // Along the diagonal from the corner the coverage rises through grey levels.
                let levels = (0..<Int(radius)).map { Pixel(image, x0 + $0, 10 + $0).r }
                #expect(levels == levels.sorted(), "radius \(r): \(levels)")
                #expect(levels.contains { $0 > 20 && $0 < 235 }, "radius \(r): no antialiased pixel in \(levels)")
            }
        }
        for (i, m) in masks.enumerated() {
            let x0 = 10 + i * 75
            let cut = Double(m.rawValue.nonzeroBitCount) * (1 - Double.pi / 4) * 400
            let ink = image.ink(x: x0 - 2 ..< x0 + 62, y: 83 ..< 147)
            #expect(abs(ink - (3600 - cut)) < 1.5, "mask \(m.rawValue): covered \(ink) px²")
            #expect((Pixel(image, x0, 85).r == 0) == m.contains(.minXMinY))
            #expect((Pixel(image, x0 + 59, 144).r == 0) == m.contains(.maxXMaxY))
            #expect(Pixel(image, x0 + 59, 85).r == 255)
        }
        expectReference(image, "rounded-corners")
    }

    @Test("borders lie inside the bounds, follow the corners and draw above the sublayers")
    func borders() throws {
        let card = SceneLayer(frame: Rect(20, 20, 120, 80), color: .blue) {
            $0.cornerRadius = 20
            $0.borderWidth = 6
            $0.borderColor = .red
        }
        let ring = SceneLayer(frame: Rect(20, 120, 120, 80)) {
            $0.cornerRadius = 20
            $0.borderWidth = 6
            $0.borderColor = .white
        }
        let framed = SceneLayer(frame: Rect(160, 20, 40, 80), sublayers: [
            SceneLayer(frame: Rect(0, 0, 40, 80), color: .green),
        ]) {
            $0.borderWidth = 4
            $0.borderColor = .white
        }
        let image = try render([card, ring, framed], width: 220, height: 220)

        #expect(Pixel(image, 80, 22) == Pixel(255, 0, 0))
        #expect(Pixel(image, 80, 30) == Pixel(0, 0, 255))
        #expect(Pixel(image, 20, 20) == Pixel(0, 0, 0))
        // The inner corner has radius 20 − 6 about the same centre (40, 40).
        #expect(Pixel(image, 28, 28) == Pixel(255, 0, 0))
        #expect(Pixel(image, 34, 34) == Pixel(0, 0, 255))
        // The ring alone covers the outer rounded rectangle less the inner one.
        let outer = 120.0 * 80 - (4 - Double.pi) * 400, inner = 108.0 * 68 - (4 - Double.pi) * 196
        let ink = image.ink(x: 18 ..< 142, y: 118 ..< 202)
        #expect(abs(ink - (outer - inner)) < 1.5, "the ring covers \(ink) px², expected \(outer - inner)")
        // Core Animation draws the border over the sublayers.
        #expect(Pixel(image, 161, 60) == Pixel(255, 255, 255))
        #expect(Pixel(image, 180, 60) == Pixel(0, 255, 0))
        expectReference(image, "borders")
    }

    @Test("a layer that is not double-sided is culled, with its sublayers, when it faces away")
    func doubleSided() throws {
        let halfTurn = Transform3D.rotation(angle: .pi, x: 0, y: 1, z: 0)
        let culled = SceneLayer(frame: Rect(10, 10, 80, 80), color: .red, sublayers: [
            SceneLayer(frame: Rect(20, 20, 40, 40), color: .white),
        ]) {
            $0.transform = halfTurn
            $0.isDoubleSided = false
        }
        let shown = SceneLayer(frame: Rect(110, 10, 80, 80), color: .green) { $0.transform = halfTurn }
        // A mirror image is not a back face.
        let mirrored = SceneLayer(frame: Rect(210, 10, 80, 80), color: .blue) {
            $0.transform = .scale(x: -1, y: 1)
            $0.isDoubleSided = false
        }
        // Turned less than a quarter: still facing the viewer.
        let tilted = SceneLayer(frame: Rect(310, 10, 80, 80), color: .white) {
            $0.transform = .rotation(angle: .pi / 3, x: 0, y: 1, z: 0)
            $0.isDoubleSided = false
        }
        let image = try render([culled, shown, mirrored, tilted], width: 400, height: 100)
        #expect(Pixel(image, 50, 50) == Pixel(0, 0, 0))
        #expect(Pixel(image, 30, 30) == Pixel(0, 0, 0))
        #expect(Pixel(image, 150, 50) == Pixel(0, 255, 0))
        #expect(Pixel(image, 250, 50) == Pixel(0, 0, 255))
        #expect(Pixel(image, 350, 50) == Pixel(255, 255, 255))
    }

    @Test("a geometry-flipped layer puts its sublayers' origin at the bottom")
    func geometryFlipped() throws {
        let flipped = SceneLayer(frame: Rect(0, 0, 100, 100), color: gray, sublayers: [
            SceneLayer(frame: Rect(0, 0, 20, 20), color: .red),
            // y 60…80 measured up from the bottom: rows 20…40 on the display.
            SceneLayer(frame: Rect(60, 60, 20, 20), color: .green),
        ]) { $0.isGeometryFlipped = true }
        let upright = SceneLayer(frame: Rect(100, 0, 100, 100), color: gray, sublayers: [
            SceneLayer(frame: Rect(0, 0, 20, 20), color: .red),
        ])
        let image = try render([flipped, upright], width: 200, height: 100)
        #expect(Pixel(image, 10, 90) == Pixel(255, 0, 0))
        #expect(Pixel(image, 10, 10) == Pixel(64, 64, 64))
        #expect(Pixel(image, 70, 30) == Pixel(0, 255, 0))
        #expect(Pixel(image, 70, 70) == Pixel(64, 64, 64))
        #expect(Pixel(image, 110, 10) == Pixel(255, 0, 0))
        #expect(Pixel(image, 110, 90) == Pixel(64, 64, 64))
    }

    @Test("group opacity composites a translucent subtree once; without it overlaps show through")
    func groupOpacity() throws {
        func pair(y: Double, group: Bool) -> SceneLayer {
            SceneLayer(frame: Rect(0, y, 120, 60), sublayers: [
                SceneLayer(frame: Rect(10, 10, 60, 40), color: .red),
                SceneLayer(frame: Rect(50, 10, 60, 40), color: .green),
            ]) {
                $0.opacity = 0.5
                $0.allowsGroupOpacity = group
            }
        }
        let image = try render([pair(y: 0, group: true), pair(y: 60, group: false)], width: 120, height: 120)
        // As one group: the green sublayer hides the red one, then the whole fades.
        #expect(Pixel(image, 30, 30).isClose(to: Pixel(128, 0, 0), tolerance: 1), "\(Pixel(image, 30, 30))")
        #expect(Pixel(image, 60, 30).isClose(to: Pixel(0, 128, 0), tolerance: 1), "\(Pixel(image, 60, 30))")
        #expect(Pixel(image, 90, 30).isClose(to: Pixel(0, 128, 0), tolerance: 1), "\(Pixel(image, 90, 30))")
        #expect(Pixel(image, 5, 5) == Pixel(0, 0, 0))
        // Each sublayer faded on its own: red shows through the green.
        #expect(Pixel(image, 60, 90).isClose(to: Pixel(64, 128, 0), tolerance: 1), "\(Pixel(image, 60, 90))")
        #expect(Pixel(image, 30, 90).isClose(to: Pixel(128, 0, 0), tolerance: 1), "\(Pixel(image, 30, 90))")
        expectReference(image, "group-opacity")
    }

    @Test("masksToBounds clips sublayers to the rounded bounds, nested and rotated")
    func nestedMasksToBounds() throws {
        let inner = SceneLayer(frame: Rect(80, 80, 80, 80), color: .blue, sublayers: [
            // A band through the middle, wider than its superlayer.
            SceneLayer(frame: Rect(-40, 30, 160, 20), color: rgb(255, 255, 0)),
        ]) {
            $0.masksToBounds = true
            $0.transform = .rotation(angle: .pi / 4)
        }
        let outer = SceneLayer(frame: Rect(20, 20, 160, 160), color: gray, sublayers: [
            SceneLayer(frame: Rect(-20, -20, 100, 100), color: .red),
            inner,
        ]) {
            $0.cornerRadius = 40
            $0.masksToBounds = true
        }
        let image = try render([outer], width: 200, height: 200)
        // The red sublayer is cut by the outer corner.
        #expect(Pixel(image, 25, 25) == Pixel(0, 0, 0))
        #expect(Pixel(image, 70, 70) == Pixel(255, 0, 0))
        #expect(Pixel(image, 21, 100) == Pixel(255, 0, 0) || Pixel(image, 21, 100) == Pixel(64, 64, 64))
        #expect(Pixel(image, 19, 60) == Pixel(0, 0, 0))
        // The yellow band runs along the inner layer's x axis (45° on screen) and stops at its
        // rotated edge, 40 points from its centre (140, 140).
        #expect(Pixel(image, 140, 140) == Pixel(255, 255, 0))
        #expect(Pixel(image, 119, 119) == Pixel(255, 255, 0))
        #expect(Pixel(image, 108, 108) == Pixel(64, 64, 64))
        // Beyond the inner layer's corner and the outer's rounded corner: nothing.
        #expect(Pixel(image, 175, 175) == Pixel(0, 0, 0))
        expectReference(image, "nested-masks-to-bounds")
    }

    @Test("shadows are Gaussian with sigma = radius/2, from the shape or from composited pixels alike")
    func shadows() throws {
        func caster(x: Double, withSublayer: Bool, masks: Bool = false) -> SceneLayer {
            SceneLayer(frame: Rect(x, 30, 60, 60), color: .blue,
                       sublayers: withSublayer ? [SceneLayer(frame: Rect(20, 20, 20, 20), color: .red)] : []) {
                $0.shadowOpacity = 1
                $0.shadowRadius = 8
                $0.shadowOffset = Size(0, 10)
                $0.masksToBounds = masks
            }
        }
        // A leaf uses the analytic shape shadow; one with a sublayer blurs its pixels offscreen.
        let image = try render([caster(x: 30, withSublayer: false), caster(x: 120, withSublayer: true),
                                caster(x: 220, withSublayer: true, masks: true)],
                               width: 300, height: 130, background: .white)
        // Below the shadow's edge (y = 100) the intensity follows the normal CDF, sigma 4:
        // pixel centres 0.5, 4.5 and 8.5 points past the edge.
        func expected(_ past: Double) -> Int {
            Int((255 * (1 - 0.5 * erfc(past / (4 * 2.0.squareRoot())))).rounded())
        }
        for x in [60, 150] {
            for (y, past) in [(100, 0.5), (104, 4.5), (108, 8.5), (96, -3.5)] {
                let got = Pixel(image, x, y).r
                #expect(abs(got - expected(past)) <= 4, "x \(x), y \(y): \(got), expected \(expected(past))")
            }
            #expect(Pixel(image, x, 125) == Pixel(255, 255, 255))
            #expect(Pixel(image, x - 20, 50) == Pixel(0, 0, 255))
        }
        #expect(Pixel(image, 150, 60) == Pixel(255, 0, 0))
        // Both ways give the same shadow.
        for y in 88 ..< 128 {
            for dx in -35 ... 35 {
                let a = Pixel(image, 60 + dx, y), b = Pixel(image, 150 + dx, y)
                #expect(a.isClose(to: b, tolerance: 5), "(\(60 + dx), \(y)) \(a) against (\(150 + dx), \(y)) \(b)")
            }
        }
        // masksToBounds clips a layer's own shadow away.
        #expect(Pixel(image, 250, 100) == Pixel(255, 255, 255))
        expectReference(image, "shadows")
    }

    @Test("wide shadows of composited pixels, blurred at a half, a quarter and an eighth of the resolution, stay Gaussian",
          arguments: [12.0, 16.0, 24.0, 32.0, 40.0, 64.0, 80.0])
    func wideShadows(radius: Double) throws {
        // σ = radius / 2: 6 is blurred at a half, 8 and 12 at a quarter, 16, 20 and 32 at an
        // eighth, 40 there with the general program's taps (`GLESRenderer.shadowFactor`,
        // `RendererPrograms.narrowBlurs`).
        let sigma = radius / 2
        func caster(x: Double, withSublayer: Bool) -> SceneLayer {
            SceneLayer(frame: Rect(x, 40, 120, 120), color: .blue,
                       sublayers: withSublayer ? [SceneLayer(frame: Rect(40, 40, 40, 40), color: .red)] : []) {
                $0.shadowOpacity = 1
                $0.shadowRadius = radius
                $0.shadowOffset = Size(0, 20)
            }
        }
        // The leaf's shadow is the analytic one; the other's is its pixels blurred.
        let image = try render([caster(x: 40, withSublayer: false), caster(x: 340, withSublayer: true)],
                               width: 520, height: 300, background: .white)
        // Below the shadow's edge (y = 180) the intensity follows the normal CDF (while σ ≤ 20:
        // past that the shadow's sides, 60 points away, darken the middle column less).
        func expected(_ past: Double) -> Int {
            Int((255 * (1 - 0.5 * erfc(past / (sigma * 2.0.squareRoot())))).rounded())
        }
        for x in [100, 400] where sigma <= 20 {
            for y in stride(from: 160, to: 300, by: 4) {
                let past = Double(y) + 0.5 - 180
                let got = Pixel(image, x, y).r
                #expect(abs(got - expected(past)) <= 4, "radius \(radius), x \(x), y \(y): \(got), expected \(expected(past))")
            }
        }
        #expect(Pixel(image, 400, 100) == Pixel(255, 0, 0))
        // Both ways give the same shadow, around the corners too.
        for y in stride(from: 150, to: 300, by: 2) {
            for dx in stride(from: -100, through: 100, by: 2) {
                let a = Pixel(image, 100 + dx, y), b = Pixel(image, 400 + dx, y)
                #expect(a.isClose(to: b, tolerance: 5), "radius \(radius): (\(100 + dx), \(y)) \(a) against (\(400 + dx), \(y)) \(b)")
            }
        }
    }
}
