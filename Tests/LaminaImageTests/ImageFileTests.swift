import Glibc
import LaminaCore
import LaminaImage
import LaminaTestSupport
import Testing

/// `ImageFile` tells PNG, JPEG, WebP and GIF apart by the first bytes, not the name, and `JPEG` decodes
/// through libjpeg to opaque RGBA.
@Suite("image files")
struct ImageFileTests {
    /// 16×8 pixels of orange (255, 128, 0), also shown by the end-to-end contents tests.
    static let orange = TestPaths.repository + "/Tests/LaminaEndToEndTests/Fixtures/orange.jpg"

    static func temporaryPath(_ name: String) -> String { "/tmp/lamina-image-test-\(getpid())-\(name)" }

    @Test func jpegDecodesToOpaqueRGBA() throws {
        let bitmap = try JPEG.read(fromFile: Self.orange)
        #expect((bitmap.width, bitmap.height) == (16, 8))
        #expect(bitmap.bytes.count == 16 * 8 * 4)
        let p = bitmap.pixel(x: 8, y: 4)
        #expect(abs(Int(p.r) - 255) < 8 && abs(Int(p.g) - 128) < 8 && p.b < 8, "\(p)")
        #expect(stride(from: 3, to: bitmap.bytes.count, by: 4).allSatisfy { bitmap.bytes[$0] == 255 }, "JPEG has no alpha")
    }

    /// The signature decides: a PNG named .jpg still reads as a PNG.
    @Test func theSignatureDecidesNotTheName() throws {
        let path = Self.temporaryPath("really-a-png.jpg")
        defer { unlink(path) }
        let bitmap = Bitmap(width: 3, height: 2, fill: (10, 20, 30, 128))
        try PNG.write(bitmap, toFile: path)
        #expect(try ImageFile.read(path) == bitmap)
        #expect(try ImageFile.read(Self.orange) == JPEG.read(fromFile: Self.orange))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        #expect(Glibc.write(fd, bytes, bytes.count) == bytes.count)
        close(fd)
    }

    @Test func noKnownSignatureIsRefusedNamingThePath() throws {
        let path = Self.temporaryPath("notes.png")
        defer { unlink(path) }
        try Self.write(Array("BM6 bitmap".utf8), to: path)
        #expect(throws: PNGError.undecodable(format: "image", path: path, reason: "not a PNG, JPEG, WebP or GIF file (unknown signature)")) {
            try ImageFile.read(path)
        }
    }

    /// A GIF reads as its first frame (WebP: WebPTests.stillAndAnimatedCrossOver); a broken
    /// one is refused naming the file.
    @Test func aGIFReadsAsItsFirstFrame() throws {
        let path = Self.temporaryPath("two-frames.png")
        defer { unlink(path) }
        var gif = GIFWriter(width: 2, height: 1, colors: GIFTests.colors)
        gif.frame(width: 2, height: 1, indices: [1, 2], delay: 10)
        gif.frame(width: 2, height: 1, indices: [3, 3], delay: 10)
        try Self.write(gif.finished(), to: path)
        #expect(try ImageFile.read(path) == Bitmap(width: 2, height: 1, bytes: GIFTests.red + GIFTests.green)!)
        try Self.write(Array("GIF89a".utf8), to: path)
        #expect(throws: PNGError.undecodable(format: "GIF", path: path, reason: "the file ends inside its header (truncated)")) {
            try ImageFile.read(path)
        }
    }

    /// A JPEG whose frame header (SOF0) declares 60000×60000 pixels: refused from the header,
    /// before libjpeg allocates its buffers or the pixels are.
    @Test func aHugeJPEGIsRefusedFromItsHeader() throws {
        let fd = open(Self.orange, O_RDONLY)
        try #require(fd >= 0)
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        let n = read(fd, &bytes, bytes.count)
        close(fd)
        bytes.removeLast(bytes.count - n)
        // SOF0 (FF C0), length (2), precision (1), then height and width, big-endian.
        let sof = try #require((0..<(n - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        #expect(Array(bytes[(sof + 5)..<(sof + 9)]) == [0, 8, 0, 16], "orange.jpg is 16×8")
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])
        #expect(throws: PNGError.undecodable(format: "JPEG", path: "huge.jpg",
                                             reason: "it is 60000×60000 pixels (3600000000), over the limit of 268435456 pixels")) {
            try JPEG.decode(bytes, path: "huge.jpg")
        }
    }

    /// A JPEG cut short: libjpeg's own message, through the same error as PNG's.
    @Test func aBrokenJPEGCarriesLibjpegsMessage() {
        do {
            _ = try JPEG.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], path: "cut.jpg")
            Issue.record("a six-byte JPEG decoded")
        } catch {
            guard case let .decodingFailed(path, message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == "cut.jpg")
            #expect(message.hasPrefix("libjpeg: ") && message.count > "libjpeg: ".count, "\(message)")
        }
    }
}

/// `ReferenceImage.mismatch`, which every pixel test leans on: within the tolerance is a
/// match; past it, the message says by how much and where the rendering went.
@Suite("reference images")
struct ReferenceImageTests {
    static func reference(_ bitmap: Bitmap, _ name: String) throws -> String {
        let path = ImageFileTests.temporaryPath(name)
        try PNG.write(bitmap, toFile: path)
        return path
    }

    @Test func withinTheToleranceMatches() throws {
        let path = try Self.reference(Bitmap(width: 4, height: 4, fill: (100, 100, 100, 255)), "within.png")
        defer { unlink(path) }
        #expect(ReferenceImage.mismatch(Bitmap(width: 4, height: 4, fill: (103, 97, 100, 255)), reference: path, tolerance: 3) == nil)
    }

    @Test func pixelsPastTheToleranceAreCountedAgainstTheAllowance() throws {
        let path = try Self.reference(Bitmap(width: 4, height: 4, fill: (0, 0, 0, 255)), "past.png")
        defer { unlink(path) }
        var image = Bitmap(width: 4, height: 4, fill: (0, 0, 0, 255))
        for x in 0..<3 { image.bytes[x * 4] = 50 }  // red 50 in the top row's first three pixels
        // Three pixels differ by 50: allowed with 3, not with 2.
        #expect(ReferenceImage.mismatch(image, reference: path, tolerance: 3, allowedPixels: 3) == nil)
        let message = try #require(ReferenceImage.mismatch(image, reference: path, tolerance: 3, allowedPixels: 2))
        #expect(message.hasPrefix("3 pixels differ from \(path) by more than 3 (largest difference 50)"), "\(message)")
        let actual = "/tmp/lamina-actual-" + (path.split(separator: "/").last.map(String.init) ?? "")
        defer { unlink(actual) }
        #expect(message.hasSuffix("the rendering is in \(actual)"))
        #expect(try PNG.read(fromFile: actual) == image)
    }

    @Test func aDifferentSizeOrNoReferenceIsSaidSo() throws {
        let path = try Self.reference(Bitmap(width: 4, height: 4, fill: (0, 0, 0, 255)), "size.png")
        defer { unlink(path) }
        #expect(ReferenceImage.mismatch(Bitmap(width: 4, height: 3, fill: (0, 0, 0, 255)), reference: path)
                == "rendered 4×3 but the reference is 4×4")
        let missing = ReferenceImage.mismatch(Bitmap(width: 1, height: 1), reference: "/nonexistent/lamina/none.png")
        #expect(missing?.hasPrefix("cannot read the reference (open(\"/nonexistent/lamina/none.png\") failed") == true, "\(missing ?? "nil")")
    }
}
