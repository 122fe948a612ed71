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
/// benchmarks and CI machines without a GPU). It has one output, `HeadlessOutput`, covering
/// the display.
///
/// Uses Mesa's surfaceless EGL platform, or the first EGL device where that is missing.
/// Like the GL context it owns, a backend must be used on the thread that created it.
public final class HeadlessBackend: DisplayBackend {
    /// The GL context, current on the thread that created the backend.
    public let context: GLESContext
    /// The renderer, typed for callers that need GL-specific calls such as `finish()`.
    public let glesRenderer: GLESRenderer
    /// The one output: `bufferCount` offscreen framebuffers drawn in turn.
    public let output: HeadlessOutput
    /// Whether frames redraw only their damage; false draws every frame whole.
    public var damageTracking = true

    /// The most buffers a headless output rotates.
    public static let maximumBuffers = 4

    /// Creates a `width` × `height` offscreen output of `buffers` buffers with its own GL
    /// context, which is left current on the calling thread.
    public init(width: Int, height: Int, buffers: Int = 1) throws {
        let context = try GLESContext.headless()
        self.context = context
        let count = min(max(1, buffers), Self.maximumBuffers)
        let framebuffers = try (0..<count).map { _ in try GLESFramebuffer(context: context, width: width, height: height) }
        glesRenderer = try GLESRenderer(context: context)
        output = HeadlessOutput(context: context, renderer: glesRenderer, buffers: framebuffers)
        framebuffers[0].bind()
    }

    /// "headless".
    public var name: String { "headless" }
    /// The output's width in pixels, fixed at creation.
    public var width: Int { output.pixelWidth }
    /// The output's height in pixels, fixed at creation.
    public var height: Int { output.pixelHeight }
    /// The GLES renderer, as the server's `Renderer`.
    public var renderer: any Renderer { glesRenderer }
    /// The one output.
    public var outputs: [any Output] { [output] }

    /// The offscreen framebuffers frames are drawn into, in turn.
    public var buffers: [GLESFramebuffer] { output.buffers }
    /// The buffer presented last (the first before any frame).
    public var framebuffer: GLESFramebuffer { output.framebuffer }
    /// How many frames have been presented.
    public var framesPresented: Int { output.framesPresented }
    /// What the frames drew.
    public var damageStatistics: DamageStatistics { output.damageStatistics }

    /// The EGL display and GL renderer in one line, for the log at start-up:
    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits); EGL 1.5 (Mesa Project) on surfaceless".
    public var rendererDescription: String { "\(glesRenderer.name); \(context.display)" }

    /// Draws `list` into the output's next buffer through the frame step (`FramePresenter`),
    /// redrawing only what that buffer lacks, and keeps it there as the frame presented.
    /// The list must be the output's size.
    public func present(_ list: DrawList) throws {
        guard list.width == width, list.height == height else {
            throw HeadlessBackendError.sizeMismatch(
                listWidth: list.width, listHeight: list.height, outputWidth: width, outputHeight: height)
        }
        try FramePresenter(backend: self).present(list)
    }

    /// The last frame presented, top row first: the pixels of its buffer as drawn.
    public func screenshot() throws -> Bitmap {
        try output.readPresented() ?? glesRenderer.readPixels()
    }
}

/// The headless backend's output: like a swapchain, it rotates its buffers, and a frame's
/// buffer age says how many frames ago it was last drawn, so frames redraw only what their
/// buffer lacks and tests exercise the same history a KMS output's EGL surface has
/// (`laminad --buffers N`). A frame shows as soon as it is committed.
public final class HeadlessOutput: Output {
    /// The offscreen framebuffers frames are drawn into, in turn.
    public let buffers: [GLESFramebuffer]
    private let context: GLESContext
    private let renderer: GLESRenderer
    /// How many frames have been committed.
    public private(set) var framesPresented = 0
    public var damage = DamageTracker()
    public var damageStatistics = DamageStatistics()
    /// Frames are kept at most two behind, as a display's swapchain keeps them (`FramePacing`).
    private var pacing = FramePacing(depth: 2)
    /// The buffer presented last (where screenshots are read), the one being drawn, and when
    /// each was last drawn (in frames presented).
    private var current = 0
    private var drawing: Int?
    private var drawnAt: [Int?]

    init(context: GLESContext, renderer: GLESRenderer, buffers: [GLESFramebuffer]) {
        self.context = context
        self.renderer = renderer
        self.buffers = buffers
        drawnAt = [Int?](repeating: nil, count: buffers.count)
    }

    /// The buffer presented last (the first before any frame).
    public var framebuffer: GLESFramebuffer { buffers[current] }
    /// "headless".
    public var name: String { "headless" }
    public var layoutRect: Rect { Rect(x: 0, y: 0, width: Double(pixelWidth), height: Double(pixelHeight)) }
    public var scale: Double { 1 }
    public var transform: OutputTransform { .normal }
    public var pixelWidth: Int { buffers[0].width }
    public var pixelHeight: Int { buffers[0].height }
    /// Nothing paces headless frames: they show when committed.
    public var refreshInterval: Double? { nil }
    public var isOn: Bool { true }
    public func setPower(_ on: Bool) throws { throw PowerUnsupported(backend: "headless") }
    public var isFramePending: Bool { false }

    /// The next buffer in turn, and its age: 1 for the buffer drawn last frame, 0 for one never
    /// drawn, or whose last frame was begun but never committed.
    public func beginFrame() throws -> OutputFrame {
        if !context.isCurrent { try context.makeCurrent() }
        if let drawing { drawnAt[drawing] = nil }
        let next = framesPresented == 0 ? 0 : (current + 1) % buffers.count
        drawing = next
        let age = drawnAt[next].map { framesPresented + 1 - $0 } ?? 0
        return OutputFrame(target: buffers[next], bufferAge: age)
    }

    /// The buffer drawn becomes the frame presented.
    public func commit(damage: DamageRegion?) throws {
        guard let next = drawing else { return }
        drawing = nil
        pacing.frameIssued()
        framesPresented += 1
        drawnAt[next] = framesPresented
        current = next
    }

    /// The buffer presented last, as drawn.
    public func readPresented() throws -> Bitmap? {
        if !context.isCurrent { try context.makeCurrent() }
        framebuffer.bind()
        return try renderer.readPixels()
    }
}
