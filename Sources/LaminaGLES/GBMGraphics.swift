import CEGL

/// The GLES renderer on a scan-out device: EGL on the GBM platform (EGL_PLATFORM_GBM_KHR) with
/// a config whose native visual is the scan-out format, one context and one `GLESRenderer` for
/// every output, window surfaces over the KMS backend's GBM surfaces, and offscreen
/// framebuffers for screenshots the scan-out buffers cannot give (`gles`). The daemon hands the
/// backend its surfaces and the frame step its renderer and allocator.
public final class GBMGraphics {
    /// The context, its renderer and its framebuffers.
    public let gles: GLESGraphics
    private let config: EGLConfig

    /// `device` is a `gbm_device *`, which `owner` owns; `format` the DRM fourcc scan-out needs
    /// (XRGB8888). The EGL display holds `owner` until it is terminated, so the device outlives
    /// it whoever lets go of what first (the renderer lives in the frame step, the device in
    /// the backend).
    public init(device: OpaquePointer, owner: AnyObject, format: UInt32,
                request: GLESRequest = .fromEnvironment(GLESContext.environment())) throws {
        let display = try EGLDisplayConnection(platform: EGLenum(EGL_PLATFORM_GBM_KHR), nativeDisplay: UnsafeMutableRawPointer(device),
                                               owner: owner)
        // ES 3 configurations where asked for and offered, else ES 2 ones (VC4, lima, etnaviv).
        func configs(_ renderable: EGLint) throws(EGLError) -> [EGLConfig] {
            try display.chooseConfigs([
                EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, renderable,
                EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 0,
            ])
        }
        let es3 = request.clientMajorVersion == 3 ? try? configs(EGL_OPENGL_ES3_BIT) : nil
        let candidates: [EGLConfig]
        if let es3 { candidates = es3 } else { candidates = try configs(EGL_OPENGL_ES2_BIT) }
        // The config's native visual is the GBM format.
        let wanted = EGLint(bitPattern: format)
        guard let config = candidates.first(where: { (try? display.attribute(EGL_NATIVE_VISUAL_ID, of: $0)) == wanted }) else {
            throw EGLError.noMatchingConfig("EGL_NATIVE_VISUAL_ID = 0x\(String(format, radix: 16)) on \(display)")
        }
        self.config = config
        let context = try GLESContext(display: display, config: config, request: request)
        try context.makeCurrent()
        gles = try GLESGraphics(context: context)
    }

    /// The GL renderer and the EGL display in one line, for the log.
    public var summary: String { gles.summary }

    /// An output's swapchain: a window surface over `window` (a `gbm_surface *`) of `width` ×
    /// `height` pixels. The surface holds `owner` (the window's owner) until it is gone itself,
    /// so the window outlives it.
    public func makeSurface(window: OpaquePointer, width: Int, height: Int, owner: AnyObject) throws -> EGLWindowSurface {
        try EGLWindowSurface(context: gles.context, config: config, window: window, width: width, height: height, owner: owner)
    }
}
