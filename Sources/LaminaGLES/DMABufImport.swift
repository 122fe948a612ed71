import CEGL
import CGLES
import LaminaServer

/// Shows video pictures that decoders leave in dma-buf memory without copying them: each is
/// imported as an EGLImage (`EGL_EXT_image_dma_buf_import`) and a texture is made its sibling
/// (`glEGLImageTargetTexture2DOES`, GL_OES_EGL_image), so the contents shaders sample the
/// decoder's buffer in place.
///
/// Whether it can is known only at run time: the display must list the extensions, the
/// renderer must be a GPU's, and the driver must accept the buffer (a KMS device may refuse
/// another device's buffers; virtio-gpu refuses a camera's). The first refusal is kept with its
/// reason (`refusal`, logged and in `stats`), and from then on pictures are mapped and copied
/// like any other frame.
final class DMABufImporter {
    private let display: EGLDisplay
    private let createImage: PFNEGLCREATEIMAGEKHRPROC
    private let destroyImage: PFNEGLDESTROYIMAGEKHRPROC
    private let targetTexture: @convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void
    private let modifiers: Bool
    /// Why pictures are copied rather than imported; nil while imports work.
    private(set) var refusal: String?

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
        let glExtensions = glGetString(GLenum(GL_EXTENSIONS)).map { String(cString: $0) } ?? ""
        guard glExtensions.split(separator: " ").contains("GL_OES_EGL_image"),
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

    /// Makes `texture` (bound to GL_TEXTURE_2D) show `picture`; returns the EGLImage it now
    /// samples (release it when the texture shows another), or nil when the picture must be
    /// copied instead (and `refusal` says why, when the driver refused).
    /// The corresponding C functions are `eglCreateImageKHR` and `glEGLImageTargetTexture2DOES`.
    func attach(_ picture: DMABufPicture, to texture: GLuint) -> EGLImageKHR? {
        guard refusal == nil, let attributes = Self.attributes(for: picture, modifiers: modifiers) else { return nil }
        guard let image = createImage(display, nil, EGLenum(EGL_LINUX_DMA_BUF_EXT), nil, attributes) else {
            let code = eglGetError()
            refusal = "the driver refused to import a \(picture.width)×\(picture.height) \(DRMFourCC.name(picture.fourcc)) dma-buf (eglCreateImageKHR: \(EGLError.name(ofCode: code)))"
            return nil
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        targetTexture(GLenum(GL_TEXTURE_2D), image)
        if case let error = glGetError(), error != GLenum(GL_NO_ERROR) {
            _ = destroyImage(display, image)
            refusal = "glEGLImageTargetTexture2DOES refused a \(DRMFourCC.name(picture.fourcc)) image (GL error 0x\(String(error, radix: 16)))"
            return nil
        }
        return image
    }

    /// The `eglCreateImageKHR` attributes that describe `picture`, or nil for one that is
    /// copied instead: several planes (YUV layouts take `samplerExternalOES`, not done), alpha
    /// (decoders give it straight, the compositor blends premultiplied: the copy premultiplies),
    /// or numbers no EGLint holds (no real buffer has them).
    static func attributes(for picture: DMABufPicture, modifiers: Bool) -> [EGLint]? {
        guard !picture.hasAlpha, picture.planes.count == 1, let plane = picture.planes.first,
              let width = EGLint(exactly: picture.width), let height = EGLint(exactly: picture.height),
              let offset = EGLint(exactly: plane.offset), let pitch = EGLint(exactly: plane.pitch) else { return nil }
        var attributes: [EGLint] = [
            EGL_WIDTH, width, EGL_HEIGHT, height,
            EGL_LINUX_DRM_FOURCC_EXT, EGLint(bitPattern: picture.fourcc),
            EGL_DMA_BUF_PLANE0_FD_EXT, plane.fd,
            EGL_DMA_BUF_PLANE0_OFFSET_EXT, offset,
            EGL_DMA_BUF_PLANE0_PITCH_EXT, pitch,
        ]
        if let modifier = picture.modifier, modifiers {
            attributes += [EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGLint(bitPattern: UInt32(truncatingIfNeeded: modifier)),
                           EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT, EGLint(bitPattern: UInt32(truncatingIfNeeded: modifier >> 32))]
        }
        attributes.append(EGL_NONE)
        return attributes
    }

    /// Lets an image go (its texture shows another picture, or is deleted).
    func release(_ image: EGLImageKHR) { _ = destroyImage(display, image) }
}
