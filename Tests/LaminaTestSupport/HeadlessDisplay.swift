import LaminaCore
import LaminaGLES
import LaminaHeadless
import LaminaCompositor

/// The headless backend wired to the GLES renderer, as laminad wires them
/// (`openDisplay`): a surfaceless context's renderer draws the frame step's frames into the
/// output's framebuffers, which came from that renderer's allocator. For pixel tests and
/// benchmarks; like its context, used on the thread that created it.
public final class HeadlessDisplay {
    public let graphics: GLESGraphics
    public let backend: HeadlessBackend
    /// The frame step over `backend`, drawing with `renderer`.
    public let presenter: FramePresenter

    /// A `width` × `height` output of `buffers` buffers, with its own GL context, which is left
    /// current on the calling thread. `gles` picks the renderer path (by default the mode the
    /// tests run in, `LAMINA_GLES`: `GLESMode`).
    public init(width: Int, height: Int, buffers: Int = 1, gles: GLESRequest? = nil) throws {
        graphics = try gles.map { try GLESGraphics.headless(request: $0) } ?? GLESGraphics.headless()
        backend = try HeadlessBackend(width: width, height: height, buffers: buffers, allocator: graphics.allocator)
        presenter = FramePresenter(backend: backend, renderer: graphics.renderer, offscreen: graphics.allocator)
    }

    /// The renderer, typed for the GL-specific calls tests make (`finish()`, its caches).
    public var renderer: GLESRenderer { graphics.renderer }
    /// The GL context, current on the thread that created the display.
    public var context: GLESContext { graphics.context }
    /// The renderer and the EGL display in one line.
    public var rendererDescription: String { graphics.summary }

    /// Whether frames redraw only their damage; false draws every frame whole.
    public var damageTracking: Bool {
        get { backend.damageTracking }
        set { backend.damageTracking = newValue }
    }
    /// How many frames have been presented.
    public var framesPresented: Int { backend.framesPresented }
    /// What the frames drew.
    public var damageStatistics: DamageStatistics { backend.damageStatistics }

    /// Draws `list` into the output's next buffer through the frame step, redrawing only what
    /// that buffer lacks, and keeps it there as the frame presented. The list must be the
    /// output's size.
    public func present(_ list: DrawList) throws {
        try backend.checkSize(of: list)
        try presenter.present(list)
    }

    /// The last frame presented, top row first: the pixels of its buffer as drawn.
    public func screenshot() throws -> Bitmap {
        try presenter.screenshot()
    }
}
