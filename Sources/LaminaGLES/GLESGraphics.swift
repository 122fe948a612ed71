/// What frames are drawn with: one context, its `GLESRenderer`, and the framebuffers that
/// renderer draws into (`allocator`: the headless output's buffers, the frame step's redraws
/// for screenshots). The daemon hands the renderer and the allocator to the frame step and the
/// allocator to a backend without buffers of its own. Like its context, used on the thread
/// that created it.
public final class GLESGraphics {
    /// The GL context, current on the thread that created it.
    public let context: GLESContext
    public let renderer: GLESRenderer
    public let allocator: GLESFramebufferAllocator

    /// The renderer for `context`, which must be current.
    public init(context: GLESContext) throws {
        self.context = context
        renderer = try GLESRenderer(context: context)
        allocator = GLESFramebufferAllocator(context: context)
    }

    /// With no display: a surfaceless context (Mesa's surfaceless EGL platform, or the first EGL
    /// device where that is missing), left current on the calling thread.
    public static func headless(request: GLESRequest = .fromEnvironment(GLESContext.environment())) throws -> GLESGraphics {
        try GLESGraphics(context: GLESContext.headless(request: request))
    }

    /// The GL renderer and the EGL display in one line, for the log at start-up:
    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits), ES 3 path (context ES 3.2);
    /// EGL 1.5 (Mesa Project) on surfaceless".
    public var summary: String { "\(renderer.name); \(context.display)" }
}
