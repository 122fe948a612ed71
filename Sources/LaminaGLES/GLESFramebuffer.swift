import CGLES
import LaminaServer

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
public final class GLESFramebuffer: GLESRenderTarget {
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
