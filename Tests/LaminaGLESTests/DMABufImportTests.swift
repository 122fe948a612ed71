import CEGL
import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import LaminaTestSupport
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
                                          modifiers: true) == nil, "packed RGB has one plane")
        #expect(DMABufImporter.attributes(for: Self.picture(width: Int(Int32.max) + 1), modifiers: true) == nil)
        #expect(DMABufImporter.attributes(for: Self.picture(planes: [.init(fd: 7, offset: 1 << 40, pitch: 2560)]), modifiers: true) == nil)
    }

    static func yuvPicture(fourcc: UInt32, planes: [DMABufPicture.Plane], matrix: PlanarPicture.Matrix = .bt709,
                           fullRange: Bool = false, modifier: UInt64? = nil) -> DMABufPicture {
        DMABufPicture(width: 1920, height: 1080, fourcc: fourcc, modifier: modifier, planes: planes, matrix: matrix,
                      fullRange: fullRange, keeper: Keeper()) { nil }
    }

    @Test func anNV12PictureIsDescribedByBothPlanesWithItsColourHints() throws {
        let planes: [DMABufPicture.Plane] = [.init(fd: 9, offset: 0, pitch: 2048), .init(fd: 9, offset: 2048 * 1088, pitch: 2048)]
        let picture = Self.yuvPicture(fourcc: DRMFourCC.nv12, planes: planes, modifier: 0x0300_0000_0000_0001)
        #expect(picture.isYUV && !picture.hasAlpha)
        let a = try #require(DMABufImporter.attributes(for: picture, modifiers: true))
        let p = Self.pairs(a)
        #expect(p[EGL_LINUX_DRM_FOURCC_EXT] == EGLint(bitPattern: DRMFourCC.nv12) && DRMFourCC.name(DRMFourCC.nv12) == "NV12")
        #expect(p[EGL_DMA_BUF_PLANE0_FD_EXT] == 9 && p[EGL_DMA_BUF_PLANE0_OFFSET_EXT] == 0 && p[EGL_DMA_BUF_PLANE0_PITCH_EXT] == 2048)
        #expect(p[EGL_DMA_BUF_PLANE1_FD_EXT] == 9 && p[EGL_DMA_BUF_PLANE1_OFFSET_EXT] == 2048 * 1088 && p[EGL_DMA_BUF_PLANE1_PITCH_EXT] == 2048)
        #expect(p[EGL_DMA_BUF_PLANE2_FD_EXT] == nil)
        #expect(p[EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT] == 1 && p[EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT] == 1
                && p[EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT] == 0x0300_0000, "the modifier is given for every plane")
        #expect(p[EGL_YUV_COLOR_SPACE_HINT_EXT] == EGL_ITU_REC709_EXT && p[EGL_SAMPLE_RANGE_HINT_EXT] == EGL_YUV_NARROW_RANGE_EXT)
        #expect(p[EGL_YUV_CHROMA_HORIZONTAL_SITING_HINT_EXT] == EGL_YUV_CHROMA_SITING_0_5_EXT
                && p[EGL_YUV_CHROMA_VERTICAL_SITING_HINT_EXT] == EGL_YUV_CHROMA_SITING_0_5_EXT, "sited as the shader samples")
        let full = Self.pairs(try #require(DMABufImporter.attributes(
            for: Self.yuvPicture(fourcc: DRMFourCC.nv12, planes: planes, matrix: .bt601, fullRange: true), modifiers: true)))
        #expect(full[EGL_YUV_COLOR_SPACE_HINT_EXT] == EGL_ITU_REC601_EXT && full[EGL_SAMPLE_RANGE_HINT_EXT] == EGL_YUV_FULL_RANGE_EXT)
        let wide = Self.pairs(try #require(DMABufImporter.attributes(
            for: Self.yuvPicture(fourcc: DRMFourCC.nv12, planes: planes, matrix: .bt2020, fullRange: false), modifiers: true)))
        #expect(wide[EGL_YUV_COLOR_SPACE_HINT_EXT] == EGL_ITU_REC2020_EXT)
        #expect(Self.pairs(try #require(DMABufImporter.attributes(for: Self.picture(), modifiers: true)))[EGL_YUV_COLOR_SPACE_HINT_EXT] == nil,
                "packed RGB carries no YUV hints")
    }

    @Test func aYU12PictureHasThreePlanesAndAWrongPlaneCountIsCopied() throws {
        let three: [DMABufPicture.Plane] = [.init(fd: 4, offset: 0, pitch: 1920), .init(fd: 5, offset: 0, pitch: 960),
                                            .init(fd: 6, offset: 64, pitch: 960)]
        let p = Self.pairs(try #require(DMABufImporter.attributes(for: Self.yuvPicture(fourcc: DRMFourCC.yuv420, planes: three), modifiers: false)))
        #expect(p[EGL_DMA_BUF_PLANE1_FD_EXT] == 5 && p[EGL_DMA_BUF_PLANE2_FD_EXT] == 6 && p[EGL_DMA_BUF_PLANE2_OFFSET_EXT] == 64)
        #expect(p[EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT] == nil)
        #expect(DMABufImporter.attributes(for: Self.yuvPicture(fourcc: DRMFourCC.yuv420, planes: Array(three.prefix(2))), modifiers: true) == nil)
        #expect(DMABufImporter.attributes(for: Self.yuvPicture(fourcc: DRMFourCC.nv12, planes: three), modifiers: true) == nil)
        #expect(DMABufImporter.attributes(for: Self.yuvPicture(fourcc: DRMFourCC.nv12, planes: [.init(fd: 4, offset: 1 << 40, pitch: 1920),
                                                                                                 .init(fd: 4, offset: 0, pitch: 1920)]),
                                          modifiers: true) == nil)
    }

    /// The headless renderer here is llvmpipe on a display without the import extension: it
    /// copies, and says why.
    @Test func theHeadlessRendererSaysWhyItCopies() throws {
        let backend = try HeadlessDisplay(width: 64, height: 64)
        let why = backend.renderer.videoImport
        #expect(why.hasPrefix("copied: "), "\(why)")
        #expect(why.contains("EGL_EXT_image_dma_buf_import") || why.contains("software rasteriser"), "\(why)")
        #expect(backend.renderer.videoImportRefusal == nil)
    }
}
