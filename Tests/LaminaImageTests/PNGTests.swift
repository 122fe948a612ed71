import Glibc
import LaminaCore
import LaminaImage
import Testing

@Suite("PNG encoding and decoding")
struct PNGTests {
    /// A small image with every channel varying, including alpha, so nothing is premultiplied
    /// or dropped on the way through.
    static let sample: Bitmap = {
        var bytes: [UInt8] = []
        for y in 0..<5 {
            for x in 0..<7 {
                bytes += [UInt8(x * 36), UInt8(y * 60), UInt8((x * y * 13) % 256), UInt8(255 - x * 30 - y * 5)]
            }
        }
        return Bitmap(width: 7, height: 5, bytes: bytes)!
    }()

    @Test("encode then decode gives back the same pixels")
    func roundTrip() throws {
        let encoded = try PNG.encode(Self.sample)
        #expect(Array(encoded.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try PNG.decode(encoded) == Self.sample)
    }

    @Test("a file round trip gives back the same pixels")
    func fileRoundTrip() throws {
        let path = "/tmp/lamina-png-test-\(getpid()).png"
        defer { unlink(path) }
        try PNG.write(Self.sample, toFile: path)
        #expect(try PNG.read(fromFile: path) == Self.sample)
    }

    @Test("garbage bytes fail to decode with libpng's message")
    func garbage() {
        do {
            _ = try PNG.decode(Array("this is not a PNG file".utf8))
            Issue.record("decoding garbage succeeded")
        } catch {
            guard case let .decodingFailed(path, message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == nil)
            #expect(!message.isEmpty)
            #expect(error.description.contains("libpng says"))
        }
    }

    @Test("a truncated PNG fails to decode")
    func truncated() throws {
        let encoded = try PNG.encode(Self.sample)
        #expect(throws: PNGError.self) { try PNG.decode(Array(encoded.prefix(encoded.count / 2))) }
    }

    @Test("a missing file names the path and the errno")
    func missingFile() {
        let path = "/nonexistent/lamina/reference.png"
        #expect(throws: PNGError.systemCallFailed(call: "open", path: path, errno: ENOENT)) {
            try PNG.read(fromFile: path)
        }
    }

    @Test("a bitmap whose bytes do not match its size is refused")
    func malformed() {
        let bitmap = Bitmap(width: 0, height: 3)
        #expect(throws: PNGError.malformedBitmap(width: 0, height: 3, byteCount: 0)) { try PNG.encode(bitmap) }
    }
}
