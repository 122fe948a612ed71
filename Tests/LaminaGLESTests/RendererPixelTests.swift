import LaminaCore
import LaminaGLES
import LaminaHeadless
import LaminaCompositor
import LaminaTestSupport
import Testing

/// Draws on the headless backend (real EGL and GLES; llvmpipe on CI) and checks exact pixels.
@Suite("GLES renderer pixels")
struct RendererPixelTests {
    let background = rgb(51, 51, 51)
    let orange = rgb(255, 153, 0)

    @Test("an axis-aligned opaque quad covers exactly its frame")
    func axisAlignedQuad() throws {
        let backend = try HeadlessDisplay(width: 400, height: 400)
        // bounds (0,0,100,50) about the default anchor (0.5, 0.5) at (200,300): frame (150,275,100,50).
        let layer = TestLayer(bounds: Rect(0, 0, 100, 50), position: Point(200, 300), color: orange)
        try backend.present(DrawList(width: 400, height: 400, background: background, quads: layer.quads()))
        let image = try backend.screenshot()

        let quad = Pixel(255, 153, 0), clear = Pixel(51, 51, 51)
        #expect(Pixel(image, 150, 275) == quad)
        #expect(Pixel(image, 249, 324) == quad)
        #expect(Pixel(image, 200, 300) == quad)
        #expect(Pixel(image, 149, 275) == clear)
        #expect(Pixel(image, 150, 274) == clear)
        #expect(Pixel(image, 250, 324) == clear)
        #expect(Pixel(image, 249, 325) == clear)
        #expect(Pixel(image, 0, 0) == clear)
        let covered = (0..<image.height).reduce(0) { sum, y in
            sum + (0..<image.width).filter { Pixel(image, $0, y) == quad }.count
        }
        #expect(covered == 100 * 50)
        #expect(backend.framesPresented == 1)
    }

    @Test("a bounds origin moves the content, not the frame")
    func boundsOrigin() throws {
        let backend = try HeadlessDisplay(width: 400, height: 400)
        let shifted = TestLayer(bounds: Rect(10, 20, 100, 50), position: Point(200, 300), color: orange)
        try backend.present(DrawList(width: 400, height: 400, background: background, quads: shifted.quads()))
        let image = try backend.screenshot()
        #expect(Pixel(image, 150, 275) == Pixel(255, 153, 0))
        #expect(Pixel(image, 249, 324) == Pixel(255, 153, 0))
        #expect(Pixel(image, 149, 275) == Pixel(51, 51, 51))
        #expect(Pixel(image, 250, 325) == Pixel(51, 51, 51))
    }

    @Test("half-opaque red over blue blends premultiplied")
    func premultipliedBlending() throws {
        let backend = try HeadlessDisplay(width: 64, height: 64)
        let blue = TestLayer(bounds: Rect(0, 0, 64, 64), position: Point(32, 32), color: .blue)
        let red = TestLayer(bounds: Rect(0, 0, 32, 64), position: Point(16, 32), color: .red, opacity: 0.5)
        // A translucent colour and a translucent layer multiply: 0.5 × 0.5 of white over black.
        let white = TestLayer(bounds: Rect(0, 0, 32, 32), position: Point(48, 48),
                              color: Color(red: 1, green: 1, blue: 1, alpha: 0.5), opacity: 0.5)
        try backend.present(DrawList(width: 64, height: 64, background: .black,
                                     quads: blue.quads() + red.quads() + white.quads()))
        let image = try backend.screenshot()

        let blended = Pixel(image, 8, 8)
        #expect(blended.isClose(to: Pixel(128, 0, 127), tolerance: 2), "got \(blended)")
        #expect(Pixel(image, 40, 8) == Pixel(0, 0, 255))
        let quarterWhite = Pixel(image, 56, 56)
        #expect(quarterWhite.isClose(to: Pixel(64, 64, 255), tolerance: 2), "got \(quarterWhite)")
    }

    @Test("a translucent background stays premultiplied")
    func translucentBackground() throws {
        let backend = try HeadlessDisplay(width: 8, height: 8)
        try backend.present(DrawList(width: 8, height: 8, background: Color(red: 1, green: 0, blue: 0, alpha: 0.5)))
        let pixel = Pixel(try backend.screenshot(), 3, 3)
        #expect(pixel.isClose(to: Pixel(128, 0, 0, 128), tolerance: 1), "got \(pixel)")
    }

    @Test("invisible and empty quads draw nothing")
    func invisibleQuads() throws {
        let backend = try HeadlessDisplay(width: 32, height: 32)
        let quads = [
            DrawQuad(transform: .identity, bounds: Rect(0, 0, 32, 32), color: .red, opacity: 0),
            DrawQuad(transform: .identity, bounds: Rect(0, 0, 32, 32), color: .clear, opacity: 1),
            DrawQuad(transform: .identity, bounds: Rect(0, 0, 0, 32), color: .red, opacity: 1),
            DrawQuad(transform: .identity, bounds: Rect(0, 0, 32, 32), color: .red, opacity: .nan),
        ]
        try backend.present(DrawList(width: 32, height: 32, background: background, quads: quads))
        let image = try backend.screenshot()
        #expect(image == Bitmap(width: 32, height: 32, fill: (51, 51, 51, 255)))
    }

    @Test("a quad entirely behind the eye is clipped away")
    func behindTheEye() throws {
        let backend = try HeadlessDisplay(width: 64, height: 64)
        // Pushed 1000 points towards the viewer with the eye at 500: w < 0 at every corner.
        let transform = Transform3D.translation(x: 0, y: 0, z: 1000).concatenating(.perspective(distance: 500))
        let quad = DrawQuad(transform: transform, bounds: Rect(0, 0, 64, 64), color: .red, opacity: 1)
        try backend.present(DrawList(width: 64, height: 64, background: .black, quads: [quad]))
        #expect(try backend.screenshot() == Bitmap(width: 64, height: 64, fill: (0, 0, 0, 255)))
    }

    @Test("later frames replace earlier ones and are counted")
    func successiveFrames() throws {
        let backend = try HeadlessDisplay(width: 16, height: 16)
        try backend.present(DrawList(width: 16, height: 16, background: .red))
        try backend.present(DrawList(width: 16, height: 16, background: .green))
        #expect(Pixel(try backend.screenshot(), 0, 15) == Pixel(0, 255, 0))
        #expect(backend.framesPresented == 2)
    }

    @Test("a draw list of the wrong size is refused")
    func sizeMismatch() throws {
        let backend = try HeadlessDisplay(width: 16, height: 16)
        #expect(throws: HeadlessBackendError.sizeMismatch(listWidth: 32, listHeight: 16, outputWidth: 16, outputHeight: 16)) {
            try backend.present(DrawList(width: 32, height: 16))
        }
        #expect(backend.framesPresented == 0)
    }

    @Test("reading pixels before drawing says so")
    func readBeforeDraw() throws {
        let backend = try HeadlessDisplay(width: 16, height: 16)
        #expect(throws: GLESError.nothingDrawn) { try backend.renderer.readPixels() }
        #expect(throws: ScreenshotUnavailable.self) { try backend.screenshot() }
    }

    @Test("a framebuffer of impossible size is refused")
    func impossibleFramebuffer() throws {
        let context = try GLESContext.headless()
        #expect(throws: GLESError.self) { try GLESFramebuffer(context: context, width: 0, height: 10) }
        #expect(throws: GLESError.self) { try GLESFramebuffer(context: context, width: 1 << 20, height: 10) }
    }

    @Test("the backend names itself and its renderer")
    func names() throws {
        let display = try HeadlessDisplay(width: 16, height: 16)
        #expect(display.backend.name == "headless")
        #expect(display.backend.width == 16 && display.backend.height == 16)
        #expect(display.renderer.name.hasPrefix(GLESMode.versionPrefix))
        #expect(display.rendererDescription.contains("EGL 1."))
    }
}
