import LaminaCore

/// A buffer a frame is drawn into, as the renderer sees it: an offscreen buffer, or the back
/// buffer of an output's window surface. The renderer's side made it and knows how to bind it.
public protocol RenderTarget: AnyObject {
    var width: Int { get }
    var height: Int { get }
}

/// A buffer drawn offscreen whose pixels can be read back: a headless output's buffers, and
/// the desktop the frame step redraws for a screenshot no output's buffer holds.
public protocol OffscreenBuffer: RenderTarget {
    /// The pixels as drawn, top row first.
    func read() throws -> Bitmap
}

/// Where offscreen buffers come from (wlroots' `wlr_allocator`): the renderer's side makes
/// them, so that its renderer can draw into them, for a backend that has no buffers of its own
/// (headless) and for the frame step's redraws. The backend never sees how they are made.
public protocol RenderTargetAllocator: AnyObject {
    /// A `width` × `height` buffer of unknown content.
    func makeBuffer(width: Int, height: Int) throws -> any OffscreenBuffer
    /// A frame drawn into one of its buffers was presented (a headless output's commit): the
    /// renderer's side may flush it and wait for an older one, keeping the GPU at most a few
    /// frames behind, as a display's swapchain does.
    func framePresented()
}

/// An output's swapchain as the renderer's window system makes it over the backend's native
/// window: frames are drawn into its back buffer, then swapped to the window, where the
/// backend takes the buffer for scan-out. The backend never sees the window system.
public protocol ScanoutSurface: RenderTarget {
    /// Whether `beginFrame` can tell how old the back buffer is.
    var supportsBufferAge: Bool { get }
    /// Whether `swapBuffers` can pass on what changed.
    var supportsSwapWithDamage: Bool { get }
    /// Makes the back buffer the one frames are drawn into, and returns how many frames ago it
    /// was last drawn: 1 for the frame before, 0 where its content is unknown (draw it whole).
    func beginFrame() throws -> Int
    /// Hands the frame drawn to the native window; `damage` (pixels, y down; nil: everything)
    /// is what changed since the frame before.
    func swapBuffers(damage: DamageRegion?) throws
}
