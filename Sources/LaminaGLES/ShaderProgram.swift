import CGLES

/// A linked GL program and the locations of its uniforms, looked up once at link time.
///
/// Every program shares the vertex shader (`Shaders.vertex`) and the fragment prelude with the
/// clip stack, so the uniforms of those two are here; each kind of draw adds its own in
/// `extra`, in the order its `init` names them.
struct ShaderProgram {
    /// The unit-square vertex attribute location, fixed in the vertex shader.
    static let unitVertexLocation: GLuint = 0

    let program: GLuint
    let layerToDisplay: GLint
    let quad: GLint
    let pointsToClip: GLint
    let displayHeight: GLint
    let clipCount: GLint
    let clipFromDisplay: GLint
    let clipRect: GLint
    let clipRadii: GLint
    /// The program's own uniforms, in the order they were named.
    let extra: [GLint]

    /// Compiles and links `fragment` with the shared vertex shader and finds `uniforms`.
    /// The context must be current; on failure nothing is left allocated.
    init(name: String, fragment: String, uniforms: [String]) throws(GLESError) {
        let vertexShader = try Self.compile(GLenum(GL_VERTEX_SHADER), "\(name) vertex", Shaders.vertex)
        defer { glDeleteShader(vertexShader) }
        let fragmentShader = try Self.compile(GLenum(GL_FRAGMENT_SHADER), "\(name) fragment", fragment)
        defer { glDeleteShader(fragmentShader) }

        let program = glCreateProgram()
        glAttachShader(program, vertexShader)
        glAttachShader(program, fragmentShader)
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else {
            let log = Self.infoLog(program, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(program)
            throw .programLinkFailed(log: "\(name): \(log)")
        }
        func location(_ uniform: String) throws(GLESError) -> GLint {
            let location = glGetUniformLocation(program, uniform)
            guard location >= 0 else {
                glDeleteProgram(program)
                throw .programLinkFailed(log: "\(name): uniform '\(uniform)' is missing")
            }
            return location
        }
        layerToDisplay = try location("layerToDisplay")
        quad = try location("quad")
        pointsToClip = try location("pointsToClip")
        displayHeight = try location("displayHeight")
        clipCount = try location("clipCount")
        clipFromDisplay = try location("clipFromDisplay")
        clipRect = try location("clipRect")
        clipRadii = try location("clipRadii")
        var extra: [GLint] = []
        for uniform in uniforms { extra.append(try location(uniform)) }
        self.extra = extra
        self.program = program
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

/// The renderer's programs, one per kind of draw, compiled once.
struct RendererPrograms {
    /// `Shaders.shape`: extra uniforms rect, radii, borderWidth, fillColor, borderColor.
    let shape: ShaderProgram
    /// `Shaders.shadow`: rect, radii, sigma, color.
    let shadow: ShaderProgram
    /// `Shaders.composite`: source, opacity.
    let composite: ShaderProgram
    /// `Shaders.blur`: source, sourceSize, sourceOffset, direction, taps, sigma, color.
    let blur: ShaderProgram
    /// `Shaders.fill`: fillColor.
    let fill: ShaderProgram
    /// `Shaders.gradient`: rect, radii, gradientType, startPoint, endPoint, stopCount, stopColors, stopLocations.
    let gradient: ShaderProgram
    /// `Shaders.maskedComposite`: source, mask, opacity.
    let maskedComposite: ShaderProgram

    init() throws(GLESError) {
        var made: [GLuint] = []
        do throws(GLESError) {
            shape = try ShaderProgram(name: "shape", fragment: Shaders.shape,
                                      uniforms: ["rect", "radii", "borderWidth", "fillColor", "borderColor"])
            made.append(shape.program)
            shadow = try ShaderProgram(name: "shadow", fragment: Shaders.shadow, uniforms: ["rect", "radii", "sigma", "color"])
            made.append(shadow.program)
            composite = try ShaderProgram(name: "composite", fragment: Shaders.composite, uniforms: ["source", "opacity"])
            made.append(composite.program)
            blur = try ShaderProgram(name: "blur", fragment: Shaders.blur,
                                     uniforms: ["source", "sourceSize", "sourceOffset", "direction", "taps", "sigma", "color"])
            made.append(blur.program)
            fill = try ShaderProgram(name: "fill", fragment: Shaders.fill, uniforms: ["fillColor"])
            made.append(fill.program)
            gradient = try ShaderProgram(name: "gradient", fragment: Shaders.gradient,
                                         uniforms: ["rect", "radii", "gradientType", "startPoint", "endPoint",
                                                    "stopCount", "stopColors", "stopLocations"])
            made.append(gradient.program)
            maskedComposite = try ShaderProgram(name: "masked composite", fragment: Shaders.maskedComposite,
                                                uniforms: ["source", "mask", "opacity"])
        } catch {
            for p in made { glDeleteProgram(p) }
            throw error
        }
    }

    var all: [ShaderProgram] { [shape, shadow, composite, blur, fill, gradient, maskedComposite] }

    func delete() { for p in all { glDeleteProgram(p.program) } }
}
