import Glibc
import LaminaCore
import LaminaCompositor
import Testing

/// Mask layers, shadow paths, replicator layers and transform layers, drawn by the GLES
/// renderer from trees built by the server.
@Suite("Masks, shadow paths, replicators and transform layers")
struct LooksTests {
    @Test("a mask's composited alpha masks the layer's whole subtree, with the mask's own transform and opacity")
    func masks() throws {
        // A blue square with a red sublayer, masked by a circle.
        let circle = SceneLayer(frame: Rect(0, 0, 100, 100), color: .white) { $0.cornerRadius = 50 }
        let round = SceneLayer(frame: Rect(10, 10, 100, 100), color: .blue, sublayers: [
            SceneLayer(frame: Rect(50, 50, 60, 60), color: .red),
        ], mask: circle)
        // A green square masked by a 60×20 bar turned 45° about its centre (50, 50): the mask's
        // own transform.
        let bar = SceneLayer(frame: Rect(20, 40, 60, 20), color: .white) { $0.transform = .rotation(angle: .pi / 4) }
        let turned = SceneLayer(frame: Rect(120, 10, 100, 100), color: .green, mask: bar)
        // A white square masked by an opaque layer at opacity 0.5, itself at opacity 0.5 in a
        // translucent superlayer: alpha 0.5 × 0.5.
        let half = SceneLayer(frame: Rect(0, 0, 60, 60), color: .white) { $0.opacity = 0.5 }
        let faded = SceneLayer(frame: Rect(230, 10, 60, 60), color: .white, mask: half) { $0.opacity = 0.5 }
        // A mask that draws nothing hides the layer.
        let empty = SceneLayer(frame: Rect(0, 0, 60, 60))
        let hidden = SceneLayer(frame: Rect(230, 80, 60, 30), color: .white, mask: empty)
        let image = try render([round, turned, faded, hidden], width: 300, height: 120)

        #expect(Pixel(image, 12, 12) == Pixel(0, 0, 0))       // outside the circle
        #expect(Pixel(image, 40, 40) == Pixel(0, 0, 255))     // inside: the layer
        #expect(Pixel(image, 80, 80) == Pixel(255, 0, 0))     // inside: the sublayer
        #expect(Pixel(image, 104, 104) == Pixel(0, 0, 0))     // the sublayer's corner, cut
        #expect(Pixel(image, 98, 30) == Pixel(0, 0, 255))    // the circle's edge is at x ≈ 100.4 on this row
        #expect(Pixel(image, 103, 30) == Pixel(0, 0, 0))

        // The bar runs along the diagonal from (120+29, 10+29) to (120+71, 10+71).
        #expect(Pixel(image, 170, 60) == Pixel(0, 255, 0))
        #expect(Pixel(image, 120 + 65, 10 + 65) == Pixel(0, 255, 0))
        #expect(Pixel(image, 120 + 35, 10 + 35) == Pixel(0, 255, 0))
        #expect(Pixel(image, 120 + 65, 10 + 35) == Pixel(0, 0, 0))
        #expect(Pixel(image, 120 + 80, 10 + 50) == Pixel(0, 0, 0))  // unrotated, the bar would reach here
        #expect(Pixel(image, 122, 12) == Pixel(0, 0, 0))

        #expect(Pixel(image, 260, 40).isClose(to: Pixel(64, 64, 64), tolerance: 1), "\(Pixel(image, 260, 40))")
        #expect(Pixel(image, 260, 95) == Pixel(0, 0, 0))
        expectReference(image, "masks")
    }

    @Test("a mask with its own transform: the offscreen mask and the clip fast path draw the same pixels")
    func maskPathsAgree() throws {
        func masked(sublayer: Bool) -> SceneLayer {
            let bar = SceneLayer(frame: Rect(10, 35, 80, 30), color: Color(red: 1, green: 1, blue: 1, alpha: 0.8)) {
                $0.transform = .rotation(angle: .pi / 6).concatenating(.scale(x: 1.2, y: 1))
                $0.cornerRadius = 10
            }
            // A sublayer that draws nothing visible still makes the layer take the offscreen path.
            let subs = sublayer ? [SceneLayer(frame: Rect(0, 0, 1, 1), color: Color(red: 0, green: 0, blue: 0, alpha: 0.004))] : []
            return SceneLayer(frame: Rect(10, 10, 100, 100), color: .green, sublayers: subs, mask: bar) {
                $0.transform = .rotation(angle: -0.2)
            }
        }
        let fast = try drawList([masked(sublayer: false)], width: 120, height: 120, background: .black)
        let offscreen = try drawList([masked(sublayer: true)], width: 120, height: 120, background: .black)
        #expect(fast.commands.map(\.kind) == [.beginGroup, .pushClip, .layer, .popClip, .endGroup])
        #expect(offscreen.commands.contains { $0.kind == .beginMask } && offscreen.commands.last?.kind == .endMask)
        let a = try render([masked(sublayer: false)], width: 120, height: 120)
        let b = try render([masked(sublayer: true)], width: 120, height: 120)
        var worst = 0
        for y in 0..<120 { for x in 0..<120 { worst = max(worst, abs(Pixel(a, x, y).g - Pixel(b, x, y).g)) } }
        #expect(worst <= 3, "the two paths differ by up to \(worst)")
        // The bar's middle shows green at 0.8; its ends are cut along the turned, rounded bar.
        #expect(Pixel(b, 60, 60).isClose(to: Pixel(0, 204, 0), tolerance: 1), "\(Pixel(b, 60, 60))")
        #expect(Pixel(b, 20, 20) == Pixel(0, 0, 0))
        expectReference(b, "mask-transformed")
    }

    @Test("a shadowPath casts the path's shadow: a rounded layer's shadow with and without it, and a path unlike the layer")
    func shadowPaths() throws {
        func caster(x: Double, path: Path?, sublayer: Bool = false) -> SceneLayer {
            SceneLayer(frame: Rect(x, 20, 60, 60), color: .blue,
                       sublayers: sublayer ? [SceneLayer(frame: Rect(20, 20, 20, 20), color: .red)] : []) {
                $0.cornerRadius = 20
                $0.shadowOpacity = 1
                $0.shadowRadius = 8
                $0.shadowOffset = Size(0, 10)
                if let path { $0.shadowPath = path }
            }
        }
        let rounded = Path(roundedRect: Rect(0, 0, 60, 60), cornerRadius: 20)
        // A ground shadow: an ellipse under the layer, nothing like its shape.
        let ground = Path(ellipseIn: Rect(-10, 50, 80, 20))
        let layers = [caster(x: 20, path: nil), caster(x: 120, path: rounded, sublayer: true), caster(x: 220, path: ground)]
        // The path shadow needs no offscreen copy of the layer: no group in the list.
        let list = try drawList(layers, width: 310, height: 130, background: .white)
        #expect(!list.commands.contains { $0.kind == .beginGroup })
        #expect(list.commands.filter { $0.kind == .pathShadow }.count == 2)
        let image = try render(layers, width: 310, height: 130, background: .white)

        // With and without the path, the same shadow (the sublayer is inside the shape).
        var worst = 0
        for y in 0 ..< 130 {
            for dx in -20 ..< 80 {
                let a = Pixel(image, 20 + dx, y), b = Pixel(image, 120 + dx, y)
                if dx >= 20, dx < 40, y >= 40, y < 60 { continue }  // the red sublayer
                worst = max(worst, abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
            }
        }
        #expect(worst <= 8, "the path shadow differs from the shape shadow by up to \(worst)")
        // Below the edge (y = 90) the shadow follows the normal CDF, sigma 4.
        func expected(_ past: Double) -> Int { Int((255 * (1 - 0.5 * erfc(past / (4 * 2.0.squareRoot())))).rounded()) }
        for (y, past) in [(90, 0.5), (94, 4.5), (98, 8.5)] {
            #expect(abs(Pixel(image, 150, y).r - expected(past)) <= 6, "y \(y): \(Pixel(image, 150, y)), expected \(expected(past))")
        }
        // The ground shadow: darkest under the middle at the ellipse's centre (250, 20+60+10),
        // nothing where the layer's own shape would have cast one beside it.
        #expect(Pixel(image, 250, 90).r < 120, "\(Pixel(image, 250, 90))")
        #expect(Pixel(image, 214, 40) == Pixel(255, 255, 255))
        #expect(Pixel(image, 250, 112) == Pixel(255, 255, 255))
        expectReference(image, "shadow-paths", tolerance: 4)
    }

    @Test("a replicator draws instanceCount copies through instanceTransform^k about its anchor, tinted by instanceColor plus offsets")
    func replicators() throws {
        // Five copies stepping 40 points right; red falls by 0.2 and blue by 0.25 per copy.
        let row = SceneLayer(.replicator, frame: Rect(10, 10, 200, 30), sublayers: [
            SceneLayer(frame: Rect(0, 0, 30, 30), color: .white),
        ]) {
            $0.instanceCount = 5
            $0.instanceTransform = .translation(x: 40, y: 0)
            $0.instanceRedOffset = -0.2
            $0.instanceBlueOffset = -0.25
        }
        // Four copies turned 90° each about the replicator's centre (60, 100 + 40): a square
        // at the top, then right, bottom and left. instanceColor tints all of them.
        let ring = SceneLayer(.replicator, frame: Rect(20, 60, 80, 80), sublayers: [
            SceneLayer(frame: Rect(30, 0, 20, 20), color: .white),
        ]) {
            $0.instanceCount = 4
            $0.instanceTransform = .rotation(angle: .pi / 2)
            $0.instanceColor = Color(red: 1, green: 1, blue: 0)
        }
        // Alpha offsets clamp: the third copy has alpha 1 − 2 × 0.6 < 0, so is not drawn.
        let fading = SceneLayer(.replicator, frame: Rect(120, 60, 120, 30), sublayers: [
            SceneLayer(frame: Rect(0, 0, 30, 30), color: .white),
        ]) {
            $0.instanceCount = 3
            $0.instanceTransform = .translation(x: 40, y: 0)
            $0.instanceAlphaOffset = -0.6
        }
        let none = SceneLayer(.replicator, frame: Rect(120, 110, 60, 30), sublayers: [
            SceneLayer(frame: Rect(0, 0, 30, 30), color: .white),
        ]) { $0.instanceCount = 0 }
        let image = try render([row, ring, fading, none], width: 250, height: 150)

        for k in 0..<5 {
            let expected = Pixel(Int((255 * (1 - 0.2 * Double(k))).rounded()), 255, Int((255 * (1 - 0.25 * Double(k))).rounded()))
            #expect(Pixel(image, 25 + 40 * k, 25).isClose(to: expected, tolerance: 1), "copy \(k): \(Pixel(image, 25 + 40 * k, 25))")
        }
        #expect(Pixel(image, 10 + 35, 25) == Pixel(0, 0, 0))
        for (x, y) in [(60, 70), (90, 100), (60, 130), (30, 100)] {
            #expect(Pixel(image, x, y) == Pixel(255, 255, 0), "(\(x), \(y))")
        }
        #expect(Pixel(image, 60, 100) == Pixel(0, 0, 0))
        #expect(Pixel(image, 135, 75) == Pixel(255, 255, 255))
        #expect(Pixel(image, 175, 75).isClose(to: Pixel(102, 102, 102), tolerance: 1), "\(Pixel(image, 175, 75))")
        #expect(Pixel(image, 215, 75) == Pixel(0, 0, 0))
        #expect(Pixel(image, 135, 125) == Pixel(0, 0, 0))
        expectReference(image, "replicators")
    }

    @Test("a transform layer's sublayers share its 3D space: a card flip shows its front or its back face, and depth sorts")
    func transformLayers() throws {
        // A card: front red, back blue turned half a turn about y; neither double-sided. The
        // transform layer turns the card by `angle` about y under a perspective of 500.
        func card(x: Double, angle: Double) -> SceneLayer {
            let front = SceneLayer(frame: Rect(0, 0, 60, 80), color: .red) { $0.isDoubleSided = false }
            let back = SceneLayer(frame: Rect(0, 0, 60, 80), color: .blue, sublayers: [
                // A mark on the back's left edge, which appears on screen-left once flipped.
                SceneLayer(frame: Rect(0, 0, 10, 80), color: .white),
            ]) {
                $0.isDoubleSided = false
                $0.transform = .rotation(angle: .pi, x: 0, y: 1, z: 0)
            }
            let flip = SceneLayer(.transform, frame: Rect(10, 10, 60, 80), color: rgb(255, 255, 0), sublayers: [front, back]) {
                $0.transform = .rotation(angle: angle, x: 0, y: 1, z: 0)
                $0.borderWidth = 2
                $0.borderColor = .green
            }
            var perspective = Transform3D.identity
            perspective.m34 = -1.0 / 500
            return SceneLayer(frame: Rect(x, 0, 80, 100), sublayers: [flip]) { $0.sublayerTransform = perspective }
        }
        // Depth sorting: zPosition −10 green drawn over zPosition +10 red once turned around.
        let turned = SceneLayer(.transform, frame: Rect(340, 10, 60, 80), sublayers: [
            SceneLayer(frame: Rect(0, 0, 40, 40), color: .green) { $0.zPosition = -10 },
            SceneLayer(frame: Rect(20, 20, 40, 40), color: .red) { $0.zPosition = 10 },
        ]) { $0.transform = .rotation(angle: .pi, x: 0, y: 1, z: 0) }
        // The same two in an ordinary layer: flattened, zPosition order, red on top.
        let flat = SceneLayer(frame: Rect(410, 10, 60, 80), sublayers: [
            SceneLayer(frame: Rect(0, 0, 40, 40), color: .green) { $0.zPosition = -10 },
            SceneLayer(frame: Rect(20, 20, 40, 40), color: .red) { $0.zPosition = 10 },
        ]) { $0.transform = .rotation(angle: .pi, x: 0, y: 1, z: 0) }
        let image = try render([card(x: 0, angle: 0), card(x: 80, angle: .pi / 3), card(x: 160, angle: 2 * .pi / 3),
                                card(x: 240, angle: .pi), turned, flat], width: 480, height: 100)
        // Unturned: the front; the transform layer's own background and border are not drawn.
        #expect(Pixel(image, 40, 50) == Pixel(255, 0, 0))
        #expect(Pixel(image, 11, 50) == Pixel(255, 0, 0))
        // A third of a turn: still the front, foreshortened; two thirds: the back.
        #expect(Pixel(image, 120, 50) == Pixel(255, 0, 0))
        #expect(Pixel(image, 200, 50) == Pixel(0, 0, 255))
        // Half a turn: the back, its left-edge mark on screen-left, the front hidden.
        #expect(Pixel(image, 280, 50) == Pixel(0, 0, 255))
        #expect(Pixel(image, 252, 50) == Pixel(255, 255, 255))
        #expect(Pixel(image, 296, 50) == Pixel(0, 0, 255))
        // Depth sorted: the overlap (in the middle) is green in the transform layer, red when flat.
        #expect(Pixel(image, 370, 40) == Pixel(0, 255, 0))
        #expect(Pixel(image, 440, 40) == Pixel(255, 0, 0))
        expectReference(image, "transform-layers")
    }
}
