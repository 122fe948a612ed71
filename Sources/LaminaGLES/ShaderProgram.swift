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
        let program = try Self.link(name: name, vertex: Shaders.vertex, fragment: fragment)
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
        // A program without the clip stack (`Shaders.flat`) has none of these: -1, which
        // glUniform* ignores.
        displayHeight = glGetUniformLocation(program, "displayHeight")
        clipCount = glGetUniformLocation(program, "clipCount")
        clipFromDisplay = glGetUniformLocation(program, "clipFromDisplay")
        clipRect = glGetUniformLocation(program, "clipRect")
        clipRadii = glGetUniformLocation(program, "clipRadii")
        var extra: [GLint] = []
        for uniform in uniforms { extra.append(try location(uniform)) }
        self.extra = extra
        self.program = program
    }

    /// Compiles `vertex` and `fragment` and links them; on failure nothing is left allocated.
    /// The corresponding C functions are `glCompileShader` and `glLinkProgram`.
    static func link(name: String, vertex: String, fragment: String) throws(GLESError) -> GLuint {
        let vertexShader = try Self.compile(GLenum(GL_VERTEX_SHADER), "\(name) vertex", vertex)
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

/// The kinds of draw, each a program in `RendererPrograms`.
enum ProgramKind: Int, CaseIterable {
    /// `Shaders.shape`: extra uniforms rect, radii, borderWidth, fillColor, borderColor.
    case shape
    /// `Shaders.shadow`: rect, radii, sigma, color.
    case shadow
    /// `Shaders.composite`: source, opacity, origin.
    case composite
    /// `Shaders.blur`: source, sourceSize, sourceOffset, direction, taps, scale, color, weights, offsets.
    case blur
    /// `Shaders.fill`: fillColor.
    case fill
    /// `Shaders.shadowTexture`: source, rect, color.
    case shadowTexture
    /// `Shaders.contents`: source, destRect, destInsets, sourceRect, sourceInsets, clampRect,
    /// maskRect, maskRadii, useMask, opacity, opaque.
    case contents
    /// `Shaders.gradient`: rect, radii, gradientType, startPoint, endPoint, stopCount, stopColors, stopLocations.
    case gradient
    /// `Shaders.maskedComposite`: source, mask, opacity.
    case maskedComposite

    var fragment: String {
        switch self {
        case .shape: Shaders.shape
        case .shadow: Shaders.shadow
        case .composite: Shaders.composite
        case .blur: Shaders.blur
        case .fill: Shaders.fill
        case .shadowTexture: Shaders.shadowTexture
        case .contents: Shaders.contents
        case .gradient: Shaders.gradient
        case .maskedComposite: Shaders.maskedComposite
        }
    }

    var uniforms: [String] {
        switch self {
        case .shape: ["rect", "radii", "borderWidth", "fillColor", "borderColor"]
        case .shadow: ["rect", "radii", "sigma", "color"]
        case .composite: ["source", "opacity", "origin"]
        case .blur: ["source", "sourceSize", "sourceOffset", "direction", "taps", "scale", "color", "weights", "offsets"]
        case .fill: ["fillColor"]
        case .shadowTexture: ["source", "rect", "color"]
        case .contents: ["source", "destRect", "destInsets", "sourceRect", "sourceInsets",
                         "clampRect", "maskRect", "maskRadii", "useMask", "opacity", "opaque"]
        case .gradient: ["rect", "radii", "gradientType", "startPoint", "endPoint", "stopCount", "stopColors", "stopLocations"]
        case .maskedComposite: ["source", "mask", "opacity"]
        }
    }
}

/// The renderer's programs, compiled once: each kind twice, with the `masksToBounds` clip stack
/// and without it. On llvmpipe the clip stack's code costs about as much as the rest of a
/// shader even when no clip is in force, so draws outside any clip use the variant without.
struct RendererPrograms {
    /// Indexed by `index(kind, clipped:)`.
    let all: [ShaderProgram]

    static func index(_ kind: ProgramKind, clipped: Bool) -> Int { kind.rawValue * 2 + (clipped ? 1 : 0) }

    subscript(kind: ProgramKind, clipped clipped: Bool) -> ShaderProgram { all[Self.index(kind, clipped: clipped)] }

    init() throws(GLESError) {
        var made: [ShaderProgram] = []
        do throws(GLESError) {
            for kind in ProgramKind.allCases {
                for clipped in [false, true] {
                    let source = kind.fragment.insertingAfterVersion("#define HAS_CLIPS \(clipped ? 1 : 0)")
                    made.append(try ShaderProgram(name: "\(kind)\(clipped ? " (clipped)" : "")", fragment: source,
                                                  uniforms: kind.uniforms))
                }
            }
        } catch {
            for p in made { glDeleteProgram(p.program) }
            throw error
        }
        all = made
    }

    func delete() { for p in all { glDeleteProgram(p.program) } }
}

extension String {
    /// The string with its first line (`#version 300 es`) followed by `line`: where a
    /// `#define` must go in GLSL.
    func insertingAfterVersion(_ line: String) -> String {
        guard let newline = firstIndex(of: "\n") else { return self + "\n" + line }
        return String(self[...newline]) + line + "\n" + String(self[index(after: newline)...])
    }
}
