import CEGL
import LaminaGLES

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
    }

    /// Hands the frame drawn so far to GBM, where `lockFrontBuffer` finds it.
    /// The corresponding C function is `eglSwapBuffers`.
    public func swapBuffers() throws(EGLError) {
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
