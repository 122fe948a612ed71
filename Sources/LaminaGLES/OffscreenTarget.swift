import CGLES

/// A texture with a framebuffer object around it: where an offscreen group (group opacity, a
/// shadow caster's pixels) or a blur pass is drawn before it is composited.
///
/// The renderer keeps a few, the size of the output, and reuses them every frame.
final class OffscreenTarget {
    let context: GLESContext
    let width: Int
    let height: Int
    private(set) var framebuffer: GLuint = 0
    private(set) var texture: GLuint = 0

    /// An RGBA8 texture, linearly filtered and clamped (blur passes sample between texels).
    /// The context must be current.
    init(context: GLESContext, width: Int, height: Int) throws(GLESError) {
        self.context = context
        self.width = width
        self.height = height
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        if context.capabilities().textureStorage {
            glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA8), GLsizei(width), GLsizei(height))
        } else {
            // ES 2: unsized RGBA, whose internal format must equal the format.
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(width), GLsizei(height), 0,
                         GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        }
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        try GLESError.check("creating a \(width)×\(height) offscreen target")
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            release()
            throw .framebufferIncomplete(status: status)
        }
    }

    /// Deletes the GL objects now.
    func release() {
        guard framebuffer != 0 || texture != 0, context.makeCurrentForCleanup() else { return }
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteTextures(1, &texture)
        framebuffer = 0
        texture = 0
    }

    deinit { release() }
}
