import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// Draws hidden by an opaque layer drawn later are skipped (`Occlusion`): the pixels must be
/// the ones drawn with everything, and the skipping must really happen.
@Suite("Occlusion")
struct OcclusionTests {
    /// Opaque and translucent panels, rounded and square, turned and straight, with shadows,
    /// group opacity, clips and borders, stacked so that many are partly or wholly hidden.
    static func stackedScene(seed start: UInt64) throws -> DrawList {
        try drawList(try stackedLayers(seed: start), width: 400, height: 300, background: rgb(10, 10, 20))
    }

    static func stackedLayers(seed start: UInt64) throws -> [SceneLayer] {
        var seed = start
        func next(_ range: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * range
        }
        var layers: [SceneLayer] = []
        for i in 0..<36 {
            let w = 30 + next(200), h = 30 + next(150)
            let opaque = i % 3 != 2
            let sub = i % 5 == 0 ? [SceneLayer(frame: Rect(8, 8, w / 2, h / 2), color: rgb(250, 250, 40, 200))] : []
            layers.append(SceneLayer(frame: Rect(next(300), next(200), w, h), color: rgb(40 + i * 5, 120, 255 - i * 6, opaque ? 255 : 150),
                                     sublayers: sub) {
                $0.cornerRadius = [0, 6, 20, 0.5][i % 4]
                // Continuous corners reach 1.53 radii along the edges: a cover is that much smaller.
                if i % 8 == 2 { $0.cornerCurve = .continuous }
                if i % 4 == 1 { $0.borderWidth = 3; $0.borderColor = rgb(255, 255, 255) }
                if i % 7 == 3 { $0.transform = .rotation(angle: 0.3) }
                if i % 6 == 4 { $0.shadowOpacity = 0.8; $0.shadowRadius = 6; $0.shadowOffset = Size(width: 3, height: 4) }
                if i % 8 == 5 { $0.opacity = 0.7 }          // a translucent group: never a cover
                if i % 9 == 2, !sub.isEmpty { $0.masksToBounds = true }
            })
        }
        // A full-screen opaque card on top of the first half, then more on top of it.
        layers.insert(SceneLayer(frame: Rect(0, 0, 400, 300), color: rgb(20, 40, 60)), at: 18)
        return layers
    }

    @Test("skipping hidden draws leaves the pixels of a full draw", arguments: [UInt64(1), 2, 3])
    func samePixels(seed: UInt64) throws {
        let list = try Self.stackedScene(seed: seed)
        let backend = try HeadlessDisplay(width: 400, height: 300)
        backend.damageTracking = false
        let before = backend.renderer.occludedDraws
        try backend.present(list)
        let occluded = try backend.screenshot()
        let skipped = backend.renderer.occludedDraws - before
        #expect(skipped >= 10, "draws under the full-screen card are skipped (\(skipped))")
        backend.renderer.occlusionEnabled = false
        try backend.present(list)
        let full = try backend.screenshot()
        let d = occluded.difference(from: full), (worst, differing) = (d.worst, d.differing)
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
    }

    /// A frosted panel: an opaque card drawn after it hides what lies under the card, but not
    /// from the panel's blur, which reads before the card is drawn. A bright bar under the
    /// card's edge, inside the blur's reach, is drawn, and its glow shows in the panel past the
    /// card; a bar under the card away from the panel is skipped. The pixels are those of a
    /// full draw.
    @Test("covers after a backdrop do not hide what it reads")
    func backdropsReadWhatCoversHideLater() throws {
        let layers = [
            SceneLayer(frame: Rect(0, 0, 400, 300), color: rgb(20, 40, 60)),
            SceneLayer(frame: Rect(168, 100, 12, 60), color: rgb(255, 255, 255)),   // read by the panel
            SceneLayer(frame: Rect(20, 240, 12, 40), color: rgb(255, 255, 0)),       // far from it
            SceneLayer(frame: Rect(120, 80, 160, 120), color: rgb(255, 255, 255, 60)) {
                $0.backgroundFilters = [.gaussianBlur("frost", radius: 30)]
            },
            SceneLayer(frame: Rect(10, 60, 180, 230), color: rgb(200, 30, 30)),
        ]
        let list = try drawList(layers, width: 400, height: 300, background: rgb(10, 10, 20))
        let backend = try HeadlessDisplay(width: 400, height: 300)
        backend.damageTracking = false
        // Each frame filters its backdrop again: the second must not reuse the first one's.
        backend.renderer.cachesBackdrops = false
        let before = backend.renderer.occludedDraws
        try backend.present(list)
        let occluded = try backend.screenshot()
        let skipped = backend.renderer.occludedDraws - before
        #expect(skipped == 1, "the far bar is skipped, the read one is not: \(skipped) skipped")
        backend.renderer.occlusionEnabled = false
        try backend.present(list)
        let d = occluded.difference(from: try backend.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
    }

    /// Barriers bound the cost: with more backdrops than `maximumBarriers` nothing is skipped.
    @Test("past maximumBarriers backdrops a frame skips nothing")
    func tooManyBarriersTurnCullingOff() throws {
        let commands = try Self.stackedScene(seed: 1).commands
        let box = PixelBox(x0: 0, y0: 0, x1: 4, y1: 4)
        var o = Occlusion()
        o.measure(commands, reads: (0..<Occlusion.maximumBarriers).map { (index: $0, box: box) })
        #expect(!o.covers.isEmpty)
        o.measure(commands, reads: (0...Occlusion.maximumBarriers).map { (index: $0, box: box) })
        #expect(o.covers.isEmpty)
    }

    /// With damage, a box inside an opaque panel draws only the panel and what lies on it.
    @Test("a damage box inside an opaque panel skips everything below the panel")
    func damageInsidePanel() throws {
        var layers: [SceneLayer] = (0..<20).map { i in
            SceneLayer(frame: Rect(Double(i * 10), Double(i * 7), 120, 90), color: rgb(200, 60 + i * 8, 40, 180)) { $0.cornerRadius = 8 }
        }
        layers.append(SceneLayer(frame: Rect(50, 40, 300, 200), color: rgb(30, 30, 30)) { $0.cornerRadius = 12; $0.borderWidth = 2; $0.borderColor = .white })
        let square = SceneLayer(frame: Rect(150, 100, 40, 40), color: rgb(0, 200, 255))
        layers.append(square)
        let backend = try HeadlessDisplay(width: 400, height: 300, buffers: 1)
        try backend.present(try drawList(layers, width: 400, height: 300, background: .black))
        // The square moves a little: the damage lies inside the panel.
        layers[layers.count - 1] = SceneLayer(frame: Rect(160, 104, 40, 40), color: rgb(0, 200, 255))
        let before = backend.renderer.occludedDraws
        let moved = try drawList(layers, width: 400, height: 300, background: .black)
        try backend.present(moved)
        #expect(backend.renderer.occludedDraws - before >= 1, "the layers under the panel were skipped")
        let partial = try backend.screenshot()
        let whole = try HeadlessDisplay(width: 400, height: 300)
        whole.damageTracking = false
        whole.renderer.occlusionEnabled = false
        try whole.present(moved)
        let d = partial.difference(from: try whole.screenshot()), (worst, differing) = (d.worst, d.differing)
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
    }

    /// A damage box that an opaque layer covers draws no clear (on llvmpipe a scissored clear is
    /// a drawn quad): the background is a plain layer or an opaque gradient; a square moves over
    /// it, and the pixels are those of a full draw. Over a translucent background the clear stays.
    @Test("a damage box under an opaque background draws no clear", arguments: ["plain", "gradient", "translucent"])
    func coveredDamageDrawsNoClear(background: String) throws {
        let frame = Rect(0, 0, 400, 300)
        let back: SceneLayer = switch background {
        case "plain": SceneLayer(frame: frame, color: rgb(30, 60, 90))
        case "gradient": SceneLayer(.gradient, frame: frame, color: .clear) {
            $0.colors = [rgb(200, 40, 40), rgb(40, 40, 200)]
            $0.startPoint = Point(x: 0, y: 0)
            $0.endPoint = Point(x: 1, y: 1)
        }
        default: SceneLayer(frame: frame, color: rgb(30, 60, 90, 200))
        }
        func scene(_ x: Double) throws -> DrawList {
            try drawList([back, SceneLayer(frame: Rect(x, 100, 60, 40), color: rgb(0, 200, 255)) { $0.cornerRadius = 8 }],
                         width: 400, height: 300, background: rgb(250, 0, 250))
        }
        let backend = try HeadlessDisplay(width: 400, height: 300, buffers: 1)
        try backend.present(try scene(100))
        let before = backend.renderer.skippedClears
        try backend.present(try scene(130))
        let skipped = backend.renderer.skippedClears - before
        #expect(skipped == (background == "translucent" ? 0 : 1), "\(background): \(skipped) clears skipped")
        let whole = try HeadlessDisplay(width: 400, height: 300)
        whole.damageTracking = false
        try whole.present(try scene(130))
        let d = try backend.screenshot().difference(from: try whole.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
    }

    /// An image behind a moving square, opaque by the layer's promise (`isOpaque`) or by its
    /// pixels (every alpha read as 255): its damage box draws no clear, nor anything under the
    /// image, and the pixels are those of a full draw; the same image with one transparent
    /// pixel and no promise keeps the clear.
    @Test("a damage box under opaque contents draws no clear", arguments: ["promised", "read", "holed"])
    func coveredByContents(opacity: String) throws {
        let promised = opacity == "promised", holed = opacity == "holed"
        let stage = try ContentsStage(width: 400, height: 300, background: rgb(250, 0, 250))
        var image = TestImage.quadrants(width: 40, height: 30)
        if holed { image.bytes.replaceSubrange((15 * 40 + 20) * 4 ..< (15 * 40 + 21) * 4, with: [0, 0, 0, 0]) }
        try stage.add(image: 1, image)
        try stage.add([
            contentsLayer(Rect(0, 0, 400, 300), image: 1, color: .clear) { $0.isOpaque = promised; $0.cornerRadius = 20; $0.masksToBounds = true },
            SceneLayer(frame: Rect(100, 100, 60, 40), color: rgb(0, 200, 255)) { $0.cornerRadius = 8 },
        ])
        _ = try stage.render()
        let before = stage.backend.renderer.skippedClears
        try stage.apply([.set(LayerID(rawValue: 2), .position, .point(Point(x: 160, y: 130)))])
        let partial = try stage.render()
        let skipped = stage.backend.renderer.skippedClears - before
        #expect(skipped == (holed ? 0 : 1), "\(opacity): \(skipped) clears skipped")
        let whole = try HeadlessDisplay(width: 400, height: 300)
        whole.damageTracking = false
        try whole.present(stage.display.drawList())
        let d = partial.difference(from: try whole.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
    }

    @Test("contents covers: taken as opaque, within the destination and the rounded clip")
    func contentsCovers() {
        let image = ImageSource(bitmap: Bitmap(width: 4, height: 4))
        func contents(_ destination: Rect, opaque: Bool, clip: (rect: Rect, radii: CornerRadii)? = nil) -> DrawCommand {
            var d = DrawCommand(kind: .contents, transform: .identity, bounds: Rect(0, 0, 200, 200), color: .clear, opacity: 1)
            d.contents = DrawContents(source: image, destination: destination, isOpaque: opaque, clip: clip)
            return d
        }
        let round = CornerRadii(minXMinY: 10, maxXMinY: 10, maxXMaxY: 10, minXMaxY: 10)
        var o = Occlusion()
        o.measure([
            contents(Rect(0, 0, 100, 100), opaque: true),                                // 0: 1…99
            contents(Rect(0, 0, 100, 100), opaque: false),                               // may be translucent
            contents(Rect(0, 0, 100, 100), opaque: true, clip: (Rect(50, 20, 100, 100), round)),  // 2: 61…89, 31…89
        ])
        #expect(o.covers.map(\.index) == [0, 2])
        #expect(o.covers.first?.box == PixelBox(x0: 1, y0: 1, x1: 99, y1: 99))
        #expect(o.covers.last?.box == PixelBox(x0: 61, y0: 31, x1: 89, y1: 89))
        // A picture without alpha (a video frame) covers without the layer's promise.
        image.pixelsAreOpaque = true
        o.measure([contents(Rect(0, 0, 100, 100), opaque: false)])
        #expect(o.covers.map(\.index) == [0])
        // Not where the renderer cannot draw it (no texture made yet, or none can be).
        o.measure([contents(Rect(0, 0, 100, 100), opaque: true),
                   DrawCommand(kind: .layer, transform: .identity, bounds: Rect(0, 0, 50, 50), color: .white, opacity: 1)],
                  drawable: { $0.kind != .contents })
        #expect(o.covers.map(\.index) == [1])
    }

    @Test("gradient covers: every colour opaque, opacity 1")
    func gradientCovers() {
        func gradient(_ colors: [Color], opacity: Double = 1) -> DrawCommand {
            var d = DrawCommand(kind: .gradient, transform: .identity, bounds: Rect(0, 0, 100, 100), color: .clear, opacity: opacity)
            d.gradient = DrawGradient(type: .axial, colors: colors, locations: [0, 1], start: Point(x: 0, y: 0), end: Point(x: 0, y: 1))
            return d
        }
        var o = Occlusion()
        o.measure([
            gradient([.white, .black]),                                            // 0: a cover
            gradient([.white, Color(red: 0, green: 0, blue: 0, alpha: 0.5)]),     // a translucent end
            gradient([.white, .black], opacity: 0.9),                              // faded
        ])
        #expect(o.covers.map(\.index) == [0])
        #expect(o.covers.first?.box == PixelBox(x0: 1, y0: 1, x1: 99, y1: 99))
    }

    @Test("covers: only opaque, straight layers outside groups and clips, less corners and a pixel")
    func covers() {
        func layer(_ r: Rect, _ c: Color, opacity: Double = 1, radius: Double = 0, transform: Transform3D = .identity) -> DrawCommand {
            var d = DrawCommand(kind: .layer, transform: transform, bounds: r, color: c, opacity: opacity)
            d.cornerRadii = CornerRadii(minXMinY: radius, maxXMinY: radius, maxXMaxY: radius, minXMaxY: radius)
            return d
        }
        var o = Occlusion()
        o.measure([
            layer(Rect(0, 0, 100, 100), .white),                                   // 0: a cover (1…99)
            layer(Rect(0, 0, 100, 100), Color(red: 1, green: 1, blue: 1, alpha: 0.5)),  // translucent
            layer(Rect(0, 0, 100, 100), .white, opacity: 0.9),                     // faded
            layer(Rect(0, 0, 100, 100), .white, transform: .rotation(angle: 0.1)),  // turned
            DrawCommand(kind: .pushClip, transform: .identity, bounds: Rect(0, 0, 50, 50), color: .clear, opacity: 1),
            layer(Rect(0, 0, 100, 100), .white),                                   // 5: clipped
            DrawCommand(kind: .popClip, transform: .identity, bounds: .zero, color: .clear, opacity: 1),
            layer(Rect(10, 10, 100, 100), .white, radius: 10),                     // 7: a cover (21…99)
        ])
        #expect(o.covers.map(\.index) == [0, 7])
        #expect(o.covers.first?.box == PixelBox(x0: 1, y0: 1, x1: 99, y1: 99))
        #expect(o.covers.last?.box == PixelBox(x0: 21, y0: 21, x1: 99, y1: 99))
        let everything = PixelBox(width: 200, height: 200)
        #expect(o.hides(PixelBox(x0: 30, y0: 30, x1: 90, y1: 90), drawnAt: 3, within: everything), "under command 7")
        #expect(!o.hides(PixelBox(x0: 30, y0: 30, x1: 90, y1: 90), drawnAt: 7, within: everything), "not by itself or earlier covers")
        #expect(!o.hides(PixelBox(x0: 5, y0: 5, x1: 90, y1: 90), drawnAt: 3, within: everything), "sticks out of command 7")
        #expect(o.hides(PixelBox(x0: 5, y0: 5, x1: 90, y1: 90), drawnAt: 3, within: PixelBox(x0: 40, y0: 40, x1: 60, y1: 60)),
                "hidden within a damage box inside the cover")
    }
}
