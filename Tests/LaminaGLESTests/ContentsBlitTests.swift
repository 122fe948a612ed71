import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// Video frames in system memory are kept bottom row first and, drawn opaque one texel to a
/// pixel, copied into the output with glBlitFramebuffer; everything else about them is drawn
/// with v flipped. Each way must show exactly what an ordinary (top-down, drawn) image shows.
@Suite("Contents blit")
struct ContentsBlitTests {
    /// An opaque 64×48 picture whose every pixel differs from its neighbours.
    static func picture() -> Bitmap {
        var bytes: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { bytes += [UInt8(x * 4), UInt8(y * 5), UInt8((x * 7 + y * 13) & 255), 255] } }
        return Bitmap(width: 64, height: 48, bytes: bytes)!
    }

    static func image(video: Bool) -> ImageSource {
        let s = ImageSource(owner: .session(EntrySerial(1)), number: 1, bitmap: picture())
        s.isVideo = video
        s.pixelsAreOpaque = video
        return s
    }

    /// The picture as contents at `transform`, over a grey background layer, with a small
    /// square `marker` colour beside it (changed between frames to make damage).
    static func list(_ source: ImageSource, transform: Transform3D, size: Size = Size(width: 64, height: 48),
                     sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1), insets: (EdgeInsets, EdgeInsets)? = nil,
                     marker: Color = .red, promised: Bool = false) -> DrawList {
        let background = DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 200, height: 150), color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1), opacity: 1)
        let area = Rect(x: 0, y: 0, width: size.width, height: size.height)
        let contents = DrawContents(source: source, destination: area, destinationInsets: insets?.0 ?? .zero, sourceRect: sourceRect,
                                    sourceInsets: insets?.1 ?? .zero, isOpaque: promised)
        let draw = DrawCommand(kind: .contents, transform: transform, bounds: area, contents: contents)
        let dot = DrawCommand(transform: .translation(x: 60, y: 40), bounds: Rect(x: 0, y: 0, width: 30, height: 30), color: marker, opacity: 1)
        return DrawList(width: 200, height: 150, commands: [background, draw, dot])
    }

    /// The frames of `lists` drawn with the video source, and with an ordinary image in its place.
    static func compare(_ make: (ImageSource, Color) -> DrawList, expectBlits: Bool, buffers: Int = 1,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let video = try HeadlessDisplay(width: 200, height: 150, buffers: buffers)
        let plain = try HeadlessDisplay(width: 200, height: 150, buffers: buffers)
        plain.damageTracking = false
        let v = image(video: true), p = image(video: false)
        for (step, marker) in [Color.red, .green, .blue].enumerated() {
            try video.present(make(v, marker))
            try plain.present(make(p, marker))
            let d = try video.screenshot().difference(from: try plain.screenshot())
            #expect(d.worst <= 1, "step \(step): largest channel difference \(d.worst) (\(d.differing) pixels)", sourceLocation: sourceLocation)
        }
        let blits = video.renderer.contentsBlits
        // The ES 2 path has no glBlitFramebuffer: it always draws (the pixels compare the same).
        #expect(expectBlits && !GLESMode.isES2 ? blits > 0 : blits == 0, "\(blits) blits (\(GLESMode.description))",
                sourceLocation: sourceLocation)
    }

    @Test func oneTexelToAPixelIsCopiedAndShowsTheSame() throws {
        // Whole picture at (10, 20), the marker overlapping it: damage boxes cut the copy.
        try Self.compare({ Self.list($0, transform: .translation(x: 10, y: 20), marker: $1) }, expectBlits: true)
        try Self.compare({ Self.list($0, transform: .translation(x: 10, y: 20), marker: $1) }, expectBlits: true, buffers: 3)
        // A contentsRect part, still one texel to a pixel.
        try Self.compare({ Self.list($0, transform: .translation(x: 5, y: 7), size: Size(width: 32, height: 24),
                                     sourceRect: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5), marker: $1) }, expectBlits: true)
        // Partly off the output.
        try Self.compare({ Self.list($0, transform: .translation(x: 170, y: 130), marker: $1) }, expectBlits: true)
    }

    @Test func anythingElseIsDrawnWithVFlipped() throws {
        // Scaled: drawn by the plain program from the bottom-up texture.
        try Self.compare({ Self.list($0, transform: .scale(x: 2, y: 2).concatenating(.translation(x: 3, y: 4)),
                                     marker: $1) }, expectBlits: false)
        // Nine slices (contentsCenter): the flipped rows' edge extents.
        try Self.compare({ Self.list($0, transform: .translation(x: 10, y: 10), size: Size(width: 120, height: 90),
                                     insets: (EdgeInsets(left: 8, top: 6, right: 10, bottom: 12),
                                              EdgeInsets(left: 8.0 / 64, top: 6.0 / 48, right: 10.0 / 64, bottom: 12.0 / 48)),
                                     marker: $1) }, expectBlits: false)
        // Rotated.
        try Self.compare({ Self.list($0, transform: .rotation(angle: 0.3).concatenating(.translation(x: 60, y: 20)), marker: $1) },
                         expectBlits: false)
    }
    /// A client's picture whose every alpha is 255 is kept bottom row first too: copied one
    /// texel to a pixel, and a changed rectangle uploaded with its rows reversed in place,
    /// showing what the same pixels show drawn from an ordinary image.
    @Test func anOpaqueClientPictureIsCopiedToo() throws {
        var bytes = Self.picture().bytes
        let memory = HeapPixelMemory(bytes)
        let client = ImageSource(owner: .session(EntrySerial(1)), number: 2, memory: memory, format: ImageFormat(width: 64, height: 48))
        #expect(client.pixelsReadOpaque)
        let copied = try HeadlessDisplay(width: 200, height: 150, buffers: 1)
        let drawn = try HeadlessDisplay(width: 200, height: 150, buffers: 1)
        drawn.damageTracking = false
        for (step, marker) in [Color.red, .green, .blue].enumerated() {
            if step == 2 {
                // A 20 × 10 rectangle at (8, 4) changes, still opaque.
                for y in 4..<14 {
                    for x in 8..<28 {
                        let pixel: [UInt8] = [UInt8(255 - x * 3), UInt8(y * 11), 200, 255]
                        memory.write(pixel, at: (y * 64 + x) * 4)
                        bytes.replaceSubrange((y * 64 + x) * 4 ..< (y * 64 + x + 1) * 4, with: pixel)
                    }
                }
                client.markChanged(PixelRect(x: 8, y: 4, width: 20, height: 10))
            }
            let plain = ImageSource(owner: .session(EntrySerial(1)), number: UInt32(3 + step), bitmap: Bitmap(width: 64, height: 48, bytes: bytes)!)
            try copied.present(Self.list(client, transform: .translation(x: 10, y: 20), marker: marker))
            try drawn.present(Self.list(plain, transform: .translation(x: 10, y: 20), marker: marker))
            let d = try copied.screenshot().difference(from: try drawn.screenshot())
            #expect(d.worst <= 1, "step \(step): largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
        }
        #expect(client.pixelsReadOpaque)
        let blits = copied.renderer.contentsBlits
        #expect(GLESMode.isES2 ? blits == 0 : blits >= 3, "\(blits) blits (\(GLESMode.description))")
        #expect(drawn.renderer.contentsBlits == 0)
    }
    /// A copy writes the texels as they are, alpha included, where a draw of an opaque picture
    /// forces alpha to 1: a picture whose uploaded pixels are not all opaque is drawn, never
    /// copied. Two ways in: the layer promised `isOpaque` and the client then wrote a translucent
    /// pixel (so the picture is no longer read opaque), or the client wrote it into a rectangle
    /// after naming the rectangle as changed (read opaque, uploaded translucent).
    @Test(arguments: ["promised", "written after naming"])
    func aTranslucentUploadIsDrawnNotCopied(_ way: String) throws {
        let promised = way == "promised"
        var bytes = Self.picture().bytes
        let memory = HeapPixelMemory(bytes)
        let client = ImageSource(owner: .session(EntrySerial(1)), number: 2, memory: memory, format: ImageFormat(width: 64, height: 48))
        let copied = try HeadlessDisplay(width: 200, height: 150, buffers: 1)
        try copied.present(Self.list(client, transform: .translation(x: 10, y: 20), marker: .red, promised: promised))
        let before = copied.renderer.contentsBlits
        #expect(GLESMode.isES2 || before > 0, "an opaque upload is copied")
        let translucent: [UInt8] = [60, 30, 10, 128]
        let rect = PixelRect(x: 10, y: 10, width: 1, height: 1)
        if promised {
            memory.write(translucent, at: (10 * 64 + 10) * 4)
            client.markChanged(rect)
            #expect(!client.pixelsReadOpaque)
        } else {
            client.markChanged(rect)
            memory.write(translucent, at: (10 * 64 + 10) * 4)
            #expect(client.pixelsReadOpaque, "read before the client wrote")
        }
        bytes.replaceSubrange((10 * 64 + 10) * 4 ..< (10 * 64 + 11) * 4, with: translucent)
        try copied.present(Self.list(client, transform: .translation(x: 10, y: 20), marker: .green, promised: promised))
        #expect(copied.renderer.contentsBlits == before, "not copied once a translucent pixel was uploaded")
        let shot = try copied.screenshot()
        #expect(Pixel(shot, 20, 30).a == 255, "drawn opaque: alpha forced to 1, \(Pixel(shot, 20, 30))")
        // The same pixels drawn from an ordinary image the layer promises opaque.
        let drawn = try HeadlessDisplay(width: 200, height: 150, buffers: 1)
        drawn.damageTracking = false
        let plain = ImageSource(owner: .session(EntrySerial(1)), number: 3, bitmap: Bitmap(width: 64, height: 48, bytes: bytes)!)
        try drawn.present(Self.list(plain, transform: .translation(x: 10, y: 20), marker: .green, promised: true))
        let d = shot.difference(from: try drawn.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels")
    }
}
