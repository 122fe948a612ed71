import LaminaCompositor

/// What the KMS backend draws its outputs with, made by the renderer's side for the backend's
/// GBM device: each output's swapchain over its GBM surface. This module knows connectors,
/// CRTCs and buffers, never GL; the daemon wires the renderer's side in (laminad: EGL on the
/// GBM platform, LaminaGLES's `GBMGraphics`) and hands the renderer to the frame step.
public protocol ScanoutGraphics: AnyObject {
    /// The window system and renderer in one line, for the log.
    var summary: String { get }
    /// The renderer's swapchain over `window`, of its size. The surface holds `window` until it
    /// is gone itself, so the window outlives it.
    func makeSurface(over window: GBMSurface) throws -> any ScanoutSurface
}

/// Makes the graphics for a scan-out device: `device` is the backend's GBM device, `format` the
/// DRM fourcc its buffers must have for scan-out.
public typealias ScanoutGraphicsFactory = (_ device: GBMDevice, _ format: UInt32) throws -> any ScanoutGraphics
