import LaminaCore
import LaminaGPUChecks
import LaminaCompositor
import LaminaTestSupport
import Testing

/// Planar YUV video pictures (I420, what software decoders give) are uploaded as three planes
/// and converted to RGB in a shader, into a bottom-up texture like every video frame in system
/// memory. What shows must be what the CPU conversion (`PlanarPicture.rgba`) shows as an
/// ordinary image: copied one texel to a pixel, and drawn scaled (`GPUChecks.yuvShader`, which
/// lamina-gpu-check also runs on a GPU).
@Suite("YUV conversion")
struct YUVConversionTests {
    @Test func convertedInAShaderShowsWhatTheCPUConversionShows() throws {
        // One texel to a pixel: converted once, then copied by the blit.
        let copied = try GPUChecks.yuvShader(GPUChecks.planarPicture(), scale: 1, origin: (10, 20))
        // (The ES 2 path has no blit: it draws the texture instead.)
        #expect(copied.worst <= 2 && copied.conversions == 1 && (GLESMode.isES2 ? copied.blits == 0 : copied.blits > 0), "\(copied)")
        // Scaled: drawn by the plain contents program from the bottom-up texture.
        let scaled = try GPUChecks.yuvShader(GPUChecks.planarPicture(matrix: .bt709), scale: 2, origin: (3, 4))
        #expect(scaled.worst <= 2 && scaled.conversions == 1 && scaled.blits == 0, "\(scaled)")
        let full = try GPUChecks.yuvShader(GPUChecks.planarPicture(fullRange: true), scale: 1.5, origin: (0, 0))
        #expect(full.worst <= 2, "\(full)")
    }
}

/// YUV pictures in dma-buf memory (a V4L2 hardware decoder's NV12): imported in place as an
/// external image where the driver takes them, converted by one draw; else their planes are
/// mapped and copied and converted like a picture in system memory.
@Suite("YUV in dma-buf memory")
struct YUVDMABufTests {
    final class Keeper {}

    @Test func whereItCannotBeImportedItsPlanesAreCopiedAndConvertedInTheShader() throws {
        let copied = try GPUChecks.yuvShader(GPUChecks.planarPicture(), scale: 1, origin: (10, 20)) { GPUChecks.nv12DMABufFrame($0) }
        #expect(copied.worst <= 2 && copied.conversions == 1 && copied.copied == 1 && copied.imported == 0
                && (GLESMode.isES2 ? copied.blits == 0 : copied.blits > 0),
                "\(copied)")
        let scaled = try GPUChecks.yuvShader(GPUChecks.planarPicture(matrix: .bt709), scale: 2, origin: (3, 4)) {
            GPUChecks.nv12DMABufFrame($0, fourcc: DRMFourCC.yuv420)
        }
        #expect(scaled.worst <= 2 && scaled.conversions == 1 && scaled.copied == 1, "\(scaled)")
    }

    @Test func aPictureThatCannotBeMappedEitherIsCountedAndDrawsNoConversion() throws {
        let backend = try HeadlessDisplay(width: 64, height: 48)
        let dmabuf = DMABufPicture(width: 64, height: 48, fourcc: DRMFourCC.nv12, modifier: nil,
                                   planes: [.init(fd: -1, offset: 0, pitch: 64), .init(fd: -1, offset: 3072, pitch: 64)],
                                   matrix: .bt601, fullRange: false, keeper: Keeper()) { nil }
        #expect(dmabuf.copyPlanar() == nil && dmabuf.copy() == nil)
        let source = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: VideoFrame(dmabuf: dmabuf, time: 0))
        let area = Rect(x: 0, y: 0, width: 64, height: 48)
        try backend.present(DrawList(width: 64, height: 48, commands: [
            DrawCommand(kind: .contents, transform: .identity, bounds: area, contents: DrawContents(source: source, destination: area, isOpaque: false)),
        ]))
        let stats = Dictionary(backend.renderer.cacheStatistics.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(stats["video.dmabufCopied"] == 1 && stats["video.yuvConversions"] == 0, "\(stats)")
    }

    /// The external-image draw itself, on any renderer with GL_OES_EGL_image_external_essl3
    /// (llvmpipe has it): an EGLImage made from a texture (no dma-buf needed) bound as the
    /// external texture and drawn into an RGBA texture, read back as the picture.
    @Test func anExternalImageIsDrawnAsThePicture() throws {
        switch GPUChecks.externalImage() {
        case let .passed(detail): #expect(Bool(true), Comment(rawValue: detail))
        case let .skipped(reason), let .refused(reason): try Test.cancel(Comment(rawValue: reason))
        case let .failed(reason): Issue.record(Comment(rawValue: reason))
        }
    }
}
