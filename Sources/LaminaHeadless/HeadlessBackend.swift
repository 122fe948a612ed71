import LaminaCore
import LaminaGLES
import LaminaServer

/// Why the headless backend could not present a frame.
public enum HeadlessBackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The draw list's size is not the output's: a headless output does not change size.
    case sizeMismatch(listWidth: Int, listHeight: Int, outputWidth: Int, outputHeight: Int)

    public var description: String {
        switch self {
        case let .sizeMismatch(lw, lh, ow, oh):
            "cannot present a \(lw)×\(lh) draw list on the \(ow)×\(oh) headless output"
        }
    }
}

/// A display backend with no display: frames are drawn with OpenGL ES into offscreen
/// framebuffers and stay there to be read back (weston's headless backend, for pixel tests,
/// benchmarks and CI machines without a GPU).
///
/// Like a swapchain, it rotates `bufferCount` buffers, and each frame redraws only what its
/// buffer lacks: the damage of the frames since that buffer was last drawn (its buffer age),
/// so tests exercise the same history a KMS output's EGL surface has. A screenshot reads the
/// buffer presented last, as it was drawn.
///
/// Uses Mesa's surfaceless EGL platform, or the first EGL device where that is missing.
/// Like the GL context it owns, a backend must be used on the thread that created it.
public final class HeadlessBackend: DisplayBackend {
    /// The GL context, current on the thread that created the backend.
    public let context: GLESContext
    /// The offscreen framebuffers frames are drawn into, in turn.
    public let buffers: [GLESFramebuffer]
    /// The renderer, typed for callers that need GL-specific calls such as `finish()`.
    public let glesRenderer: GLESRenderer
    /// How many frames `present` has drawn.
    public private(set) var framesPresented = 0
    /// Whether frames redraw only their damage; false draws every frame whole.
    public var damageTracking = true
    /// What changed from frame to frame, and so what each buffer lacks.
    public private(set) var damage = DamageTracker()
    /// What the last frames drew.
    public private(set) var damageStatistics = DamageStatistics()
    /// Frames are kept at most two behind, as a display's swapchain keeps them (`FramePacing`).
    private var pacing = FramePacing(depth: 2)
    /// The buffer presented last (where screenshots are read), and when each was last drawn.
    private var current = 0
    private var drawnAt: [Int?]

    /// The most buffers a headless output rotates.
    public static let maximumBuffers = 4

    /// Creates a `width` × `height` offscreen output of `buffers` buffers with its own GL
    /// context, which is left current on the calling thread.
    public init(width: Int, height: Int, buffers: Int = 1) throws {
        let context = try GLESContext.headless()
        self.context = context
        let count = min(max(1, buffers), Self.maximumBuffers)
        self.buffers = try (0..<count).map { _ in try GLESFramebuffer(context: context, width: width, height: height) }
        drawnAt = [Int?](repeating: nil, count: count)
        glesRenderer = try GLESRenderer(context: context)
        self.buffers[0].bind()
    }

    /// The buffer presented last (the first before any frame).
    public var framebuffer: GLESFramebuffer { buffers[current] }
    /// "headless".
    public var name: String { "headless" }
    /// The output's width in pixels, fixed at creation.
    public var width: Int { buffers[0].width }
    /// The output's height in pixels, fixed at creation.
    public var height: Int { buffers[0].height }
    /// The GLES renderer, as the server's `Renderer`.
    public var renderer: any Renderer { glesRenderer }

    /// The EGL display and GL renderer in one line, for the log at start-up:
    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits); EGL 1.5 (Mesa Project) on surfaceless".
    public var rendererDescription: String { "\(glesRenderer.name); \(context.display)" }

    /// Draws `list` into the next buffer, redrawing only what that buffer lacks, and keeps it
    /// there as the frame presented.
    public func present(_ list: DrawList) throws {
        guard list.width == width, list.height == height else {
            throw HeadlessBackendError.sizeMismatch(
                listWidth: list.width, listHeight: list.height, outputWidth: width, outputHeight: height)
        }
        if !context.isCurrent { try context.makeCurrent() }
        let next = framesPresented == 0 ? 0 : (current + 1) % buffers.count
        damage.record(list)
        // Buffer age: 1 for the buffer drawn last frame, 0 for one never drawn.
        let age = drawnAt[next].map { framesPresented + 1 - $0 } ?? 0
        let region = damageTracking ? damage.damage(bufferAge: age)?.orWhole(width: width, height: height) : nil
        do { try glesRenderer.draw(list, into: buffers[next], damage: region) } catch {
            // The buffer did not get this frame: its history is unknown, draw the next whole.
            damage.reset()
            drawnAt = drawnAt.map { _ in nil }
            throw error
        }
        pacing.frameIssued()
        damageStatistics.record(region, width: width, height: height)
        framesPresented += 1
        drawnAt[next] = framesPresented
        current = next
    }

    /// The last frame presented, top row first: the pixels of its buffer as drawn.
    public func screenshot() throws -> Bitmap {
        if !context.isCurrent { try context.makeCurrent() }
        framebuffer.bind()
        return try glesRenderer.readPixels()
    }
}
