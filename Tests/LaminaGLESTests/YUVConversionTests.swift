import LaminaCore
import CEGL
import CGLES
import LaminaGPUChecks
@testable import LaminaGLES
import LaminaHeadless
import LaminaServer
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
        #expect(copied.worst <= 2 && copied.conversions == 1 && copied.blits > 0, "\(copied)")
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

    /// A YUV dma-buf picture whose planes `copy` gives back (no real descriptors: llvmpipe never
    /// imports, so the picture is copied).
    static func frame(_ picture: PlanarPicture, fourcc: UInt32 = DRMFourCC.nv12) -> VideoFrame {
        let planes: [DMABufPicture.Plane] = fourcc == DRMFourCC.nv12
            ? [.init(fd: -1, offset: 0, pitch: 64), .init(fd: -1, offset: 64 * 48, pitch: 64)]
            : [.init(fd: -1, offset: 0, pitch: 64), .init(fd: -1, offset: 64 * 48, pitch: 32), .init(fd: -1, offset: 64 * 60, pitch: 32)]
        let dmabuf = DMABufPicture(width: picture.width, height: picture.height, fourcc: fourcc, modifier: nil, planes: planes,
                                   matrix: picture.matrix, fullRange: picture.fullRange, keeper: Keeper()) { picture }
        return VideoFrame(dmabuf: dmabuf, time: 0)
    }

    @Test func whereItCannotBeImportedItsPlanesAreCopiedAndConvertedInTheShader() throws {
        let copied = try GPUChecks.yuvShader(GPUChecks.planarPicture(), scale: 1, origin: (10, 20)) { Self.frame($0) }
        #expect(copied.worst <= 2 && copied.conversions == 1 && copied.copied == 1 && copied.imported == 0 && copied.blits > 0,
                "\(copied)")
        let scaled = try GPUChecks.yuvShader(GPUChecks.planarPicture(matrix: .bt709), scale: 2, origin: (3, 4)) {
            Self.frame($0, fourcc: DRMFourCC.yuv420)
        }
        #expect(scaled.worst <= 2 && scaled.conversions == 1 && scaled.copied == 1, "\(scaled)")
    }

    @Test func aPictureThatCannotBeMappedEitherIsCountedAndDrawsNoConversion() throws {
        let backend = try HeadlessBackend(width: 64, height: 48)
        let dmabuf = DMABufPicture(width: 64, height: 48, fourcc: DRMFourCC.nv12, modifier: nil,
                                   planes: [.init(fd: -1, offset: 0, pitch: 64), .init(fd: -1, offset: 3072, pitch: 64)],
                                   matrix: .bt601, fullRange: false, keeper: Keeper()) { nil }
        #expect(dmabuf.copyPlanar() == nil && dmabuf.copy() == nil)
        let source = ImageSource(owner: .session(1), number: 1, frame: VideoFrame(dmabuf: dmabuf, time: 0))
        let area = Rect(x: 0, y: 0, width: 64, height: 48)
        try backend.present(DrawList(width: 64, height: 48, commands: [
            DrawCommand(kind: .contents, transform: .identity, bounds: area, contents: DrawContents(source: source, destination: area, isOpaque: false)),
        ]))
        let stats = Dictionary(backend.glesRenderer.cacheStatistics.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(stats["video.dmabufCopied"] == 1 && stats["video.yuvConversions"] == 0, "\(stats)")
    }

    /// The external-image draw itself, on any renderer with GL_OES_EGL_image_external_essl3
    /// (llvmpipe has it): an EGLImage made from an RGB texture (no dma-buf needed) bound as the
    /// external texture and drawn into an RGBA texture, which must hold the picture bottom row
    /// first, as every converted video frame is kept.
    @Test func anExternalImageIsDrawnIntoABottomUpTexture() throws {
        let backend = try HeadlessBackend(width: 64, height: 48)
        try backend.context.makeCurrent()
        let renderer = backend.glesRenderer
        let converter = try #require(renderer.textures.yuv)
        guard converter.convertsExternalImages else {
            try Test.cancel("the GL context lacks GL_OES_EGL_image_external_essl3")
        }
        let display = backend.context.display
        guard display.extensions.contains("EGL_KHR_gl_texture_2D_image"),
              let create = eglGetProcAddress("eglCreateImageKHR"), let destroy = eglGetProcAddress("eglDestroyImageKHR"),
              let target = eglGetProcAddress("glEGLImageTargetTexture2DOES") else {
            try Test.cancel("the display cannot make an EGLImage from a texture (EGL_KHR_gl_texture_2D_image)")
        }
        let createImage = unsafeBitCast(create, to: PFNEGLCREATEIMAGEKHRPROC.self)
        let destroyImage = unsafeBitCast(destroy, to: PFNEGLDESTROYIMAGEKHRPROC.self)
        let targetTexture = unsafeBitCast(target, to: (@convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void).self)
        let w = 64, h = 48
        // Rows top first: red above, blue below; a green column on the left.
        var rgba = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h { for x in 0..<w {
            let i = (y * w + x) * 4
            (rgba[i], rgba[i + 1], rgba[i + 2]) = x < 8 ? (0, 200, 0) : y < h / 2 ? (220, 30, 20) : (20, 40, 210)
        } }
        var source: GLuint = 0, output: GLuint = 0, framebuffer: GLuint = 0
        glGenTextures(1, &source)
        glBindTexture(GLenum(GL_TEXTURE_2D), source)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_NEAREST)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(w), GLsizei(h))
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(w), GLsizei(h), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), rgba)
        glGenTextures(1, &output)
        glBindTexture(GLenum(GL_TEXTURE_2D), output)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(w), GLsizei(h))
        defer { glDeleteTextures(1, &source); glDeleteTextures(1, &output); glDeleteFramebuffers(1, &framebuffer) }
        let attributes: [EGLint] = [EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE]
        let image = try #require(createImage(display.handle, eglGetCurrentContext(), EGLenum(EGL_GL_TEXTURE_2D_KHR),
                                             UnsafeMutableRawPointer(bitPattern: UInt(source)), attributes))
        defer { _ = destroyImage(display.handle, image) }
        var bound: GLint = 0
        let result = converter.convertExternal(width: w, height: h, into: output) { external in
            glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), external)
            targetTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), image)
            return glGetError() == GLenum(GL_NO_ERROR) ? image : nil
        }
        glGetIntegerv(GLenum(GL_TEXTURE_BINDING_EXTERNAL_OES), &bound)
        #expect(result?.drawn == true && bound == 0, "drawn, and the external texture unbound again")
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), output, 0)
        var read = [UInt8](repeating: 0, count: w * h * 4)
        glReadPixels(0, 0, GLsizei(w), GLsizei(h), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &read)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        // Memory row r of the output is picture row h-1-r.
        var worst = 0
        for r in 0..<h { for x in 0..<w {
            let o = (r * w + x) * 4, i = ((h - 1 - r) * w + x) * 4
            for c in 0..<3 { worst = max(worst, abs(Int(read[o + c]) - Int(rgba[i + c]))) }
        } }
        #expect(worst <= 1, "largest difference \(worst)")
        #expect(converter.conversions == 1)
    }
}
