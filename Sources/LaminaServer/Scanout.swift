import LaminaCore

/// A buffer a frame is drawn into, as the renderer sees it: an offscreen framebuffer, or the
/// back buffer of an output's window surface. The renderer that made it knows how to bind it.
public protocol RenderTarget: AnyObject {
    var width: Int { get }
    var height: Int { get }
}

/// An output's swapchain as the renderer's window system makes it (an EGL window surface over
/// a GBM surface): frames are drawn into its back buffer, then swapped to the native window,
/// where the backend takes the buffer for scan-out.
public protocol ScanoutSurface: RenderTarget {
    /// Whether `beginFrame` can tell how old the back buffer is (EGL_EXT_buffer_age).
    var supportsBufferAge: Bool { get }
    /// Whether `swapBuffers` can pass on what changed (EGL_KHR_swap_buffers_with_damage).
    var supportsSwapWithDamage: Bool { get }
    /// Makes the back buffer the one frames are drawn into, and returns how many frames ago it
    /// was last drawn: 1 for the frame before, 0 where its content is unknown (draw it whole).
    func beginFrame() throws -> Int
    /// Hands the frame drawn to the native window; `damage` (pixels, y down; nil: everything)
    /// is what changed since the frame before.
    func swapBuffers(damage: DamageRegion?) throws
}

/// What a scan-out backend (KMS) draws its outputs with, made by the renderer's side for the
/// backend's device: the backend knows connectors, CRTCs and buffers, never GL. (wlroots keeps
/// `wlr_renderer` apart from `wlr_backend` in the same way.)
public protocol ScanoutGraphics: AnyObject {
    /// The renderer every output is drawn with (one, so textures and caches are shared).
    var renderer: any Renderer { get }
    /// The window system and renderer in one line, for the log.
    var summary: String { get }
    /// A surface over the native window `window` (a `gbm_surface *`) of `width` × `height`
    /// pixels. The surface holds `owner` (the window's owner) until it is gone itself, so the
    /// window outlives it.
    func makeSurface(window: OpaquePointer, width: Int, height: Int, owner: AnyObject) throws -> any ScanoutSurface
    /// Draws `list` into an offscreen buffer and reads it back, top row first: screenshots
    /// where the buffers on screen cannot be read (several outputs, turned ones).
    func redraw(_ list: DrawList) throws -> Bitmap
}

/// Makes the graphics for a scan-out device: `display` is the backend's native display (a
/// `gbm_device *`), `format` the DRM fourcc its buffers must have for scan-out.
public typealias ScanoutGraphicsFactory = (_ display: OpaquePointer, _ format: UInt32) throws -> any ScanoutGraphics
