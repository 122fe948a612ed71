import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport
import Testing

/// An image for contents tests: RGBA bytes, premultiplied unless said otherwise.
struct TestImage {
    var width: Int
    var height: Int
    var bytes: [UInt8]
    var order = ImageFormat.PixelOrder.rgba
    var alpha = ImageFormat.AlphaMode.premultiplied

    /// `pixel(x, y)` gives each pixel's (r, g, b, a).
    init(width: Int, height: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) {
        self.width = width
        self.height = height
        bytes = []
        for y in 0..<height { for x in 0..<width { let p = pixel(x, y); bytes += [p.0, p.1, p.2, p.3] } }
    }

    var format: ImageFormat {
        ImageFormat(width: UInt32(width), height: UInt32(height), order: order, alpha: alpha)
    }

    /// Red, green, blue and white quadrants (top left, top right, bottom left, bottom right).
    static func quadrants(width: Int, height: Int) -> TestImage {
        TestImage(width: width, height: height) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): (255, 0, 0, 255)
            case (false, true): (0, 255, 0, 255)
            case (true, false): (0, 0, 255, 255)
            case (false, false): (255, 255, 255, 255)
            }
        }
    }
}

/// A display tree with one client whose images are in heap memory, rendered by a real
/// headless backend, so updates and destroys can be applied between frames.
final class ContentsStage {
    var display: ModelTree
    let backend: HeadlessDisplay
    let client = ClientID(rawValue: 1)
    var memories: [UInt32: HeapPixelMemory] = [:]
    private var next: UInt32 = 1

    init(width: Int, height: Int, background: Color = .black) throws {
        display = ModelTree(width: width, height: height, background: background)
        backend = try HeadlessDisplay(width: width, height: height)
        _ = try display.attach(client, hello: Hello(clientName: "contents-tests"))
    }

    func add(image number: UInt32, _ image: TestImage) throws {
        let memory = HeapPixelMemory(image.bytes)
        memories[number] = memory
        _ = try display.apply([.createImage(image: number, image.format)], attachments: [.memory(memory)],
                              from: client, limits: ClientLimits())
    }

    func add(_ layers: [SceneLayer]) throws {
        var ops: [Operation] = []
        for layer in layers { layer.operations(parent: .root, next: &next, into: &ops) }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
    }

    func apply(_ ops: [Operation]) throws { _ = try display.apply(ops, from: client, limits: ClientLimits()) }

    func render() throws -> Bitmap {
        try backend.present(display.drawList())
        return try backend.screenshot()
    }
}

func contentsLayer(_ frame: Rect, image: UInt32, color: Color = rgb(40, 40, 40), sublayers: [SceneLayer] = [],
                   _ configure: (inout LayerProperties) -> Void = { _ in }) -> SceneLayer {
    SceneLayer(frame: frame, color: color, sublayers: sublayers) {
        $0.contents = image
        configure(&$0)
    }
}

@Suite("Layer contents")
struct ContentsTests {
    let red = Pixel(255, 0, 0), green = Pixel(0, 255, 0), blue = Pixel(0, 0, 255), white = Pixel(255, 255, 255)
    let backdrop = Pixel(40, 40, 40)

    @Test("all twelve contentsGravity values, y down (contact image)")
    func gravities() throws {
        let stage = try ContentsStage(width: 400, height: 300)
        try stage.add(image: 1, .quadrants(width: 24, height: 16))
        // 4 × 3 cells 100 apart, each a 60×60 layer at (20, 20) in its cell.
        let gravities: [ContentsGravity] = [.center, .top, .bottom, .left, .right, .topLeft, .topRight,
                                            .bottomLeft, .bottomRight, .resize, .resizeAspect, .resizeAspectFill]
        try stage.add(gravities.enumerated().map { i, g in
            contentsLayer(Rect(Double(i % 4) * 100 + 20, Double(i / 4) * 100 + 20, 60, 60), image: 1) { $0.contentsGravity = g }
        })
        let image = try stage.render()
        func at(_ i: Int, _ x: Int, _ y: Int) -> Pixel { Pixel(image, (i % 4) * 100 + 20 + x, (i / 4) * 100 + 20 + y) }
        // center: 24×16 at (18, 22).
        #expect(at(0, 19, 23) == red); #expect(at(0, 40, 36) == white); #expect(at(0, 10, 10) == backdrop)
        // top: the top edge on screen.
        #expect(at(1, 19, 1) == red); #expect(at(1, 19, 20) == backdrop)
        // bottom.
        #expect(at(2, 40, 58) == white); #expect(at(2, 19, 40) == backdrop)
        // left, right.
        #expect(at(3, 1, 23) == red); #expect(at(3, 30, 30) == backdrop)
        #expect(at(4, 58, 36) == white); #expect(at(4, 30, 30) == backdrop)
        // the corners.
        #expect(at(5, 1, 1) == red); #expect(at(5, 30, 30) == backdrop)
        #expect(at(6, 58, 1) == green); #expect(at(6, 1, 1) == backdrop)
        #expect(at(7, 1, 58) == blue); #expect(at(7, 58, 58) == backdrop)
        #expect(at(8, 58, 58) == white); #expect(at(8, 1, 1) == backdrop)
        // resize fills the bounds.
        #expect(at(9, 1, 1) == red); #expect(at(9, 58, 58) == white)
        // resizeAspect: 60×40 centred, bands above and below.
        #expect(at(10, 1, 12) == red); #expect(at(10, 30, 5) == backdrop); #expect(at(10, 58, 48) == white)
        // resizeAspectFill: 90×60, reaching 15 points past each side (no masksToBounds).
        #expect(at(11, -10, 5) == red); #expect(at(11, 70, 55) == white)
        expectReference(image, "contents-gravity")
    }

    @Test("contentsScale sizes the gravity's natural size; contentsRect picks part of the image")
    func scaleAndRect() throws {
        let stage = try ContentsStage(width: 200, height: 100)
        try stage.add(image: 1, .quadrants(width: 24, height: 16))
        try stage.add([
            // Scale 2: 12×8 points, centred at (24, 26).
            contentsLayer(Rect(10, 10, 60, 60), image: 1) { $0.contentsGravity = .center; $0.contentsScale = 2 },
            // The right half, stretched over the bounds: green above, white below.
            contentsLayer(Rect(100, 10, 60, 60), image: 1) { $0.contentsRect = Rect(0.5, 0, 0.5, 1) },
        ])
        let image = try stage.render()
        #expect(Pixel(image, 10 + 25, 10 + 27) == red)
        #expect(Pixel(image, 10 + 35, 10 + 33) == white)
        #expect(Pixel(image, 10 + 23, 10 + 25) == backdrop)
        #expect(Pixel(image, 10 + 36, 10 + 34) == backdrop)
        #expect(Pixel(image, 101, 11) == green)
        #expect(Pixel(image, 158, 68) == white)
        #expect(Pixel(image, 101, 68) == white, "no blue: the left half is not shown")
        expectReference(image, "contents-scale-rect")
    }

    /// Drawn opaque (`isOpaque`: unblended) or blended, the same pixels: both take the
    /// magnification filter wherever nothing is minified, one-to-one edge strips included.
    @Test("contentsCenter stretches the middle; with contentsScale 2 the edges are half as wide", arguments: [false, true])
    func nineSlice(opaque: Bool) throws {
        let stage = try ContentsStage(width: 200, height: 80)
        // 12×12: 4-pixel red corners, green edges, a blue middle.
        let framed = TestImage(width: 12, height: 12) { x, y in
            let edgeX = x < 4 || x >= 8, edgeY = y < 4 || y >= 8
            return edgeX && edgeY ? (255, 0, 0, 255) : (edgeX || edgeY ? (0, 255, 0, 255) : (0, 0, 255, 255))
        }
        try stage.add(image: 1, framed)
        let center = Rect(4.0 / 12, 4.0 / 12, 4.0 / 12, 4.0 / 12)
        try stage.add([
            contentsLayer(Rect(10, 10, 80, 60), image: 1) {
                $0.contentsCenter = center; $0.magnificationFilter = .nearest; $0.isOpaque = opaque
            },
            contentsLayer(Rect(110, 10, 80, 60), image: 1) {
                $0.contentsCenter = center; $0.contentsScale = 2; $0.magnificationFilter = .nearest; $0.isOpaque = opaque
            },
        ])
        let image = try stage.render()
        // Scale 1: 4-point edges.
        #expect(Pixel(image, 11, 11) == red); #expect(Pixel(image, 13, 13) == red)
        #expect(Pixel(image, 50, 11) == green); #expect(Pixel(image, 12, 40) == green)
        // The left edge strip is one to one across and magnified along: nearest, so no red
        // from the corner bleeds into its first rows (λ is 0 there, not above).
        #expect(Pixel(image, 13, 14) == green); #expect(Pixel(image, 12, 65) == green)
        #expect(Pixel(image, 50, 40) == blue); #expect(Pixel(image, 15, 40) == blue)
        // Scale 2: 2-point edges, so 3 points in is already the middle.
        #expect(Pixel(image, 110, 10) == red); #expect(Pixel(image, 111, 11) == red)
        #expect(Pixel(image, 150, 10) == green); #expect(Pixel(image, 113, 40) == blue)
        #expect(Pixel(image, 189, 69) == red); #expect(Pixel(image, 187, 67) == blue)
        expectReference(image, "contents-center-scale2")
    }

    @Test("nearest magnification keeps hard texel edges, linear blends them")
    func magnification() throws {
        let stage = try ContentsStage(width: 120, height: 60)
        try stage.add(image: 1, .quadrants(width: 2, height: 2))
        try stage.add([
            contentsLayer(Rect(10, 10, 40, 40), image: 1) { $0.magnificationFilter = .nearest },
            contentsLayer(Rect(70, 10, 40, 40), image: 1) { $0.magnificationFilter = .linear },
        ])
        let image = try stage.render()
        #expect(Pixel(image, 10 + 19, 10 + 5) == red)
        #expect(Pixel(image, 10 + 20, 10 + 5) == green)
        #expect(Pixel(image, 10 + 1, 10 + 1) == red)
        let blended = Pixel(image, 70 + 19, 10 + 5)
        #expect(blended.r > 60 && blended.r < 200 && blended.g > 60 && blended.g < 200, "linear: \(blended)")
        #expect(Pixel(image, 71, 11) == red, "linear clamps at the image edge")
        expectReference(image, "contents-magnification")
    }

    @Test("trilinear minification averages through mipmaps; nearest aliases")
    func minification() throws {
        let stage = try ContentsStage(width: 60, height: 30)
        // 64×64 one-pixel checkerboard drawn at 8×8.
        try stage.add(image: 1, TestImage(width: 64, height: 64) { x, y in (x + y) % 2 == 0 ? (255, 255, 255, 255) : (0, 0, 0, 255) })
        try stage.add([
            contentsLayer(Rect(10, 10, 8, 8), image: 1) { $0.minificationFilter = .trilinear },
            contentsLayer(Rect(30, 10, 8, 8), image: 1) { $0.minificationFilter = .nearest },
        ])
        let image = try stage.render()
        for y in 10..<18 {
            for x in 10..<18 {
                let p = Pixel(image, x, y)
                #expect(abs(p.r - 128) < 24, "trilinear (\(x), \(y)): \(p)")
            }
            for x in 30..<38 {
                let p = Pixel(image, x, y)
                #expect(p.r < 10 || p.r > 245, "nearest (\(x), \(y)): \(p)")
            }
        }
        let usage = stage.backend.renderer.textureUsage
        #expect(usage.totalBytes == 64 * 64 * 4 + 64 * 64 * 4 / 3, "mipmaps add a third: \(usage)")
    }

    @Test("contents sit above the background and below the border and sublayers; masksToBounds clips them to the rounded bounds")
    func orderAndClipping() throws {
        let stage = try ContentsStage(width: 200, height: 100)
        try stage.add(image: 1, .quadrants(width: 2, height: 2))
        try stage.add([
            contentsLayer(Rect(10, 10, 80, 80), image: 1, sublayers: [SceneLayer(frame: Rect(30, 30, 20, 20), color: rgb(255, 200, 0))]) {
                $0.borderWidth = 4; $0.borderColor = rgb(255, 0, 255); $0.cornerRadius = 20; $0.magnificationFilter = .nearest
            },
            contentsLayer(Rect(110, 10, 80, 80), image: 1) {
                $0.cornerRadius = 20; $0.masksToBounds = true; $0.magnificationFilter = .nearest
            },
        ])
        let image = try stage.render()
        #expect(Pixel(image, 50, 50) == Pixel(255, 200, 0), "the sublayer is above the contents")
        #expect(Pixel(image, 50, 11) == Pixel(255, 0, 255), "the border is above the contents")
        #expect(Pixel(image, 30, 30) == red)
        // Without masksToBounds the corner radius does not round the contents.
        #expect(Pixel(image, 11, 11) == red)
        #expect(Pixel(image, 111, 11) == Pixel(0, 0, 0), "masksToBounds rounds the contents")
        #expect(Pixel(image, 130, 30) == red)
        expectReference(image, "contents-order-clip")
    }

    @Test("opaque contents cast their rectangle's shadow, drawn analytically, as their pixels blurred would")
    func opaqueContentsShadow() throws {
        let stage = try ContentsStage(width: 420, height: 150, background: .white)
        // A 16×16 opaque picture of four colours, and the same with one transparent pixel.
        func picture(hole: Bool) -> TestImage {
            TestImage(width: 16, height: 16) { x, y in hole && x == 0 && y == 0 ? (0, 0, 0, 0) : (x < 8 ? 200 : 20, y < 8 ? 60 : 180, 90, 255) }
        }
        try stage.add(image: 1, picture(hole: false))
        try stage.add(image: 2, picture(hole: true))
        // On a rounded fill the picture covers (contents are not cut by the corners without
        // masksToBounds), turned 20°: promised opaque; the same with an empty sublayer, so its
        // shadow is its group's pixels blurred; not promised, but every pixel's alpha 255; and
        // the picture with a hole, which only its pixels blurred can shadow.
        func caster(x: Double, image: UInt32 = 1, sublayer: Bool = false, promised: Bool = false) -> SceneLayer {
            contentsLayer(Rect(x, 30, 60, 60), image: image, color: .blue,
                          sublayers: sublayer ? [SceneLayer(frame: Rect(0, 0, 0, 0), color: .clear)] : []) {
                $0.isOpaque = promised
                $0.cornerRadius = 12
                $0.transform = .rotation(angle: .pi / 9)
                $0.shadowOpacity = 1
                $0.shadowRadius = 8
                $0.shadowOffset = Size(0, 10)
            }
        }
        try stage.add([caster(x: 20, promised: true), caster(x: 120, sublayer: true), caster(x: 220), caster(x: 320, image: 2)])
        let kinds = stage.display.drawList().commands.map(\.kind)
        #expect(kinds.filter { $0 == .shadow }.count == 2, "analytic shadows for the first and the third caster: \(kinds)")
        #expect(kinds.filter { $0 == .beginGroup }.count == 2, "the second and the fourth blur their groups' pixels: \(kinds)")
        let image = try stage.render()
        // The same shadow (and picture) every way: every pixel around the casters, against the
        // second's. Upright, the two ways agree within 5 (AppearanceTests.shadows); turned, the
        // shadow seen through the picture's antialiased edge differs by one level more there.
        for other in [0, 200, 300] {
            var worst = 0
            for y in 0..<150 {
                // The fourth's hole (its picture's top left texel) shows the fill at the turned
                // square's top left corner; below y 60 its shadow is the others'.
                for dx in 0..<100 where other != 300 || y >= 60 {
                    let a = Pixel(image, other + dx, y), b = Pixel(image, 100 + dx, y)
                    worst = max(worst, abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
                }
            }
            #expect(worst <= 7, "caster at \(other): largest difference from the blurred shadow: \(worst)")
        }
        // The shadow is there: below the turned square, darker than the white background.
        #expect(Pixel(image, 50, 100).r < 150, "\(Pixel(image, 50, 100))")
    }

    @Test("BGRA and straight alpha are converted to premultiplied RGBA; isOpaque ignores alpha")
    func formats() throws {
        let stage = try ContentsStage(width: 100, height: 40, background: .white)
        var bgraStraight = TestImage(width: 1, height: 1) { _, _ in (0, 0, 255, 128) }  // B G R A: red at half alpha
        bgraStraight.order = .bgra
        bgraStraight.alpha = .straight
        try stage.add(image: 1, bgraStraight)
        try stage.add(image: 2, TestImage(width: 1, height: 1) { _, _ in (0, 0, 100, 128) })  // premultiplied
        try stage.add([
            contentsLayer(Rect(10, 10, 20, 20), image: 1, color: .clear),
            contentsLayer(Rect(40, 10, 20, 20), image: 2, color: .clear),
            contentsLayer(Rect(70, 10, 20, 20), image: 2, color: .clear) { $0.isOpaque = true },
        ])
        let image = try stage.render()
        // Straight (255, 0, 0) at alpha 128 over white: (255, 127, 127).
        #expect(Pixel(image, 20, 20).isClose(to: Pixel(255, 127, 127), tolerance: 2), "\(Pixel(image, 20, 20))")
        // Premultiplied (0, 0, 100, 128) over white: (127, 127, 227).
        #expect(Pixel(image, 50, 20).isClose(to: Pixel(127, 127, 227), tolerance: 2), "\(Pixel(image, 50, 20))")
        #expect(Pixel(image, 80, 20) == Pixel(0, 0, 100), "opaque: the white does not show through")
    }

    @Test("an update re-uploads only its rectangle; a destroyed image draws nothing and its texture is freed")
    func updateAndDestroy() throws {
        let stage = try ContentsStage(width: 100, height: 100)
        let side = 256
        try stage.add(image: 7, TestImage(width: side, height: side) { _, _ in (0, 0, 255, 255) })
        try stage.add([contentsLayer(Rect(0, 0, 64, 64), image: 7) { $0.magnificationFilter = .nearest; $0.minificationFilter = .nearest }])
        let before = try stage.render()
        #expect(stage.backend.renderer.textureUsage.totalBytes == side * side * 4)
        // The client writes red into rows 0–63 of columns 128–255 and names only half of that.
        let memory = stage.memories[7]!
        for y in 0..<64 { memory.write([UInt8](repeating: 0, count: 128 * 4).enumerated().map { $0.offset % 4 == 0 || $0.offset % 4 == 3 ? 255 : 0 }, at: (y * side + 128) * 4) }
        try stage.apply([.updateImage(image: 7, PixelRect(x: 128, y: 0, width: 128, height: 32))])
        let after = try stage.render()
        // 256 pixels → 64 points: the rectangle is x 32..<64, y 0..<8 on screen.
        for y in stride(from: 0, to: 64, by: 3) {
            for x in stride(from: 0, to: 64, by: 3) {
                let inside = x >= 32 && y < 8
                #expect(Pixel(after, x, y) == (inside ? red : Pixel(before, x, y)), "(\(x), \(y))")
            }
        }
        #expect(Pixel(after, 40, 12) == blue, "rows written but not named in the update are not uploaded")
        try stage.apply([.destroyImage(image: 7)])
        let gone = try stage.render()
        #expect(Pixel(gone, 40, 4) == Pixel(40, 40, 40), "the layer shows its background only")
        #expect(stage.backend.renderer.textureUsage.totalBytes == 0)
        #expect(stage.backend.renderer.textureUsage.totalTextures == 0)
    }

    @Test("bad image operations are refused with the reason and change nothing")
    func refusals() throws {
        let stage = try ContentsStage(width: 10, height: 10)
        let small = HeapPixelMemory([UInt8](repeating: 0, count: 100))
        func refusal(_ ops: [Operation], _ attachments: [MemoryAttachment]) -> CommitRejection? {
            do { _ = try stage.display.apply(ops, attachments: attachments, from: stage.client, limits: ClientLimits()); return nil }
            catch { return error }
        }
        let format = ImageFormat(width: 8, height: 8)
        let tooSmall = refusal([.createImage(image: 1, format)], [.memory(small)])
        #expect(tooSmall?.code == .invalidImage)
        #expect(tooSmall?.message.contains("past the end of the 100-byte memory file") == true, "\(String(describing: tooSmall))")
        let missing = refusal([.createImage(image: 1, ImageFormat(width: 2, height: 2))], [])
        #expect(missing?.message.contains("carried 0 file descriptors") == true, "\(String(describing: missing))")
        let extra = refusal([], [.memory(small)])
        #expect(extra?.code == .invalidImage)
        let unusable = refusal([.createImage(image: 1, ImageFormat(width: 2, height: 2))], [.unusable("not sealed")])
        #expect(unusable?.message.contains("not sealed") == true)
        #expect(refusal([.updateImage(image: 3, PixelRect(x: 0, y: 0, width: 1, height: 1))], [])?.code == .unknownImage)
        try stage.add(image: 2, .quadrants(width: 2, height: 2))
        #expect(refusal([.updateImage(image: 2, PixelRect(x: 1, y: 1, width: 2, height: 1))], [])?.code == .invalidImage)
        #expect(refusal([.createImage(image: 2, ImageFormat(width: 1, height: 1))], [.memory(small)])?.code == .duplicateImage)
        // All or none: the destroy before the bad operation is rolled back.
        #expect(refusal([.destroyImage(image: 2), .destroyImage(image: 9)], [])?.code == .unknownImage)
        #expect(stage.display.tree(of: stage.client)?.images[2]?.isDestroyed == false)
    }
}
