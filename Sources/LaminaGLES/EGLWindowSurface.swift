import CEGL
import CGLES
import LaminaCore
import LaminaCompositor

/// An EGL window surface over a native window (a GBM surface): an output's swapchain, made by
/// `GBMGraphics` for the KMS backend. Destroyed when released; it holds the window's owner,
/// so the window outlives it.
public final class EGLWindowSurface: ScanoutSurface, GLESRenderTarget {
    public let handle: EGLSurface
    public let context: GLESContext
    private let owner: AnyObject
    public let width: Int
    public let height: Int

    /// The corresponding C function is `eglCreatePlatformWindowSurface`.
    public init(context: GLESContext, config: EGLConfig, window: OpaquePointer, width: Int, height: Int, owner: AnyObject) throws(EGLError) {
        let display = context.display
        guard let surface = eglCreatePlatformWindowSurface(display.handle, config, UnsafeMutableRawPointer(window), nil) else {
            throw .callFailed(call: "eglCreatePlatformWindowSurface(\(width)x\(height))", code: eglGetError())
        }
        handle = surface
        self.context = context
        self.owner = owner
        self.width = width
        self.height = height
        supportsBufferAge = display.extensions.contains("EGL_EXT_buffer_age") || display.extensions.contains("EGL_KHR_partial_update")
        let name = display.extensions.contains("EGL_KHR_swap_buffers_with_damage") ? "eglSwapBuffersWithDamageKHR"
            : display.extensions.contains("EGL_EXT_swap_buffers_with_damage") ? "eglSwapBuffersWithDamageEXT" : nil
        swapWithDamage = name.flatMap { eglGetProcAddress($0) }.map { unsafeBitCast($0, to: PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC.self) }
    }

    /// Whether the surface reports how old its back buffer is (EGL_EXT_buffer_age or
    /// EGL_KHR_partial_update).
    public let supportsBufferAge: Bool
    /// `eglSwapBuffersWithDamageKHR` (or the EXT one) where the display has it.
    private let swapWithDamage: PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC?
    /// Whether swaps tell EGL what changed.
    public var supportsSwapWithDamage: Bool { swapWithDamage != nil }

    /// Makes the context current on this surface, drawing into its back buffer.
    public func bindForDrawing() throws {
        if eglGetCurrentSurface(EGL_DRAW) != handle || !context.isCurrent { try context.makeCurrent(surface: handle) }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    /// Binds the surface and returns how many frames ago its back buffer was last drawn: 1 for
    /// the frame before, 0 where its content is unknown (a new buffer, or no EGL_EXT_buffer_age),
    /// which means drawing it whole.
    /// The corresponding C function is `eglQuerySurface(EGL_BUFFER_AGE_EXT)`.
    public func beginFrame() throws -> Int {
        try bindForDrawing()
        guard supportsBufferAge else { return 0 }
        var age: EGLint = 0
        guard eglQuerySurface(context.display.handle, handle, EGLint(EGL_BUFFER_AGE_EXT), &age) == EGL_TRUE else { return 0 }
        return max(0, Int(age))
    }

    /// Hands the frame drawn so far to the native window (where GBM's `lockFrontBuffer` finds
    /// it), telling EGL what changed where the display supports swapping with damage (`damage`
    /// in pixels, y down from the top; nil: everything).
    /// The corresponding C functions are `eglSwapBuffersWithDamageKHR` and `eglSwapBuffers`.
    public func swapBuffers(damage: DamageRegion?) throws {
        let display = context.display.handle
        if let swapWithDamage, let damage, !damage.isEmpty {
            // EGL rectangles are x, y, width, height with y up from the bottom.
            let height = Double(self.height)
            var rects: [EGLint] = []
            for b in damage.boxes {
                rects += [EGLint(saturating: b.x0), EGLint(saturating: height - b.y1),
                          EGLint(saturating: b.x1 - b.x0), EGLint(saturating: b.y1 - b.y0)]
            }
            guard swapWithDamage(display, handle, &rects, EGLint(damage.boxes.count)) == EGL_TRUE else {
                throw EGLError.callFailed(call: "eglSwapBuffersWithDamageKHR", code: eglGetError())
            }
            return
        }
        guard eglSwapBuffers(display, handle) == EGL_TRUE else {
            throw EGLError.callFailed(call: "eglSwapBuffers", code: eglGetError())
        }
    }

    deinit {
        if eglGetCurrentSurface(EGL_DRAW) == handle {
            _ = eglMakeCurrent(context.display.handle, nil, nil, eglGetCurrentContext())
        }
        _ = eglDestroySurface(context.display.handle, handle)
    }
}
