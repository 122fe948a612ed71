import CEGL
import LaminaGLES
import LaminaServer

/// An EGL window surface on a GBM surface: what an output's frames are drawn into. Destroyed
/// when released.
public final class EGLWindowSurface {
    public let handle: EGLSurface
    public let display: EGLDisplayConnection
    /// Kept alive while EGL draws into it.
    public let gbmSurface: GBMSurface

    /// The corresponding C function is `eglCreatePlatformWindowSurface`.
    public init(display: EGLDisplayConnection, config: EGLConfig, gbmSurface: GBMSurface) throws(EGLError) {
        guard let surface = eglCreatePlatformWindowSurface(display.handle, config, UnsafeMutableRawPointer(gbmSurface.handle), nil) else {
            throw .callFailed(call: "eglCreatePlatformWindowSurface(\(gbmSurface.width)x\(gbmSurface.height))", code: eglGetError())
        }
        handle = surface
        self.display = display
        self.gbmSurface = gbmSurface
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

    /// How many frames ago the back buffer about to be drawn was last drawn: 1 for the frame
    /// before, 0 where its content is unknown (a new buffer, or no EGL_EXT_buffer_age), which
    /// means drawing it whole. The surface must be current.
    /// The corresponding C function is `eglQuerySurface(EGL_BUFFER_AGE_EXT)`.
    public func bufferAge() -> Int {
        guard supportsBufferAge else { return 0 }
        var age: EGLint = 0
        guard eglQuerySurface(display.handle, handle, EGLint(EGL_BUFFER_AGE_EXT), &age) == EGL_TRUE else { return 0 }
        return max(0, Int(age))
    }

    /// Hands the frame drawn so far to GBM, where `lockFrontBuffer` finds it, telling EGL what
    /// changed where the display supports swapping with damage (`damage` in pixels, y down
    /// from the top; nil: everything).
    /// The corresponding C functions are `eglSwapBuffersWithDamageKHR` and `eglSwapBuffers`.
    public func swapBuffers(damage: DamageRegion? = nil) throws(EGLError) {
        if let swapWithDamage, let damage, !damage.isEmpty {
            // EGL rectangles are x, y, width, height with y up from the bottom.
            let height = Double(gbmSurface.height)
            var rects: [EGLint] = []
            for b in damage.boxes {
                rects += [EGLint(clampingToGL: b.x0), EGLint(clampingToGL: height - b.y1),
                          EGLint(clampingToGL: b.x1 - b.x0), EGLint(clampingToGL: b.y1 - b.y0)]
            }
            guard swapWithDamage(display.handle, handle, &rects, EGLint(damage.boxes.count)) == EGL_TRUE else {
                throw .callFailed(call: "eglSwapBuffersWithDamageKHR", code: eglGetError())
            }
            return
        }
        guard eglSwapBuffers(display.handle, handle) == EGL_TRUE else {
            throw .callFailed(call: "eglSwapBuffers", code: eglGetError())
        }
    }

    deinit {
        if eglGetCurrentSurface(EGL_DRAW) == handle {
            _ = eglMakeCurrent(display.handle, nil, nil, eglGetCurrentContext())
        }
        _ = eglDestroySurface(display.handle, handle)
    }
}
