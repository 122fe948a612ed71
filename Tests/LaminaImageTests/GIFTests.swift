import LaminaCore
import LaminaImage
import LaminaTestSupport
import Testing

/// `GIF.decode` on files written byte by byte (GIFWriter): each composited frame compared pixel
/// by pixel with what browsers show, loop counts, delays and the refusals.
@Suite("GIF decoding")
struct GIFTests {
    // Global colours: 0 black, 1 red, 2 green, 3 blue.
    static let colors: [GIFWriter.RGB] = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
    static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
    static let clear: [UInt8] = [0, 0, 0, 0], black: [UInt8] = [0, 0, 0, 255]
    static let budget = 1 << 20

    /// A 4×4 bitmap from a picture: one character a pixel, rows top to bottom
    /// (r red, g green, b blue, k black, . transparent).
    static func picture(_ rows: [String]) -> Bitmap {
        let pixels: [Character: [UInt8]] = ["r": red, "g": green, "b": blue, "k": black, ".": clear]
        return Bitmap(width: rows[0].count, height: rows.count, bytes: rows.flatMap { $0.flatMap { pixels[$0]! } })!
    }

    static func decode(_ writer: GIFWriter, maximumBytes: Int = budget) throws -> AnimatedImage {
        try GIF.decode(writer.finished(), maximumBytes: maximumBytes)
    }

    /// A 4×4 canvas whose first frame fills it red (kept: disposal 1).
    static func redCanvas(loop: Int? = nil) -> GIFWriter {
        var gif = GIFWriter(width: 4, height: 4, colors: colors, loop: loop)
        gif.frame(width: 4, height: 4, indices: Array(repeating: 1, count: 16), delay: 10, disposal: 1)
        return gif
    }

    @Test func disposalsZeroAndOneKeepTheFrame() throws {
        var gif = Self.redCanvas()
        gif.frame(x: 1, y: 1, width: 2, height: 2, indices: [2, 2, 2, 2], delay: 10, disposal: 0)
        gif.frame(x: 0, y: 0, width: 1, height: 1, indices: [3], delay: 10)
        let image = try Self.decode(gif)
        #expect((image.width, image.height, image.frames.count) == (4, 4, 3))
        #expect(image.frames[0] == Self.picture(["rrrr", "rrrr", "rrrr", "rrrr"]))
        #expect(image.frames[1] == Self.picture(["rrrr", "rggr", "rggr", "rrrr"]))
        #expect(image.frames[2] == Self.picture(["brrr", "rggr", "rggr", "rrrr"]))
    }

    /// Disposal 2 clears the frame's rectangle to transparent (browsers do, rather than paint
    /// the background colour), and only that rectangle.
    @Test func disposalTwoClearsTheRectangleToTransparent() throws {
        var gif = Self.redCanvas()
        gif.frame(x: 1, y: 1, width: 2, height: 2, indices: [2, 2, 2, 2], delay: 10, disposal: 2)
        gif.frame(x: 3, y: 3, width: 1, height: 1, indices: [3], delay: 10)
        let image = try Self.decode(gif)
        #expect(image.frames[1] == Self.picture(["rrrr", "rggr", "rggr", "rrrr"]))
        #expect(image.frames[2] == Self.picture(["rrrr", "r..r", "r..r", "rrrb"]))
    }

    @Test func disposalThreeRestoresTheCanvasFromBeforeTheFrame() throws {
        var gif = Self.redCanvas()
        gif.frame(x: 2, y: 0, width: 2, height: 2, indices: [2, 2, 2, 2], delay: 10, disposal: 3)
        gif.frame(x: 0, y: 3, width: 1, height: 1, indices: [3], delay: 10)
        let image = try Self.decode(gif)
        #expect(image.frames[1] == Self.picture(["rrgg", "rrgg", "rrrr", "rrrr"]))
        #expect(image.frames[2] == Self.picture(["rrrr", "rrrr", "rrrr", "brrr"]))
        // On the first frame it restores the empty canvas.
        var first = GIFWriter(width: 4, height: 4, colors: Self.colors)
        first.frame(width: 2, height: 2, indices: [1, 1, 1, 1], delay: 10, disposal: 3)
        first.frame(x: 3, y: 3, width: 1, height: 1, indices: [3], delay: 10)
        let restored = try Self.decode(first)
        #expect(restored.frames[0] == Self.picture(["rr..", "rr..", "....", "...."]))
        #expect(restored.frames[1] == Self.picture(["....", "....", "....", "...b"]))
    }

    /// The transparent index leaves what is under it; on the first frame that is transparency.
    @Test func theTransparentIndexLeavesTheCanvasAsItWas() throws {
        var gif = Self.redCanvas()
        gif.frame(width: 4, height: 4, indices: [0, 2, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0, 3, 3, 3, 3], delay: 10, transparent: 0)
        let image = try Self.decode(gif)
        #expect(image.frames[1] == Self.picture(["rgrg", "grgr", "rrrr", "bbbb"]))
        var alone = GIFWriter(width: 4, height: 4, colors: Self.colors)
        alone.frame(width: 4, height: 4, indices: [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0], transparent: 0)
        #expect(try Self.decode(alone).frames[0] == Self.picture(["gggg", "gggg", "gggg", "...."]))
        // The transparent index is the frame's own: the next frame without one draws index 0 black.
        alone.frame(x: 0, y: 3, width: 1, height: 1, indices: [0])
        #expect(try Self.decode(alone).frames[1] == Self.picture(["gggg", "gggg", "gggg", "k..."]))
    }

    /// A frame's own colour table replaces the global one for it alone; indices past a table
    /// are opaque black (as Firefox pads tables); a frame with no table at all is refused.
    @Test func localColourTablesAndIndicesPastTheTable() throws {
        var gif = GIFWriter(width: 2, height: 1, colors: [(255, 0, 0), (0, 255, 0)])
        gif.frame(width: 2, height: 1, indices: [0, 1], colors: [(10, 20, 30), (40, 50, 60)])
        gif.frame(width: 2, height: 1, indices: [1, 3])
        let image = try Self.decode(gif)
        #expect(image.frames[0].bytes == [10, 20, 30, 255, 40, 50, 60, 255])
        #expect(image.frames[1].bytes == [0, 255, 0, 255, 0, 0, 0, 255])
        var bare = GIFWriter(width: 1, height: 1, colors: nil)
        bare.frame(width: 1, height: 1, indices: [0])
        #expect(throws: PNGError.undecodable(format: "GIF", path: nil, reason: "frame 1 has no colour table (neither its own nor a global one)")) {
            try Self.decode(bare)
        }
    }

    /// Interlaced rows arrive in four passes (0, 8; 4; 2, 6; 1, 3, 5, 7, 9); the frame shows
    /// them in place.
    @Test func interlacedFramesShowTheirRowsInPlace() throws {
        let shades: [GIFWriter.RGB] = (0..<16).map { (UInt8($0 * 16), 0, 0) }
        var gif = GIFWriter(width: 2, height: 10, colors: shades)
        let rows = (0..<10).flatMap { [UInt8($0), UInt8($0)] }
        gif.frame(width: 2, height: 10, indices: rows, interlaced: true)
        let frame = try Self.decode(gif).frames[0]
        for y in 0..<10 { #expect(frame.pixel(x: 1, y: y) == (UInt8(y * 16), 0, 0, 255), "row \(y)") }
    }

    /// A frame reaching past the canvas is clipped to it.
    @Test func framesAreClippedToTheCanvas() throws {
        var gif = GIFWriter(width: 4, height: 4, colors: Self.colors)
        gif.frame(x: 2, y: 3, width: 3, height: 2, indices: [1, 2, 3, 3, 2, 1])
        #expect(try Self.decode(gif).frames[0] == Self.picture(["....", "....", "....", "..rg"]))
    }

    /// NETSCAPE2.0 loop count N repeats N times after the first play (Chromium, Firefox):
    /// absent plays once, 0 forever, 3 plays four times.
    @Test(arguments: [(nil, 1), (0, 0), (3, 4), (65535, 65536)] as [(Int?, Int)])
    func loopCounts(netscape: Int?, plays: Int) throws {
        var gif = Self.redCanvas(loop: netscape)
        gif.frame(width: 1, height: 1, indices: [2], delay: 10)
        #expect(try Self.decode(gif).loopCount == plays)
    }

    /// Centiseconds to seconds; 0 and 1 cs (10 ms or less) show for 100 ms, as browsers do; no
    /// control block is a delay of 0.
    @Test func delays() throws {
        var gif = GIFWriter(width: 1, height: 1, colors: Self.colors)
        for delay in [0, 1, 2, 5, 100, 65535] { gif.frame(width: 1, height: 1, indices: [1], delay: delay) }
        gif.frame(width: 1, height: 1, indices: [1])
        #expect(try Self.decode(gif).delays == [0.1, 0.1, 0.02, 0.05, 1, 655.35, 0.1])
    }

    @Test func aStillGIFIsOneFrameThatPlaysOnce() throws {
        var gif = GIFWriter(width: 2, height: 1, colors: Self.colors)
        gif.frame(width: 2, height: 1, indices: [1, 3])
        let image = try AnimatedImage.decode(gif.finished(), maximumBytes: Self.budget)
        #expect(image == AnimatedImage(width: 2, height: 1, frames: [Bitmap(width: 2, height: 1, bytes: Self.red + Self.blue)!],
                                       delays: [0.1], loopCount: 1))
    }

    /// A frame with no pixels (0×0) still has LZW blocks to read past; the frames after it decode.
    @Test func anEmptyFrameIsReadPast() throws {
        var gif = Self.redCanvas()
        gif.frame(width: 0, height: 0, indices: [], delay: 10)
        gif.frame(width: 1, height: 1, indices: [3], delay: 10)
        let image = try Self.decode(gif)
        #expect(image.frames.count == 3)
        #expect(image.frames[1] == image.frames[0])
        #expect(image.frames[2] == Self.picture(["brrr", "rrrr", "rrrr", "rrrr"]))
    }

    /// A GIF from another encoder (Pillow: compressed LZW, local colour tables, the second
    /// frame only its changed square): the whole frames it was made from, loop=2 as three
    /// plays, 30 and 40 ms, and 0 (no control block) as 100 ms.
    @Test func aGIFFromPillow() throws {
        let image = try GIF.decode(WebPTests.bytes("pillow.gif"), maximumBytes: Self.budget)
        func stripes() -> [UInt8] { (0..<32).flatMap { y in (0..<32).flatMap { _ in (y / 4) % 2 == 0 ? Self.red : Self.blue } } }
        var square = stripes()
        for y in 8..<16 { for x in 8..<16 { square.replaceSubrange((y * 32 + x) * 4..<(y * 32 + x) * 4 + 4, with: Self.green) } }
        #expect(image.frames == [Bitmap(width: 32, height: 32, bytes: stripes())!, Bitmap(width: 32, height: 32, bytes: square)!,
                                 Bitmap(width: 32, height: 32, fill: (255, 255, 255, 255))])
        #expect(image.delays == [0.03, 0.04, 0.1])
        #expect(image.loopCount == 3)
    }

    // MARK: - Refusals

    static func refusal(_ reason: String) -> PNGError { .undecodable(format: "GIF", path: nil, reason: reason) }

    /// Cut inside a frame's pixels: refused. Cut between frames (no trailer): the frames
    /// before the cut, as browsers show them.
    @Test func truncatedFiles() throws {
        var gif = Self.redCanvas()
        gif.frame(width: 2, height: 2, indices: [2, 2, 2, 2], delay: 10)
        let whole = gif.finished(trailer: false)
        #expect(try GIF.decode(whole, maximumBytes: Self.budget).frames.count == 2)
        #expect(throws: Self.refusal("the file ends inside frame 2's pixels (truncated)")) {
            try GIF.decode(Array(whole.dropLast(3)), maximumBytes: Self.budget)
        }
        #expect(throws: Self.refusal("the file ends inside its header (truncated)")) {
            try GIF.decode(Array(whole.prefix(9)), maximumBytes: Self.budget)
        }
        // Every prefix is refused or decodes; none traps.
        for n in 0..<whole.count { _ = try? GIF.decode(Array(whole.prefix(n)), maximumBytes: Self.budget) }
    }

    @Test func garbageAfterTheSignatureIsRefused() {
        let garbage: [UInt8] = Array("GIF89a".utf8) + [4, 0, 4, 0, 0, 0, 0] + [0x99, 0x13, 0x37, 0x00, 0xAB]
        do {
            _ = try GIF.decode(garbage, maximumBytes: Self.budget)
            Issue.record("garbage decoded")
        } catch {
            guard case let .undecodable("GIF", nil, reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("giflib says"), "\(reason)")
        }
        #expect(throws: PNGError.undecodable(format: "animated image", path: nil, reason: "neither a GIF nor a WebP file (unknown signature)")) {
            try AnimatedImage.decode(Array("GIF90a".utf8), maximumBytes: Self.budget)
        }
    }

    /// A 13-byte header declaring a 65535×65535 canvas: refused on the header, before any
    /// canvas or frame is allocated.
    @Test func aHugeCanvasIsRefusedFromTheHeader() {
        let header: [UInt8] = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x3B]
        #expect(throws: Self.refusal("its canvas is 65535×65535 pixels, over the limit of 16384 a side")) {
            try GIF.decode(header, maximumBytes: Int.max)
        }
        let empty: [UInt8] = Array("GIF89a".utf8) + [0, 0, 4, 0, 0, 0, 0, 0x3B]
        #expect(throws: Self.refusal("its canvas is 0×4 pixels (a side of 0)")) { try GIF.decode(empty, maximumBytes: Self.budget) }
    }

    /// A 16000×16000 canvas is within the side limit but its first frame is 1,024,000,000 bytes:
    /// refused at the frame's descriptor, before its pixels or the canvas are allocated; so is
    /// a frame declaring more than 16384 a side on a small canvas.
    @Test func aFrameOverTheByteBudgetIsRefusedBeforeAllocation() {
        var gif = GIFWriter(width: 16000, height: 16000, colors: Self.colors)
        gif.frame(width: 1, height: 1, indices: [1])
        #expect(throws: Self.refusal("1 frame of 16000×16000 pixels takes 1024000000 bytes, over the limit of 268435456 bytes")) {
            try GIF.decode(gif.finished(), maximumBytes: 256 << 20)
        }
        var wide = GIFWriter(width: 4, height: 4, colors: Self.colors)
        wide.frame(width: 20000, height: 1, indices: Array(repeating: 1, count: 20000))
        #expect(throws: Self.refusal("frame 1 is 20000×1 pixels, over the limit of 16384 a side")) {
            try GIF.decode(wide.finished(), maximumBytes: Self.budget)
        }
    }

    @Test func framesTimesTheCanvasOverTheBudgetAreRefused() throws {
        var gif = GIFWriter(width: 10, height: 10, colors: Self.colors)
        for _ in 0..<3 { gif.frame(width: 1, height: 1, indices: [1], delay: 10) }
        #expect(try GIF.decode(gif.finished(), maximumBytes: 1200).frames.count == 3)
        #expect(throws: Self.refusal("3 frames of 10×10 pixels take 1200 bytes, over the limit of 1199 bytes")) {
            try GIF.decode(gif.finished(), maximumBytes: 1199)
        }
    }

    @Test func moreThanAThousandFramesAreRefused() throws {
        var gif = GIFWriter(width: 1, height: 1, colors: Self.colors)
        for _ in 0..<AnimatedImage.maximumFrameCount { gif.frame(width: 1, height: 1, indices: [1]) }
        #expect(try GIF.decode(gif.finished(), maximumBytes: Self.budget).frames.count == 1000)
        gif.frame(width: 1, height: 1, indices: [1])
        #expect(throws: Self.refusal("it has 1001 frames or more, over the limit of 1000")) {
            try GIF.decode(gif.finished(), maximumBytes: Self.budget)
        }
    }
}
