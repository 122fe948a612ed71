import Glibc
import LaminaCore
import LaminaImage
import LaminaTestSupport
import Testing

/// `WebP.decode` (still) and `AnimatedImage.decode` on WebP files Pillow wrote
/// (Fixtures/make-fixtures.py says what each holds), and the refusals.
@Suite("WebP decoding")
struct WebPTests {
    static func fixture(_ name: String) -> String { TestPaths.repository + "/Tests/LaminaImageTests/Fixtures/" + name }
    static func bytes(_ name: String) throws -> [UInt8] {
        let path = fixture(name)
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0, "cannot open \(path)")
        defer { close(fd) }
        var out: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    static let budget = 1 << 20
    static func refusal(_ reason: String, path: String? = nil) -> PNGError { .undecodable(format: "WebP", path: path, reason: reason) }

    /// Lossless, with alpha 255, 128 and 0: every byte as written (straight alpha, RGB kept
    /// under alpha 0 as the file was written with `exact`).
    @Test func losslessStillPixelsAreExact() throws {
        let bitmap = try WebP.decode(Self.bytes("still-lossless.webp"))
        var expected: [UInt8] = []
        for g in 0..<3 {
            for (r, a) in zip(0..<4, [255, 128, 0, 255] as [UInt8]) { expected += [UInt8(r * 60), UInt8(g * 100), UInt8((r + g) * 30), a] }
        }
        #expect((bitmap.width, bitmap.height) == (4, 3))
        #expect(bitmap.bytes == expected)
    }

    /// Lossy at quality 90: each quadrant's centre within 12 of its colour, alpha 255.
    @Test func lossyStillPixelsAreClose() throws {
        let bitmap = try WebP.decode(Self.bytes("still-lossy.webp"))
        #expect((bitmap.width, bitmap.height) == (16, 16))
        let quadrants: [(x: Int, y: Int, rgb: [Int])] = [(4, 4, [255, 0, 0]), (12, 4, [0, 255, 0]), (4, 12, [0, 0, 255]), (12, 12, [255, 255, 255])]
        for q in quadrants {
            let p = bitmap.pixel(x: q.x, y: q.y)
            let delta = zip([Int(p.r), Int(p.g), Int(p.b)], q.rgb).map { abs($0 - $1) }.max()!
            #expect(delta <= 12 && p.a == 255, "(\(q.x), \(q.y)) is \(p), wanted \(q.rgb)")
        }
    }

    /// Red, green with its left column transparent, blue: whole frames, durations 50, 200 and
    /// 10 ms (which shows for 100 ms), the file's loop count (3 plays; 0 forever).
    @Test(arguments: [("animated-loop3.webp", 3), ("animated-loop0.webp", 0)])
    func animatedFramesDurationsAndLoops(name: String, loops: Int) throws {
        let image = try AnimatedImage.decode(Self.bytes(name), maximumBytes: Self.budget)
        #expect((image.width, image.height) == (4, 4))
        #expect(image.loopCount == loops)
        #expect(image.delays == [0.05, 0.2, 0.1])
        try #require(image.frames.count == 3)
        #expect(image.frames[0] == Bitmap(width: 4, height: 4, fill: (255, 0, 0, 255)))
        for y in 0..<4 {
            #expect(image.frames[1].pixel(x: 0, y: y).a == 0, "green frame, (0, \(y))")
            for x in 1..<4 { #expect(image.frames[1].pixel(x: x, y: y) == (0, 255, 0, 255), "green frame, (\(x), \(y))") }
        }
        #expect(image.frames[2] == Bitmap(width: 4, height: 4, fill: (0, 0, 255, 255)))
    }

    /// The still decoder (and so `ImageFile.read`, `Image(contentsOfFile:)`) shows an animated
    /// WebP's first frame; `AnimatedImage` shows a still WebP as one frame that plays once.
    @Test func stillAndAnimatedCrossOver() throws {
        #expect(try WebP.decode(Self.bytes("animated-loop3.webp")) == Bitmap(width: 4, height: 4, fill: (255, 0, 0, 255)))
        let still = try Self.bytes("still-lossless.webp")
        let image = try AnimatedImage.decode(still, maximumBytes: Self.budget)
        #expect(image == AnimatedImage(width: 4, height: 3, frames: [try WebP.decode(still)], delays: [0.1], loopCount: 1))
        #expect(try ImageFile.read(Self.fixture("still-lossless.webp")) == WebP.decode(still))
        #expect(try ImageFile.read(Self.fixture("animated-loop0.webp")) == Bitmap(width: 4, height: 4, fill: (255, 0, 0, 255)))
        #expect(try WebP.read(fromFile: Self.fixture("still-lossy.webp")) == WebP.decode(Self.bytes("still-lossy.webp")))
    }

    /// Every cut of each fixture is refused with a reason (or, cut only after the last chunk,
    /// decodes); none traps. A cut inside the header says it is truncated.
    @Test(arguments: ["still-lossless.webp", "still-lossy.webp", "animated-loop3.webp"])
    func truncatedFilesAreRefused(name: String) throws {
        let whole = try Self.bytes(name)
        #expect(throws: Self.refusal("libwebp failed reading its header: the file ends early (truncated)")) {
            try WebP.decode(Array(whole.prefix(20)))
        }
        for n in 0..<whole.count {
            let cut = Array(whole.prefix(n))
            for decode in [{ _ = try WebP.decode(cut) }, { _ = try AnimatedImage.decode(cut, maximumBytes: Self.budget) }] {
                do { try decode() } catch let error as PNGError {
                    guard case let .undecodable(format, nil, reason) = error, !reason.isEmpty, format == "WebP" || n < 12 else {
                        Issue.record("cut at \(n): \(error)")
                        continue
                    }
                } catch { Issue.record("cut at \(n): \(error)") }
            }
        }
    }

    @Test func garbageIsRefused() {
        let garbage: [UInt8] = Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [28, 0, 0, 0] + Array(repeating: 0x5A, count: 28)
        do {
            _ = try WebP.decode(garbage)
            Issue.record("garbage decoded")
        } catch {
            guard case let .undecodable("WebP", nil, reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.hasPrefix("libwebp failed reading its "), "\(reason)")
        }
        #expect(throws: PNGError.self) { try AnimatedImage.decode(garbage, maximumBytes: Self.budget) }
    }

    /// A 30-byte file (RIFF header and a VP8X chunk, animation flag set) declaring a
    /// 60000×60000 canvas: refused from the header, before anything is allocated (libwebp
    /// itself refuses canvases over 2^32 pixels, such as 16777216×16777216).
    @Test func aHugeCanvasIsRefusedFromTheHeader() throws {
        var header: [UInt8] = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        header += [0x02, 0, 0, 0] + [0x5F, 0xEA, 0x00] + [0x5F, 0xEA, 0x00]  // 59999 = 0xEA5F: width − 1, height − 1
        #expect(header.count == 30)
        let refusal = Self.refusal("its canvas is 60000×60000 pixels, over the limit of 16384 a side")
        #expect(throws: refusal) { try WebP.decode(header) }
        #expect(throws: refusal) { try AnimatedImage.decode(header, maximumBytes: Int.max) }
        // 10000×10000 is within the side limit; its 400,000,000 bytes are over a still image's 256 MiB.
        header.replaceSubrange(24..<30, with: [0x0F, 0x27, 0, 0x0F, 0x27, 0])
        #expect(throws: Self.refusal("1 frame of 10000×10000 pixels takes 400000000 bytes, over the limit of 268435456 bytes")) {
            try WebP.decode(header)
        }
    }

    @Test func framesTimesTheCanvasOverTheBudgetAreRefused() throws {
        let bytes = try Self.bytes("animated-loop3.webp")
        #expect(try AnimatedImage.decode(bytes, maximumBytes: 192).frames.count == 3)
        #expect(throws: Self.refusal("3 frames of 4×4 pixels take 192 bytes, over the limit of 191 bytes")) {
            try AnimatedImage.decode(bytes, maximumBytes: 191)
        }
        #expect(throws: Self.refusal("1 frame of 4×4 pixels takes 64 bytes, over the limit of 63 bytes")) {
            try AnimatedImage.decode(bytes, maximumBytes: 63)
        }
    }
}
