import LaminaCore
@testable import LaminaGLES
import LaminaHeadless
import LaminaServer
import Testing

/// Planar YUV video pictures (I420, what software decoders give) are uploaded as three planes
/// and converted to RGB in a shader, into a bottom-up texture like every video frame in system
/// memory. What shows must be what the CPU conversion (`PlanarPicture.rgba`) shows as an
/// ordinary image: copied one texel to a pixel, and drawn scaled.
@Suite("YUV conversion")
struct YUVConversionTests {
    /// 64×48: luma different at every pixel; chroma constant in each quadrant (a colour each),
    /// so the chroma filtering between samples only shows along the quadrants' borders.
    static func picture(matrix: PlanarPicture.Matrix = .bt601, fullRange: Bool = false) -> PlanarPicture {
        var y: [UInt8] = [], u: [UInt8] = [], v: [UInt8] = []
        for row in 0..<48 { for col in 0..<64 { y.append(UInt8(40 + (col * 2 + row) % 160)) } }
        for row in 0..<24 {
            for col in 0..<32 {
                let quadrant = (row < 12 ? 0 : 2) + (col < 16 ? 0 : 1)
                u.append([90, 160, 110, 140][quadrant])
                v.append([200, 100, 60, 150][quadrant])
            }
        }
        return PlanarPicture(width: 64, height: 48, luma: y, cb: u, cr: v, matrix: matrix, fullRange: fullRange)!
    }

    static func list(_ source: ImageSource, transform: Transform3D, size: Size) -> DrawList {
        let background = DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 200, height: 150), color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1), opacity: 1)
        let area = Rect(x: 0, y: 0, width: size.width, height: size.height)
        let draw = DrawCommand(kind: .contents, transform: transform, bounds: area,
                               contents: DrawContents(source: source, destination: area, isOpaque: false))
        return DrawList(width: 200, height: 150, commands: [background, draw])
    }

    /// The largest channel difference between the planar picture drawn and its CPU conversion
    /// drawn as an ordinary image, away from the chroma quadrants' borders (in picture pixels,
    /// `scale` screen pixels each, from `origin`).
    func compare(_ picture: PlanarPicture, scale: Double, origin: (Double, Double)) throws -> (worst: Int, conversions: Int, blits: Int) {
        let yuv = try HeadlessBackend(width: 200, height: 150)
        let rgb = try HeadlessBackend(width: 200, height: 150)
        let video = ImageSource(owner: .session(1), number: 1, frame: VideoFrame(planar: picture, time: 0))
        let image = ImageSource(owner: .session(1), number: 2, bitmap: picture.rgba())
        let transform = Transform3D.scale(x: scale, y: scale).concatenating(.translation(x: origin.0, y: origin.1))
        let size = Size(width: 64, height: 48)
        try yuv.present(Self.list(video, transform: transform, size: size))
        try rgb.present(Self.list(image, transform: transform, size: size))
        let a = try yuv.screenshot(), b = try rgb.screenshot()
        var worst = 0
        for py in 0..<48 where abs(py - 24) > 2 {
            for px in 0..<64 where abs(px - 32) > 2 {
                let sx = Int(origin.0 + (Double(px) + 0.5) * scale), sy = Int(origin.1 + (Double(py) + 0.5) * scale)
                let p = a.pixel(x: sx, y: sy), q = b.pixel(x: sx, y: sy)
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        return (worst, yuv.glesRenderer.textures.yuv?.conversions ?? 0, yuv.glesRenderer.contentsBlits)
    }

    @Test func convertedInAShaderShowsWhatTheCPUConversionShows() throws {
        // One texel to a pixel: converted once, then copied by the blit.
        let copied = try compare(Self.picture(), scale: 1, origin: (10, 20))
        #expect(copied.worst <= 2 && copied.conversions == 1 && copied.blits > 0, "\(copied)")
        // Scaled: drawn by the plain contents program from the bottom-up texture.
        let scaled = try compare(Self.picture(matrix: .bt709), scale: 2, origin: (3, 4))
        #expect(scaled.worst <= 2 && scaled.conversions == 1 && scaled.blits == 0, "\(scaled)")
        let full = try compare(Self.picture(fullRange: true), scale: 1.5, origin: (0, 0))
        #expect(full.worst <= 2, "\(full)")
    }
}
