import CGLES
import LaminaCore
import LaminaServer

/// Draws a `DrawList` with OpenGL ES 3 into whatever framebuffer is bound: the headless
/// backend's `GLESFramebuffer`, or a KMS output's window surface.
///
/// One program, one static unit-square vertex buffer; each quad is four uniforms and one
/// `glDrawArrays`. Blending is premultiplied (`GL_ONE, GL_ONE_MINUS_SRC_ALPHA`) and there is no
/// depth test: quads are painted in list order, as Core Animation flattens each layer.
public final class GLESRenderer: Renderer {
    /// The context the renderer's GL objects belong to; it must be current to draw.
    public let context: GLESContext
    /// The GL strings of the context, read once when the renderer was made.
    public let info: GLInfo
    private let program: QuadProgram
    private var vertexArray: GLuint = 0
    private var vertexBuffer: GLuint = 0
    /// The size of the last list drawn: what `readPixels` reads.
    private var drawnSize: (width: Int, height: Int)?
    /// Reused for every quad's matrix so drawing allocates nothing.
    private var matrix = [GLfloat](repeating: 0, count: 16)
    private let maximumViewport: Int

    /// Compiles the shader program and uploads the unit square. `context` must be current.
    public init(context: GLESContext) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        self.context = context
        info = context.glInfo()
        program = try QuadProgram()
        var dimensions: [GLint] = [0, 0]
        glGetIntegerv(GLenum(GL_MAX_VIEWPORT_DIMS), &dimensions)
        maximumViewport = Int(min(dimensions[0], dimensions[1]))

        let unitSquare: [GLfloat] = [0, 0, 1, 0, 0, 1, 1, 1]  // a triangle strip
        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &vertexBuffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertexBuffer)
        glBufferData(GLenum(GL_ARRAY_BUFFER), unitSquare.count * MemoryLayout<GLfloat>.stride,
                     unitSquare, GLenum(GL_STATIC_DRAW))
        glVertexAttribPointer(QuadProgram.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        glEnableVertexAttribArray(QuadProgram.unitVertexLocation)
        glBindVertexArray(0)
        try GLESError.check("creating the unit-square vertex array")
    }

    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits)".
    public var name: String { info.description }

    /// Clears to the list's background and paints its quads back to front.
    /// The context must be current with the target framebuffer bound.
    public func draw(_ list: DrawList) throws(GLESError) {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard list.width > 0, list.height > 0, list.width <= maximumViewport, list.height <= maximumViewport else {
            throw .invalidSize(width: list.width, height: list.height, maximum: maximumViewport)
        }
        drawnSize = nil
        glViewport(0, 0, GLsizei(list.width), GLsizei(list.height))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glDisable(GLenum(GL_CULL_FACE))
        let background = list.background.premultiplied
        glClearColor(GLfloat(background.0), GLfloat(background.1), GLfloat(background.2), GLfloat(background.3))
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))

        glEnable(GLenum(GL_BLEND))
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        glUseProgram(program.program)
        glBindVertexArray(vertexArray)
        glUniform2f(program.pointsToClip, GLfloat(2 / Double(list.width)), GLfloat(2 / Double(list.height)))

        for quad in list.quads {
            let alpha = quad.color.alpha * quad.opacity
            // `!(x > 0)` also skips NaN.
            guard alpha > 0, quad.bounds.width > 0, quad.bounds.height > 0 else { continue }
            let b = quad.bounds
            glUniform4f(program.bounds, GLfloat(b.minX), GLfloat(b.minY), GLfloat(b.width), GLfloat(b.height))
            let c = quad.color
            glUniform4f(program.color, GLfloat(c.red * alpha), GLfloat(c.green * alpha), GLfloat(c.blue * alpha), GLfloat(alpha))
            upload(quad.transform)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
        glBindVertexArray(0)
        try GLESError.check("drawing \(list.quads.count) quads at \(list.width)×\(list.height)")
        drawnSize = (list.width, list.height)
    }

    /// Uploads `t`'s entries in row-major order, which GLSL reads column-major as the
    /// column-vector form of the same transform.
    @inline(__always)
    private func upload(_ t: Transform3D) {
        matrix.withUnsafeMutableBufferPointer { m in
            m[0] = GLfloat(t.m11); m[1] = GLfloat(t.m12); m[2] = GLfloat(t.m13); m[3] = GLfloat(t.m14)
            m[4] = GLfloat(t.m21); m[5] = GLfloat(t.m22); m[6] = GLfloat(t.m23); m[7] = GLfloat(t.m24)
            m[8] = GLfloat(t.m31); m[9] = GLfloat(t.m32); m[10] = GLfloat(t.m33); m[11] = GLfloat(t.m34)
            m[12] = GLfloat(t.m41); m[13] = GLfloat(t.m42); m[14] = GLfloat(t.m43); m[15] = GLfloat(t.m44)
            glUniformMatrix4fv(program.layerToDisplay, 1, GLboolean(GL_FALSE), m.baseAddress)
        }
    }

    /// Reads back the last frame drawn from the bound framebuffer, top row first.
    /// The corresponding C function is `glReadPixels`.
    public func readPixels() throws(GLESError) -> Bitmap {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard let (width, height) = drawnSize else { throw .nothingDrawn }
        let rowBytes = width * 4
        var bottomUp = [UInt8](repeating: 0, count: rowBytes * height)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bottomUp)
        try GLESError.check("glReadPixels(\(width)×\(height))")
        // GL's row 0 is the bottom of the display; a Bitmap's is the top.
        var topDown: [UInt8] = []
        topDown.reserveCapacity(bottomUp.count)
        for row in stride(from: height - 1, through: 0, by: -1) {
            topDown.append(contentsOf: bottomUp[row * rowBytes ..< (row + 1) * rowBytes])
        }
        guard let bitmap = Bitmap(width: width, height: height, bytes: topDown) else {
            throw .invalidSize(width: width, height: height, maximum: maximumViewport)
        }
        return bitmap
    }

    deinit {
        guard context.makeCurrentForCleanup() else { return }
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program.program)
    }
}
