import CGLES

/// What a program kind declares of itself: its fragment shader and the locations of its own
/// uniforms, found by name once when the program is linked (`ProgramUniforms.swift`).
protocol ProgramUniforms {
    /// The fragment shader's source, before `HAS_CLIPS` is defined in it.
    static var fragment: String { get }
    /// Finds the kind's uniforms in a linked program; a missing one throws.
    init(_ find: UniformLocator) throws(GLESError)
    /// Points the kind's samplers at their texture units. Called once, with the program in use.
    func assignTextureUnits()
}

extension ProgramUniforms {
    func assignTextureUnits() {}
}

/// Looks up the uniforms of one linked program by name.
struct UniformLocator {
    let program: GLuint
    /// The program's name, for errors.
    let name: String

    /// The location of `uniform`, which the program must use: a uniform the compiler
    /// optimised away (or misspelled here) fails the link rather than being ignored.
    func callAsFunction(_ uniform: String) throws(GLESError) -> GLint {
        let location = glGetUniformLocation(program, uniform)
        guard location >= 0 else { throw .programLinkFailed(log: "\(name): uniform '\(uniform)' is missing") }
        return location
    }

    /// The location of `uniform`, or -1 (which glUniform* ignores) when the program has none.
    func optional(_ uniform: String) -> GLint { glGetUniformLocation(program, uniform) }
}

/// A linked GL program and the locations of its uniforms, looked up once at link time.
///
/// Every program shares the vertex shader (`Shaders.vertex`) and the fragment prelude with the
/// clip stack, so the uniforms of those two are here; each kind of draw adds its own in
/// `uniforms`, a struct of the kind's (`ShapeUniforms`, `BlurUniforms`, …), so a call site
/// names what it sets (`program.uniforms.fillColor`) and only the kind's own uniforms exist.
struct ShaderProgram<Uniforms: ProgramUniforms> {
    let program: GLuint
    /// The program's place among the renderer's programs: where `FrameState` records what
    /// was last uploaded to it.
    let slot: Int
    let layerToDisplay: GLint
    let quad: GLint
    let pointsToClip: GLint
    let displayHeight: GLint
    let clipCount: GLint
    let clipFromDisplay: GLint
    let clipRect: GLint
    let clipRadii: GLint
    /// The kind's own uniforms.
    let uniforms: Uniforms
    /// On the ES 2 path, where the kind reads texels by position (`texelFetch` in ES 3.00): one
    /// over the size of the texture on units 0 (`source`), 1 (`mask`) and 2 (`backdrop`),
    /// which `GLSLTranslation` declares; -1 (ignored) elsewhere.
    let texelSize: (source: GLint, mask: GLint, backdrop: GLint)

    /// Compiles and links `fragment` with the shared vertex shader, finds its uniforms and
    /// points its samplers at their texture units. The context must be current; on failure
    /// nothing is left allocated.
    init(name: String, fragment: String, slot: Int) throws(GLESError) {
        let program = try Shaders.link(name: name, vertex: Shaders.vertex, fragment: fragment)
        let find = UniformLocator(program: program, name: name)
        do throws(GLESError) {
            layerToDisplay = try find("layerToDisplay")
            quad = try find("quad")
            pointsToClip = try find("pointsToClip")
            uniforms = try Uniforms(find)
        } catch {
            glDeleteProgram(program)
            throw error
        }
        // A program without the clip stack (`Shaders.flat`) has none of these: -1, which
        // glUniform* ignores.
        displayHeight = find.optional("displayHeight")
        clipCount = find.optional("clipCount")
        clipFromDisplay = find.optional("clipFromDisplay")
        clipRect = find.optional("clipRect")
        clipRadii = find.optional("clipRadii")
        let prefix = GLSLTranslation.texelSizePrefix
        texelSize = (find.optional(prefix + "source"), find.optional(prefix + "mask"), find.optional(prefix + "backdrop"))
        self.program = program
        self.slot = slot
        glUseProgram(program)
        uniforms.assignTextureUnits()
        glUseProgram(0)
    }
}

/// A program kind's variants: with the `masksToBounds` clip stack and without it, and with the
/// clip stack and continuous corners (`Shaders.continuousCorner`) for draws whose own corners or
/// clips are continuous.
struct ProgramVariants<Uniforms: ProgramUniforms> {
    let plain: ShaderProgram<Uniforms>
    let clipped: ShaderProgram<Uniforms>
    let continuous: ShaderProgram<Uniforms>

    subscript(clipped clipped: Bool) -> ShaderProgram<Uniforms> { clipped ? self.clipped : plain }
}

/// The renderer's programs, compiled once: each kind with the `masksToBounds` clip stack and
/// without it, and a third time with the clip stack and continuous corners. On llvmpipe the
/// clip stack's code costs about as much as the rest of a shader even when no clip is in force,
/// so draws outside any clip use the variant without; likewise the continuous corners' code.
/// (Linking is cheap there: llvmpipe compiles a program's code when it first draws.)
struct RendererPrograms {
    /// `Shaders.shape`: rounded rectangles with borders.
    let shape: ProgramVariants<ShapeUniforms>
    /// `Shaders.shadow`: a layer's shadow in closed form.
    let shadow: ProgramVariants<ShadowUniforms>
    /// `Shaders.composite`: an offscreen group's pixels.
    let composite: ProgramVariants<CompositeUniforms>
    /// `Shaders.backdropComposite`: a backdrop filtered at a reduced resolution.
    let backdropComposite: ProgramVariants<BackdropCompositeUniforms>
    /// `Shaders.downsample4`: a backdrop averaged down to a quarter of the resolution.
    let downsample: ProgramVariants<DownsampleUniforms>
    /// `Shaders.blur`: one pass of a separable blur.
    let blur: ProgramVariants<BlurUniforms>
    /// The same without taps, for the passes that only scale (a read a pixel).
    let blurResample: ProgramVariants<BlurUniforms>
    /// The same for exactly 1 … `narrowShadowTaps` taps each side (element `taps - 1`), without
    /// clip variants: the scratch passes of every shadow up to σ 32 display pixels (blurred with
    /// σ of at most 4 texels, `GLESRenderer.shadowFactor`).
    let narrowBlurs: [ProgramVariants<BlurUniforms>]
    static let narrowShadowTaps = 6
    /// `Shaders.fill`: a plain colour.
    let fill: ProgramVariants<FillUniforms>
    /// `Shaders.plainContents`: a whole image over a pixel-aligned destination.
    let plainContents: ProgramVariants<PlainContentsUniforms>
    /// `Shaders.contents`: a nine-slice textured quad.
    let contents: ProgramVariants<ContentsUniforms>
    /// `Shaders.gradient`: axial, radial and conic gradients.
    let gradient: ProgramVariants<GradientUniforms>
    /// `Shaders.maskedComposite`: a group's pixels times its mask's alpha.
    let maskedComposite: ProgramVariants<MaskedCompositeUniforms>
    /// `Shaders.blendComposite`: a group blended with a copy of its backdrop.
    let blend: ProgramVariants<BlendUniforms>
    /// The same reading the backdrop from the framebuffer, where the context can
    /// (GL_EXT_shader_framebuffer_fetch); nil elsewhere.
    let fetchBlend: ProgramVariants<FetchBlendUniforms>?
    /// `Shaders.filterBlur`: one pass of a group's gaussianBlur filter, of any width.
    let filterBlur: ProgramVariants<FilterBlurUniforms>
    /// The same for exactly 1 … `narrowBlurTaps` taps each side (element `taps - 1`), without
    /// clip variants (filter passes draw unclipped).
    let narrowFilterBlurs: [ProgramVariants<FilterBlurUniforms>]
    static let narrowBlurTaps = 4
    /// `Shaders.colorMatrix`: a group's colour filters.
    let colorMatrix: ProgramVariants<ColorMatrixUniforms>
    /// Every program, in slot order.
    let all: [GLuint]

    init(framebufferFetch: Bool) throws(GLESError) {
        // `insertingAfterVersion` puts the defines after the first line, which must stay the
        // `#version` line in both dialects.
        var made: [GLuint] = []
        /// `plainOnly`: a kind only ever drawn without clips (`use(…, clipped: false)`) links the
        /// plain program alone, in all three places.
        func variants<U>(_ kind: String, fragment: String = U.fragment, plainOnly: Bool = false) throws(GLESError) -> ProgramVariants<U> {
            func program(clipped: Bool, continuous: Bool = false) throws(GLESError) -> ShaderProgram<U> {
                let defines = "#define HAS_CLIPS \(clipped ? 1 : 0)" + (continuous ? "\n#define CONTINUOUS_CORNERS 1" : "")
                let name = kind + (continuous ? " (continuous corners)" : clipped ? " (clipped)" : "")
                let p = try ShaderProgram<U>(name: name, fragment: fragment.insertingAfterVersion(defines), slot: made.count)
                made.append(p.program)
                return p
            }
            let plain = try program(clipped: false)
            if plainOnly { return ProgramVariants(plain: plain, clipped: plain, continuous: plain) }
            let clipped = try program(clipped: true)
            return ProgramVariants(plain: plain, clipped: clipped, continuous: try program(clipped: true, continuous: true))
        }
        do throws(GLESError) {
            shape = try variants("shape")
            shadow = try variants("shadow")
            composite = try variants("composite")
            backdropComposite = try variants("backdrop composite")
            downsample = try variants("downsample", plainOnly: true)
            blur = try variants("blur")
            blurResample = try variants("blur resample", fragment: Shaders.blur(resampling: true))
            var narrowShadows: [ProgramVariants<BlurUniforms>] = []
            for taps in 1...Self.narrowShadowTaps {
                narrowShadows.append(try variants("blur of \(taps)", fragment: Shaders.blur(resampling: false, exactly: taps), plainOnly: true))
            }
            narrowBlurs = narrowShadows
            fill = try variants("fill")
            plainContents = try variants("plainContents")
            contents = try variants("contents")
            gradient = try variants("gradient")
            maskedComposite = try variants("maskedComposite")
            blend = try variants("blend")
            fetchBlend = framebufferFetch ? try variants("fetch blend") : nil
            filterBlur = try variants("filter blur", plainOnly: true)
            var narrow: [ProgramVariants<FilterBlurUniforms>] = []
            for taps in 1...Self.narrowBlurTaps {
                narrow.append(try variants("filter blur of \(taps)", fragment: Shaders.filterBlur(exactly: taps), plainOnly: true))
            }
            narrowFilterBlurs = narrow
            colorMatrix = try variants("colour matrix", plainOnly: true)
        } catch {
            for p in made { glDeleteProgram(p) }
            throw error
        }
        all = made
    }

    func delete() { for p in all { glDeleteProgram(p) } }
}

extension Shaders {
    /// The unit-square vertex attribute location, fixed in the vertex shader.
    static let unitVertexLocation: GLuint = 0

    /// Compiles `vertex` and `fragment` and links them; on failure nothing is left allocated.
    /// The corresponding C functions are `glCompileShader` and `glLinkProgram`.
    /// On the ES 2 path (the current context's `GLESCapabilities`) both are translated to
    /// GLSL ES 1.00 first (`GLSLTranslation`), their attribute locations bound by name.
    static func link(name: String, vertex: String, fragment: String) throws(GLESError) -> GLuint {
        let dialect = GLESContext.currentDialect()
        let vertexSource = GLSLTranslation.translate(vertex, stage: .vertex, to: dialect)
        let fragmentSource = GLSLTranslation.translate(fragment, stage: .fragment, to: dialect)
        // The thread's program cache (laminad's), if any: a binary kept from an earlier start,
        // keyed by the sources as compiled (each path's own).
        let cache = ProgramBinaryCache.onThisThread
        if let program = cache?.load(vertex: vertexSource, fragment: fragmentSource) { return program }
        let vertexShader = try Self.compile(GLenum(GL_VERTEX_SHADER), "\(name) vertex", vertexSource)
        defer { glDeleteShader(vertexShader) }
        let fragmentShader = try Self.compile(GLenum(GL_FRAGMENT_SHADER), "\(name) fragment", fragmentSource)
        defer { glDeleteShader(fragmentShader) }
        let program = glCreateProgram()
        glAttachShader(program, vertexShader)
        glAttachShader(program, fragmentShader)
        if dialect == .es100 {
            for a in GLSLTranslation.attributeLocations(vertex) { glBindAttribLocation(program, GLuint(a.location), a.name) }
        }
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else {
            let log = Self.infoLog(program, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(program)
            throw .programLinkFailed(log: "\(name): \(log)")
        }
        cache?.compiledProgram(program, vertex: vertexSource, fragment: fragmentSource)
        return program
    }

    private static func compile(_ stage: GLenum, _ stageName: String, _ source: String) throws(GLESError) -> GLuint {
        let shader = glCreateShader(stage)
        guard shader != 0 else { throw .callFailed(call: "glCreateShader(\(stageName))", code: glGetError()) }
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var compiled: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &compiled)
        guard compiled == GL_TRUE else {
            let log = infoLog(shader, glGetShaderiv, glGetShaderInfoLog)
            glDeleteShader(shader)
            throw .shaderCompilationFailed(stage: stageName, log: log)
        }
        return shader
    }

    private static func infoLog(
        _ object: GLuint,
        _ getParameter: (GLuint, GLenum, UnsafeMutablePointer<GLint>?) -> Void,
        _ getLog: (GLuint, GLsizei, UnsafeMutablePointer<GLsizei>?, UnsafeMutablePointer<GLchar>?) -> Void
    ) -> String {
        var length: GLint = 0
        getParameter(object, GLenum(GL_INFO_LOG_LENGTH), &length)
        guard length > 1 else { return "(no log)" }
        var log = [GLchar](repeating: 0, count: Int(length))
        var written: GLsizei = 0
        getLog(object, length, &written, &log)
        return String(decoding: log.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    /// The string with its first line (`#version 300 es`) followed by `line`: where a
    /// `#define` must go in GLSL.
    func insertingAfterVersion(_ line: String) -> String {
        guard let newline = firstIndex(of: "\n") else { return self + "\n" + line }
        return String(self[...newline]) + line + "\n" + String(self[index(after: newline)...])
    }
}
