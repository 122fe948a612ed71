import LaminaCore
@testable import LaminaGLES
import LaminaGPUChecks
import LaminaCompositor
import LaminaTestSupport
import Testing

/// A video's frames can change kind mid-stream (caps renegotiated: a decoder going from system
/// memory to dma-bufs, RGB to NV12). Packed RGB dma-bufs live in a top-down texture (imported
/// in place where the driver takes them), every other frame in a bottom-up one (converted or
/// copied): the texture cache starts a new entry when the kind changes, and every frame shows.
@Suite("Video frames changing kind")
struct VideoFrameKindTests {
    final class Keeper {}

    @Test func aVideoWhoseFramesChangeKindGetsATextureOfTheRightKind() throws {
        let backend = try HeadlessDisplay(width: 64, height: 48)
        let picture = GPUChecks.planarPicture()
        let rgba = picture.rgba()
        let source = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: VideoFrame(planar: picture, time: 0))
        let area = Rect(x: 0, y: 0, width: 64, height: 48)
        let list = DrawList(width: 64, height: 48, commands: [
            DrawCommand(kind: .contents, transform: .identity, bounds: area, contents: DrawContents(source: source, destination: area, isOpaque: false)),
        ])
        func show() throws -> (bottomUp: Bool, packed: Bool, worst: Int) {
            try backend.present(list)
            let shot = try backend.screenshot()
            var worst = 0
            for y in 0..<48 where abs(y - 24) > 2 {
                for x in 0..<64 where abs(x - 32) > 2 {
                    let p = shot.pixel(x: x, y: y), q = rgba.pixel(x: x, y: y)
                    worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
                }
            }
            let e = try #require(backend.renderer.textures.entries[source.id])
            return (e.bottomUp, e.packedDMABuf, worst)
        }
        let first = try show()
        #expect(first.bottomUp && !first.packed && first.worst <= 2, "planar: \(first)")
        let packed = DMABufPicture(width: 64, height: 48, fourcc: DRMFourCC.xrgb8888, modifier: nil,
                                   planes: [.init(fd: -1, offset: 0, pitch: 256)], hasAlpha: false, keeper: Keeper()) { rgba }
        source.replace(with: VideoFrame(dmabuf: packed, time: 1.0 / 30))
        let second = try show()
        #expect(!second.bottomUp && second.packed && second.worst <= 2, "packed RGB dma-buf: \(second)")
        source.replace(with: GPUChecks.nv12DMABufFrame(picture))
        let third = try show()
        #expect(third.bottomUp && !third.packed && third.worst <= 2, "NV12 dma-buf: \(third)")
    }
}
