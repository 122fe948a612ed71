import CEGL
import CGLES
import LaminaCore
import LaminaCompositor

extension Shaders {
    /// Planar YUV 4:2:0 to RGB: the three planes sampled where the fragment lies in the
    /// picture (chroma filtered between its half-resolution samples), then the stream's matrix.
    /// Drawn over a whole RGBA texture, one fragment a pixel.
    static let yuvToRGB = fragmentCommon.insertingAfterVersion("#define HAS_CLIPS 0") + """
        in vec2 local;
        uniform sampler2D lumaPlane;
        uniform sampler2D cbPlane;
        uniform sampler2D crPlane;
        uniform vec2 pictureSize;
        uniform mat3 yuvToRGB;       // the range's scale folded in
        uniform vec3 yuvOffset;      // black's luma, and the chroma midpoint
        void main() {
            vec2 uv = local / pictureSize;
            vec3 yuv = vec3(texture(lumaPlane, uv).r, texture(cbPlane, uv).r, texture(crPlane, uv).r) - yuvOffset;
            fragColor = vec4(clamp(yuvToRGB * yuv, 0.0, 1.0), 1.0);
        }
        """
}

extension Shaders {
    /// An imported YUV dma-buf (NV12, YU12) to RGB: the driver converts as the external image
    /// is sampled (following the import's colour hints), one fragment a pixel.
    static let externalToRGB = fragmentCommon.insertingAfterVersion("#extension GL_OES_EGL_image_external_essl3 : require\n#define HAS_CLIPS 0") + """
        in vec2 local;
        uniform samplerExternalOES picture;
        uniform vec2 pictureSize;
        void main() {
            fragColor = vec4(texture(picture, local / pictureSize).rgb, 1.0);
        }
        """
}

/// `Shaders.externalToRGB`.
struct ExternalUniforms: ProgramUniforms {
    static var fragment: String { Shaders.externalToRGB }
    /// Sampler, texture unit 0.
    let picture: GLint
    let pictureSize: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        picture = try find("picture")
        pictureSize = try find("pictureSize")
    }

    func assignTextureUnits() { glUniform1i(picture, 0) }
}

/// `Shaders.yuvToRGB`.
struct YUVUniforms: ProgramUniforms {
    static var fragment: String { Shaders.yuvToRGB }
    /// Samplers, texture units 0, 1 and 2.
    let lumaPlane: GLint
    let cbPlane: GLint
    let crPlane: GLint
    let pictureSize: GLint
    let yuvToRGB: GLint
    let yuvOffset: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        lumaPlane = try find("lumaPlane")
        cbPlane = try find("cbPlane")
        crPlane = try find("crPlane")
        pictureSize = try find("pictureSize")
        yuvToRGB = try find("yuvToRGB")
        yuvOffset = try find("yuvOffset")
    }

    func assignTextureUnits() {
        glUniform1i(lumaPlane, 0)
        glUniform1i(cbPlane, 1)
        glUniform1i(crPlane, 2)
    }
}

/// Turns planar YUV video pictures (`PlanarPicture`) into the RGBA textures the renderer draws
/// contents from: the three planes uploaded as one-byte textures (a third of RGBA's bytes), and
/// one draw of `Shaders.yuvToRGB` into the picture's texture, rows stored bottom row first as
/// the texture cache keeps video frames (so an unflipped blit copies them to a framebuffer).
/// YUV pictures in dma-buf memory (a hardware decoder's NV12) are imported in place as an
/// external image instead, where the driver takes them, and drawn the same way through
/// `Shaders.externalToRGB` (GL_OES_EGL_image_external_essl3): no copy, no upload.
///
/// It runs inside a frame (from `TextureCache.bind`), so it puts back every piece of GL state
/// it touches: framebuffer, viewport, scissor, blend, program, vertex array, the active texture
/// unit and units 0–2's textures, and the unpack alignment.
final class YUVConverter {
    private let program: ShaderProgram<YUVUniforms>
    /// The external image program and the external texture it samples (nil where the context
    /// lacks GL_OES_EGL_image_external_essl3: YUV dma-bufs are then copied).
    private var external: (program: ShaderProgram<ExternalUniforms>, texture: GLuint)?
    private let vertexArray: GLuint
    private var planes: [GLuint] = [0, 0, 0]
    private var planeSizes: [(width: Int, height: Int)] = [(0, 0), (0, 0), (0, 0)]
    private var framebuffer: GLuint = 0
    /// What the context lets it use: R8 planes or luminance ones, separate read and draw
    /// framebuffers (ES 3) or one.
    private let capabilities: GLESCapabilities
    /// Pictures converted, since start.
    private(set) var conversions = 0

    /// `vertexArray` draws the unit square (the renderer's). The context must be current.
    init(vertexArray: GLuint, capabilities: GLESCapabilities) throws(GLESError) {
        self.capabilities = capabilities
        program = try ShaderProgram<YUVUniforms>(name: "yuvToRGB", fragment: YUVUniforms.fragment, slot: -1)
        self.vertexArray = vertexArray
        glGenTextures(3, &planes)
        for (i, texture) in planes.enumerated() {
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            // Luma one texel a pixel; chroma filtered between its samples.
            let filter = i == 0 ? GL_NEAREST : GL_LINEAR
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), filter)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), filter)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        glGenFramebuffers(1, &framebuffer)
        try GLESError.check("creating the YUV converter")
        let externalExtension = capabilities.path == .gles3 ? "GL_OES_EGL_image_external_essl3" : "GL_OES_EGL_image_external"
        if capabilities.extensions.contains(externalExtension),
           let externalProgram = try? ShaderProgram<ExternalUniforms>(name: "externalToRGB", fragment: ExternalUniforms.fragment, slot: -1) {
            var texture: GLuint = 0
            glGenTextures(1, &texture)
            glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), texture)
            glTexParameteri(GLenum(GL_TEXTURE_EXTERNAL_OES), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
            glTexParameteri(GLenum(GL_TEXTURE_EXTERNAL_OES), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
            glTexParameteri(GLenum(GL_TEXTURE_EXTERNAL_OES), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
            glTexParameteri(GLenum(GL_TEXTURE_EXTERNAL_OES), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
            glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), 0)
            external = (externalProgram, texture)
        }
        _ = glGetError()  // an external program this driver cannot build leaves the copy path
    }

    /// Whether YUV dma-bufs can be drawn from an external image (`convert(_:importer:into:)`).
    var convertsExternalImages: Bool { external != nil }

    /// Converts `picture` into `texture` (RGBA8, the picture's size). False where the texture
    /// cannot be drawn into (the caller then converts on the CPU).
    func convert(_ picture: PlanarPicture, into texture: GLuint) -> Bool {
        let saved = SavedState(separateReadFramebuffer: capabilities.framebufferBlit)
        defer { saved.restore() }
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        let sizes = [(picture.width, picture.height), (picture.chromaWidth, picture.chromaHeight), (picture.chromaWidth, picture.chromaHeight)]
        for (i, bytes) in [picture.luma, picture.cb, picture.cr].enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0 + Int32(i)))
            glBindTexture(GLenum(GL_TEXTURE_2D), planes[i])
            let (w, h) = sizes[i]
            // One channel: R8 (ES 3), unsized red (GL_EXT_texture_rg) or luminance, read as .r.
            let format = GLenum(capabilities.redTextures ? GL_RED : GL_LUMINANCE)
            let internalFormat = capabilities.path == .gles3 ? GL_R8 : GLint(format)
            bytes.withUnsafeBytes { p in
                if planeSizes[i] == (w, h) {
                    glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(w), GLsizei(h), format, GLenum(GL_UNSIGNED_BYTE), p.baseAddress)
                } else {
                    glTexImage2D(GLenum(GL_TEXTURE_2D), 0, internalFormat, GLsizei(w), GLsizei(h), 0, format, GLenum(GL_UNSIGNED_BYTE), p.baseAddress)
                    planeSizes[i] = (w, h)
                }
            }
        }
        let (matrix, offset) = picture.conversion
        return draw(program, width: picture.width, height: picture.height, into: texture) { uniforms in
            glUniform2f(uniforms.pictureSize, GLfloat(picture.width), GLfloat(picture.height))
            glUniformMatrix3fv(uniforms.yuvToRGB, 1, GLboolean(GL_FALSE), matrix)
            glUniform3f(uniforms.yuvOffset, offset.0, offset.1, offset.2)
        }
    }

    /// Converts a YUV `picture` in dma-buf memory into `texture` (RGBA8, the picture's size)
    /// without copying it: imported by `importer` as an external image, sampled once. False
    /// where it cannot (no external program, the driver refused: `importer.refusal` says why);
    /// the caller then copies the planes out.
    func convert(_ picture: DMABufPicture, importer: DMABufImporter, into texture: GLuint) -> Bool {
        guard let result = convertExternal(width: picture.width, height: picture.height, into: texture, attach: {
            importer.attachExternal(picture, to: $0)
        }) else { return false }
        // The texture kept the buffer for the draw; the image handle is not needed after it.
        importer.release(result.image)
        return result.drawn
    }

    /// Draws into `texture` (RGBA8, `width` × `height`) the image that `attach` puts on the
    /// external texture it is given (bound to GL_TEXTURE_EXTERNAL_OES on unit 0). Returns that
    /// image (the caller lets it go) and whether it was drawn; nil when `attach` gave none.
    func convertExternal(width: Int, height: Int, into texture: GLuint,
                         attach: (GLuint) -> EGLImageKHR?) -> (image: EGLImageKHR, drawn: Bool)? {
        guard let external else { return nil }
        let saved = SavedState(separateReadFramebuffer: capabilities.framebufferBlit)
        defer {
            glActiveTexture(GLenum(GL_TEXTURE0))
            glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), 0)
            saved.restore()
        }
        glActiveTexture(GLenum(GL_TEXTURE0))
        guard let image = attach(external.texture) else { return nil }
        let drawn = draw(external.program, width: width, height: height, into: texture) { uniforms in
            glUniform2f(uniforms.pictureSize, GLfloat(width), GLfloat(height))
        }
        return (image, drawn)
    }

    /// One draw of `program` over all of `texture` (`width` × `height`), its uniforms set by
    /// `set`; rows land bottom row first. The caller saved the GL state.
    private func draw<U: ProgramUniforms>(_ program: ShaderProgram<U>, width: Int, height: Int, into texture: GLuint,
                                          set: (U) -> Void) -> Bool {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        guard glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER)) == GLenum(GL_FRAMEBUFFER_COMPLETE) else { return false }
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        glDisable(GLenum(GL_SCISSOR_TEST))
        glDisable(GLenum(GL_BLEND))
        glUseProgram(program.program)
        let identity: [GLfloat] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        glUniformMatrix4fv(program.layerToDisplay, 1, GLboolean(GL_FALSE), identity)
        let w = GLfloat(width), h = GLfloat(height)
        glUniform4f(program.quad, 0, 0, w, h)
        glUniform2f(program.pointsToClip, 2 / w, 2 / h)
        set(program.uniforms)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), 0, 0)
        conversions += 1
        return true
    }

    func delete() {
        glDeleteTextures(3, &planes)
        if let external {
            var texture = external.texture
            glDeleteTextures(1, &texture)
            glDeleteProgram(external.program.program)
        }
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteProgram(program.program)
    }

    /// The GL state a conversion changes, read before and put back after.
    private struct SavedState {
        var framebuffer: GLint = 0
        var readFramebuffer: GLint = 0
        var viewport: [GLint] = [0, 0, 0, 0]
        var scissor = false
        var blend = false
        var program: GLint = 0
        var vertexArray: GLint = 0
        var activeTexture: GLint = 0
        var textures: [GLint] = [0, 0, 0]
        var alignment: GLint = 4
        /// ES 3: the read and draw framebuffers are kept apart; ES 2 has one binding.
        let separateReadFramebuffer: Bool

        init(separateReadFramebuffer: Bool) {
            self.separateReadFramebuffer = separateReadFramebuffer
            glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &framebuffer)
            if separateReadFramebuffer { glGetIntegerv(GLenum(GL_READ_FRAMEBUFFER_BINDING), &readFramebuffer) }
            glGetIntegerv(GLenum(GL_VIEWPORT), &viewport)
            scissor = glIsEnabled(GLenum(GL_SCISSOR_TEST)) != 0
            blend = glIsEnabled(GLenum(GL_BLEND)) != 0
            glGetIntegerv(GLenum(GL_CURRENT_PROGRAM), &program)
            glGetIntegerv(GLenum(GL_VERTEX_ARRAY_BINDING), &vertexArray)
            glGetIntegerv(GLenum(GL_ACTIVE_TEXTURE), &activeTexture)
            glGetIntegerv(GLenum(GL_UNPACK_ALIGNMENT), &alignment)
            for unit in 0..<3 {
                glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
                glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &textures[unit])
            }
        }

        func restore() {
            for unit in 0..<3 {
                glActiveTexture(GLenum(GL_TEXTURE0 + Int32(unit)))
                glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(textures[unit]))
            }
            glActiveTexture(GLenum(activeTexture))
            if separateReadFramebuffer {
                glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), GLuint(framebuffer))
                glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), GLuint(readFramebuffer))
            } else {
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), GLuint(framebuffer))
            }
            glViewport(viewport[0], viewport[1], viewport[2], viewport[3])
            if scissor { glEnable(GLenum(GL_SCISSOR_TEST)) } else { glDisable(GLenum(GL_SCISSOR_TEST)) }
            if blend { glEnable(GLenum(GL_BLEND)) } else { glDisable(GLenum(GL_BLEND)) }
            glUseProgram(GLuint(program))
            glBindVertexArray(GLuint(vertexArray))
            glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), alignment)
        }
    }
}

extension GLESRenderer {
    /// Draws `image` (any EGLImage the context can bind as an external texture) through the
    /// external-image program, as a YUV dma-buf picture is drawn, and reads the result back as a
    /// bitmap (top row first): for checks of that draw on a driver (`lamina-gpu-check`), since an
    /// image made from a GL texture needs no dma-buf. nil where the context has no external-image
    /// program or the image cannot be bound. The context must be current.
    /// The corresponding C functions are `glEGLImageTargetTexture2DOES` and `glReadPixels`.
    public func drawExternalImage(_ image: EGLImageKHR, width: Int, height: Int) throws(GLESError) -> Bitmap? {
        guard context.isCurrent else { throw .contextNotCurrent }
        guard let converter = textures.yuv, converter.convertsExternalImages, width > 0, height > 0,
              width <= 8192, height <= 8192,
              let address = eglGetProcAddress("glEGLImageTargetTexture2DOES") else { return nil }
        let targetTexture = unsafeBitCast(address, to: (@convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void).self)
        var output: GLuint = 0, framebuffer: GLuint = 0
        var boundTexture: GLint = 0, alignment: GLint = 4
        glGetIntegerv(GLenum(GL_TEXTURE_BINDING_2D), &boundTexture)
        glGetIntegerv(GLenum(GL_PACK_ALIGNMENT), &alignment)
        defer {
            glBindTexture(GLenum(GL_TEXTURE_2D), GLuint(boundTexture))
            glPixelStorei(GLenum(GL_PACK_ALIGNMENT), alignment)
        }
        glGenTextures(1, &output)
        glBindTexture(GLenum(GL_TEXTURE_2D), output)
        glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(width), GLsizei(height), 0,
                     GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        defer {
            glDeleteTextures(1, &output)
            glDeleteFramebuffers(1, &framebuffer)
        }
        let result = converter.convertExternal(width: width, height: height, into: output) { external in
            glBindTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), external)
            targetTexture(GLenum(GL_TEXTURE_EXTERNAL_OES), image)
            return glGetError() == GLenum(GL_NO_ERROR) ? image : nil
        }
        guard result?.drawn == true else { return nil }
        var saved: GLint = 0
        glGetIntegerv(GLenum(GL_FRAMEBUFFER_BINDING), &saved)
        defer { glBindFramebuffer(GLenum(GL_FRAMEBUFFER), GLuint(saved)) }
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), output, 0)
        // The converted texture holds the picture bottom row first, as a framebuffer does.
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &bytes)
        try GLESError.check("reading back an external image's draw")
        return Bitmap(width: width, height: height, bytes: Self.flipped(bytes, rowBytes: width * 4))
    }
}
