import CEGL
import CGLES
import LaminaCompositor

/// Shows video pictures that decoders leave in dma-buf memory without copying them: each is
/// imported as an EGLImage (`EGL_EXT_image_dma_buf_import`) and a texture is made its sibling
/// (`glEGLImageTargetTexture2DOES`, GL_OES_EGL_image), so the contents shaders sample the
/// decoder's buffer in place.
///
/// Whether it can is known only at run time: the display must list the extensions, the
/// renderer must be a GPU's, and the driver must accept the buffer (a KMS device may refuse
/// another device's buffers; virtio-gpu refuses a camera's). The first refusal of each format
/// is kept with its reason (the first of all as `refusal`, logged and in `stats`), and from then
/// on pictures of that format are mapped and copied like any other frame; a refused NV12 does
/// not stop RGB pictures being imported, nor the other way round.
final class DMABufImporter {
    private let display: EGLDisplay
    private let createImage: PFNEGLCREATEIMAGEKHRPROC
    private let destroyImage: PFNEGLDESTROYIMAGEKHRPROC
    private let targetTexture: @convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void
    private let modifiers: Bool
    /// Why pictures are copied rather than imported: the first refusal; nil while every import
    /// worked.
    private(set) var refusal: String?
    /// The refused formats (DRM fourccs, a handful at most) and why.
    private var refused: [UInt32: String] = [:]

    /// An importer for `display` and the context's `renderer` (GL_RENDERER), or nil with the
    /// reason it cannot import.
    static func make(display: EGLDisplayConnection, renderer: String) -> (importer: DMABufImporter?, reason: String) {
        // A software rasteriser reads the pixels on the CPU either way, so an import saves one
        // copy at most; and Mesa 22's kms_swrast takes another device's dma-buf and then faults
        // reading it (a vivid camera's buffer through vgem crashed its rasteriser thread), so
        // laminad does not risk it.
        if let software = GLESRenderer.softwareRasterizer(renderer) {
            return (nil, "the renderer is \(software), a software rasteriser (importing saves no work there, and Mesa's software import of other devices' dma-bufs is unreliable)")
        }
        guard display.extensions.contains("EGL_EXT_image_dma_buf_import") else {
            return (nil, "the EGL display lacks EGL_EXT_image_dma_buf_import")
        }
        guard display.extensions.contains("EGL_KHR_image_base"), let create = eglGetProcAddress("eglCreateImageKHR"),
              let destroy = eglGetProcAddress("eglDestroyImageKHR") else {
            return (nil, "the EGL display lacks EGL_KHR_image_base")
        }
        guard GLESContext.currentExtensions().contains("GL_OES_EGL_image"),
              let address = eglGetProcAddress("glEGLImageTargetTexture2DOES") else {
            return (nil, "the GL context lacks GL_OES_EGL_image")
        }
        let target = unsafeBitCast(address, to: (@convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void).self)
        let importer = DMABufImporter(display: display.handle, create: unsafeBitCast(create, to: PFNEGLCREATEIMAGEKHRPROC.self),
                                      destroy: unsafeBitCast(destroy, to: PFNEGLDESTROYIMAGEKHRPROC.self), target: target,
                                      modifiers: display.extensions.contains("EGL_EXT_image_dma_buf_import_modifiers"))
        return (importer, "EGL_EXT_image_dma_buf_import")
    }

    private init(display: EGLDisplay, create: PFNEGLCREATEIMAGEKHRPROC, destroy: PFNEGLDESTROYIMAGEKHRPROC,
                 target: @escaping @convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void, modifiers: Bool) {
        self.display = display
        self.createImage = create
        self.destroyImage = destroy
        self.targetTexture = target
        self.modifiers = modifiers
    }

    /// Makes `texture` (bound to GL_TEXTURE_2D) show a packed RGB `picture`; returns the
    /// EGLImage it now samples (release it when the texture shows another), or nil when the
    /// picture must be copied instead (and `refusal` says why, when the driver refused).
    /// The corresponding C functions are `eglCreateImageKHR` and `glEGLImageTargetTexture2DOES`.
    func attach(_ picture: DMABufPicture, to texture: GLuint) -> EGLImageKHR? {
        // YUV is sampled through an external texture only (`attachExternal`).
        guard !picture.isYUV else { return nil }
        return attach(picture, to: texture, target: GLenum(GL_TEXTURE_2D))
    }

    /// Makes `texture` (an external texture, GL_TEXTURE_EXTERNAL_OES) show a YUV `picture`:
    /// the driver converts it to RGB as it is sampled (`samplerExternalOES`), following the
    /// colour hints. Returns the EGLImage, or nil as `attach(_:to:)` does.
    func attachExternal(_ picture: DMABufPicture, to texture: GLuint) -> EGLImageKHR? {
        attach(picture, to: texture, target: GLenum(GL_TEXTURE_EXTERNAL_OES))
    }

    private func attach(_ picture: DMABufPicture, to texture: GLuint, target: GLenum) -> EGLImageKHR? {
        guard refused[picture.fourcc] == nil, let attributes = Self.attributes(for: picture, modifiers: modifiers) else { return nil }
        guard let image = createImage(display, nil, EGLenum(EGL_LINUX_DMA_BUF_EXT), nil, attributes) else {
            let code = eglGetError()
            refuse(picture, "the driver refused to import a \(picture.width)×\(picture.height) \(DRMFourCC.name(picture.fourcc)) dma-buf (eglCreateImageKHR: \(EGLError.name(ofCode: code)))")
            return nil
        }
        // An error left from earlier in the frame must not read as this binding's.
        var stale = 0
        while stale < 8, glGetError() != GLenum(GL_NO_ERROR) { stale += 1 }
        glBindTexture(target, texture)
        targetTexture(target, image)
        if case let error = glGetError(), error != GLenum(GL_NO_ERROR) {
            _ = destroyImage(display, image)
            refuse(picture, "glEGLImageTargetTexture2DOES refused a \(DRMFourCC.name(picture.fourcc)) image (GL error 0x\(String(error, radix: 16)))")
            return nil
        }
        return image
    }

    /// The layouts of `wanted` (DRM fourccs) the display imports into 2D textures, each with
    /// the modifiers it takes that way (`eglQueryDmaBufFormatsEXT`, `eglQueryDmaBufModifiersEXT`;
    /// modifiers a driver samples only as external textures are left out); without the
    /// modifiers extension, each format with its implicit modifier only (an import can name
    /// none).
    func formats(_ wanted: [UInt32]) -> [DMABufFormat] {
        guard modifiers, let q = eglGetProcAddress("eglQueryDmaBufFormatsEXT"), let m = eglGetProcAddress("eglQueryDmaBufModifiersEXT") else {
            return wanted.map { DMABufFormat(fourcc: $0, modifiers: []) }
        }
        let queryFormats = unsafeBitCast(q, to: PFNEGLQUERYDMABUFFORMATSEXTPROC.self)
        let queryModifiers = unsafeBitCast(m, to: PFNEGLQUERYDMABUFMODIFIERSEXTPROC.self)
        var count: EGLint = 0
        guard queryFormats(display, 0, nil, &count) == EGL_TRUE, count > 0, count < 4096 else { return [] }
        var codes = [EGLint](repeating: 0, count: Int(count))
        guard queryFormats(display, count, &codes, &count) == EGL_TRUE else { return [] }
        let listed = Set(codes.prefix(Int(count)).map { UInt32(bitPattern: $0) })
        return wanted.filter(listed.contains).compactMap { fourcc in
            var n: EGLint = 0
            let code = EGLint(bitPattern: fourcc)
            guard queryModifiers(display, code, 0, nil, nil, &n) == EGL_TRUE, n >= 0, n < 4096 else { return nil }
            var mods = [EGLuint64KHR](repeating: 0, count: Int(n))
            var external = [EGLBoolean](repeating: 0, count: Int(n))
            if n > 0, queryModifiers(display, code, n, &mods, &external, &n) != EGL_TRUE { return nil }
            let usable = zip(mods, external).prefix(Int(n)).filter { $0.1 == EGL_FALSE }.map(\.0)
            // None listed: the driver takes the format with an implicit modifier only.
            return DMABufFormat(fourcc: fourcc, modifiers: usable)
        }
    }

    private func refuse(_ picture: DMABufPicture, _ reason: String) {
        refused[picture.fourcc] = reason
        if refusal == nil { refusal = reason }
    }

    /// The `eglCreateImageKHR` attributes that describe `picture`, or nil for one that is
    /// copied instead: packed RGB with alpha (decoders give it straight, the compositor blends
    /// premultiplied: the copy premultiplies), a plane count its layout does not have (one for
    /// packed RGB, two for NV12, three for YU12), or numbers no EGLint holds (no real buffer
    /// has them). YUV pictures carry the stream's colour matrix and range as hints.
    static func attributes(for picture: DMABufPicture, modifiers: Bool) -> [EGLint]? {
        let expectedPlanes = picture.fourcc == DRMFourCC.nv12 ? 2 : picture.fourcc == DRMFourCC.yuv420 ? 3 : 1
        guard !picture.hasAlpha || picture.alphaIsPremultiplied, picture.planes.count == expectedPlanes,
              let width = EGLint(exactly: picture.width), let height = EGLint(exactly: picture.height) else { return nil }
        var attributes: [EGLint] = [EGL_WIDTH, width, EGL_HEIGHT, height, EGL_LINUX_DRM_FOURCC_EXT, EGLint(bitPattern: picture.fourcc)]
        let names: [(fd: Int32, offset: Int32, pitch: Int32, low: Int32, high: Int32)] = [
            (EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT, EGL_DMA_BUF_PLANE0_PITCH_EXT,
             EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT),
            (EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT, EGL_DMA_BUF_PLANE1_PITCH_EXT,
             EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT),
            (EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT, EGL_DMA_BUF_PLANE2_PITCH_EXT,
             EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT),
        ]
        for (plane, name) in zip(picture.planes, names) {
            guard let offset = EGLint(exactly: plane.offset), let pitch = EGLint(exactly: plane.pitch) else { return nil }
            attributes += [name.fd, plane.fd, name.offset, offset, name.pitch, pitch]
            // The modifier applies to every plane of the buffer.
            if let modifier = picture.modifier, modifiers {
                attributes += [name.low, EGLint(bitPattern: UInt32(truncatingIfNeeded: modifier)),
                               name.high, EGLint(bitPattern: UInt32(truncatingIfNeeded: modifier >> 32))]
            }
        }
        if picture.isYUV {
            // Chroma sited between its luma samples both ways, as the YUV shader samples it, so
            // an imported picture and a copied one look the same.
            attributes += [EGL_YUV_COLOR_SPACE_HINT_EXT, Self.colourSpaceHint(picture.matrix),
                           EGL_SAMPLE_RANGE_HINT_EXT, picture.fullRange ? EGL_YUV_FULL_RANGE_EXT : EGL_YUV_NARROW_RANGE_EXT,
                           EGL_YUV_CHROMA_HORIZONTAL_SITING_HINT_EXT, EGL_YUV_CHROMA_SITING_0_5_EXT,
                           EGL_YUV_CHROMA_VERTICAL_SITING_HINT_EXT, EGL_YUV_CHROMA_SITING_0_5_EXT]
        }
        attributes.append(EGL_NONE)
        return attributes
    }

    /// Lets an image go (its texture shows another picture, or is deleted).
    func release(_ image: EGLImageKHR) { _ = destroyImage(display, image) }

    /// EGL_YUV_COLOR_SPACE_HINT_EXT's value for a picture's colour matrix.
    static func colourSpaceHint(_ matrix: PlanarPicture.Matrix) -> EGLint {
        switch matrix {
        case .bt601: EGL_ITU_REC601_EXT
        case .bt709: EGL_ITU_REC709_EXT
        case .bt2020: EGL_ITU_REC2020_EXT
        }
    }
}
