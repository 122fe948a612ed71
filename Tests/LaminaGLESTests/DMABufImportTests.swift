import CEGL
import LaminaCore
@testable import LaminaGLES
import LaminaServer
import LaminaHeadless
import Testing

/// How a video picture in dma-buf memory is described to `eglCreateImageKHR`, and which ones
/// are copied instead. (Importing itself needs a GPU's driver: see VideoCameraVMTests.swift.)
@Suite("dma-buf import")
struct DMABufImportTests {
    final class Keeper {}

    static func picture(width: Int = 640, height: Int = 360, fourcc: UInt32 = DRMFourCC.xrgb8888, modifier: UInt64? = nil,
                        planes: [DMABufPicture.Plane] = [.init(fd: 7, offset: 64, pitch: 2560)], alpha: Bool = false) -> DMABufPicture {
        DMABufPicture(width: width, height: height, fourcc: fourcc, modifier: modifier, planes: planes, hasAlpha: alpha,
                      keeper: Keeper()) { nil }
    }

    /// The attributes as key → value.
    static func pairs(_ a: [EGLint]) -> [EGLint: EGLint] {
        var out: [EGLint: EGLint] = [:]
        var i = 0
        while i + 1 < a.count { out[a[i]] = a[i + 1]; i += 2 }
        return out
    }

    @Test func anOpaquePackedPictureIsDescribedPlaneByPlane() throws {
        let a = try #require(DMABufImporter.attributes(for: Self.picture(), modifiers: true))
        #expect(a.last == EGL_NONE && a.count % 2 == 1)
        let p = Self.pairs(a)
        #expect(p[EGL_WIDTH] == 640 && p[EGL_HEIGHT] == 360)
        #expect(p[EGL_LINUX_DRM_FOURCC_EXT] == EGLint(bitPattern: DRMFourCC.xrgb8888))
        #expect(p[EGL_DMA_BUF_PLANE0_FD_EXT] == 7 && p[EGL_DMA_BUF_PLANE0_OFFSET_EXT] == 64 && p[EGL_DMA_BUF_PLANE0_PITCH_EXT] == 2560)
        #expect(p[EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT] == nil, "no modifier said, none passed")
        #expect(DRMFourCC.name(DRMFourCC.xrgb8888) == "XR24" && DRMFourCC.name(DRMFourCC.abgr8888) == "AB24")
    }

    @Test func aModifierIsSplitInHalvesWhereTheDisplayTakesThem() throws {
        let modifier: UInt64 = 0x0100_0000_0000_0004  // I915_FORMAT_MOD_Y_TILED-like
        let with = Self.pairs(try #require(DMABufImporter.attributes(for: Self.picture(modifier: modifier), modifiers: true)))
        #expect(with[EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT] == 4 && with[EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT] == 0x0100_0000)
        let without = Self.pairs(try #require(DMABufImporter.attributes(for: Self.picture(modifier: modifier), modifiers: false)))
        #expect(without[EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT] == nil)
    }

    @Test func alphaSeveralPlanesAndImpossibleNumbersAreCopied() {
        #expect(DMABufImporter.attributes(for: Self.picture(fourcc: DRMFourCC.argb8888, alpha: true), modifiers: true) == nil,
                "straight alpha is premultiplied by the copy")
        #expect(DMABufImporter.attributes(for: Self.picture(planes: [.init(fd: 7, offset: 0, pitch: 640), .init(fd: 7, offset: 230_400, pitch: 640)]),
                                          modifiers: true) == nil, "YUV layouts are not imported")
        #expect(DMABufImporter.attributes(for: Self.picture(width: Int(Int32.max) + 1), modifiers: true) == nil)
        #expect(DMABufImporter.attributes(for: Self.picture(planes: [.init(fd: 7, offset: 1 << 40, pitch: 2560)]), modifiers: true) == nil)
    }

    /// The headless renderer here is llvmpipe on a display without the import extension: it
    /// copies, and says why.
    @Test func theHeadlessRendererSaysWhyItCopies() throws {
        let backend = try HeadlessBackend(width: 64, height: 64)
        let why = backend.glesRenderer.videoImport
        #expect(why.hasPrefix("copied: "), "\(why)")
        #expect(why.contains("EGL_EXT_image_dma_buf_import") || why.contains("software rasteriser"), "\(why)")
        #expect(backend.glesRenderer.videoImportRefusal == nil)
    }
}
