import CGLES
import LaminaCore
import LaminaCompositor

/// A render target of the GLES renderer: binding it makes the context current on it.
public protocol GLESRenderTarget: RenderTarget {
    func bindForDrawing() throws
    /// The colour buffer is RGBA8, the layout of the renderer's textures: a same-format blit
    /// into it is a plain copy on llvmpipe (`GLESRenderer.usesContentsBlit`).
    var isRGBA8: Bool { get }
}

extension GLESRenderTarget {
    public var isRGBA8: Bool { false }
}

/// An offscreen framebuffer object with one RGBA8 colour renderbuffer, for headless output and
/// screenshots. Its GL objects are deleted by `release()` or when it is deinitialised.
public final class GLESFramebuffer: GLESRenderTarget, OffscreenBuffer {
    public var isRGBA8: Bool { true }
    /// The context the objects belong to; kept alive so they can be deleted.
    public let context: GLESContext
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The framebuffer object name, or 0 once released.
    public private(set) var framebuffer: GLuint = 0
    private var colorBuffer: GLuint = 0

    /// Creates a `width` × `height` framebuffer. `context` must be current.
    /// The corresponding C functions are `glGenFramebuffers`, `glRenderbufferStorage` and
    /// `glFramebufferRenderbuffer`.
    public init(context: GLESContext, width: Int, height: Int) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        var maximum: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_RENDERBUFFER_SIZE), &maximum)
        guard width > 0, height > 0, width <= Int(maximum), height <= Int(maximum) else {
            throw .invalidSize(width: width, height: height, maximum: Int(maximum))
        }
        self.context = context
        self.width = width
        self.height = height
        glGenRenderbuffers(1, &colorBuffer)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), colorBuffer)
        glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGBA8), GLsizei(width), GLsizei(height))
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferRenderbuffer(
            GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), colorBuffer)
        try GLESError.check("glRenderbufferStorage(GL_RGBA8, \(width)×\(height))")
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else { throw .framebufferIncomplete(status: status) }
    }

    /// Directs drawing and reading to this framebuffer. The context must be current.
    /// The corresponding C function is `glBindFramebuffer`.
    public func bind() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
    }

    /// Makes the context current (without a surface) and binds this framebuffer.
    public func bindForDrawing() throws {
        if !context.isCurrent { try context.makeCurrent() }
        bind()
    }

    /// The pixels, top row first: makes the context current and reads this framebuffer whole.
    public func read() throws -> Bitmap {
        try bindForDrawing()
        // Its sides were checked when it was made.
        return try Self.readBound(width: width, height: height, maximum: max(width, height))
    }

    /// The bottom-left `width` × `height` pixels of the bound framebuffer, top row first; a
    /// side outside 1…`maximum` is refused. The context must be current.
    /// The corresponding C function is `glReadPixels`.
    static func readBound(width: Int, height: Int, maximum: Int) throws(GLESError) -> Bitmap {
        guard (1...max(1, maximum)).contains(width), (1...max(1, maximum)).contains(height) else {
            throw .invalidSize(width: width, height: height, maximum: maximum)
        }
        let rowBytes = width * 4
        var bottomUp = [UInt8](repeating: 0, count: rowBytes * height)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bottomUp)
        try GLESError.check("glReadPixels(\(width)×\(height))")
        // GL's row 0 is the bottom of the display; a Bitmap's is the top.
        guard let bitmap = Bitmap(width: width, height: height, bytes: GLESRenderer.flipped(bottomUp, rowBytes: rowBytes)) else {
            throw .invalidSize(width: width, height: height, maximum: maximum)
        }
        return bitmap
    }

    /// Deletes the GL objects now rather than at deinitialisation; later binds draw nowhere.
    /// The corresponding C functions are `glDeleteFramebuffers` and `glDeleteRenderbuffers`.
    public func release() {
        guard framebuffer != 0 || colorBuffer != 0, context.makeCurrentForCleanup() else { return }
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteRenderbuffers(1, &colorBuffer)
        framebuffer = 0
        colorBuffer = 0
    }

    deinit { release() }
}

/// The GLES renderer's offscreen buffers (wlroots' allocator): framebuffers of one context,
/// which the renderer of that context draws into. The headless output's swapchain and the
/// frame step's redraws for screenshots come from here.
public final class GLESFramebufferAllocator: RenderTargetAllocator {
    public let context: GLESContext
    /// Frames presented into its buffers are kept at most two behind, as a display's swapchain
    /// keeps them.
    private var pacing = FramePacing(depth: 2)
    private var pacingDecided = false

    public init(context: GLESContext) {
        self.context = context
    }

    /// A `width` × `height` `GLESFramebuffer`, made with the context current.
    public func makeBuffer(width: Int, height: Int) throws -> any OffscreenBuffer {
        if !context.isCurrent { try context.makeCurrent() }
        return try GLESFramebuffer(context: context, width: width, height: height)
    }

    /// Fences and flushes the frame, and waits for the one two before it (`FramePacing`).
    public func framePresented() {
        guard context.isCurrent || (try? context.makeCurrent()) != nil else { return }
        if !pacingDecided {
            pacing.usesFences = context.capabilities().fences
            let d = context.display
            if (d.version.major, d.version.minor) >= (1, 5), d.extensions.contains("EGL_KHR_fence_sync") {
                pacing.eglFenceDisplay = d.handle
            }
            pacingDecided = true
        }
        pacing.frameIssued()
    }
}
