import CGLES

/// The one shader program the renderer draws every quad with: a unit square stretched over the
/// layer's bounds, carried through the layer's transform to display space, filled with one
/// premultiplied colour.
struct QuadProgram {
    /// The unit-square vertex attribute location.
    static let unitVertexLocation: GLuint = 0

    static let vertexSource = """
        #version 300 es
        layout(location = 0) in vec2 unitVertex;
        // Row-vector Core Animation matrix uploaded as-is: read column-major it is the
        // column-vector matrix for M * v.
        uniform mat4 layerToDisplay;
        uniform vec4 bounds;          // origin.xy, size.zw, in layer coordinates
        uniform vec2 pointsToClip;    // 2 / display width, 2 / display height
        void main() {
            vec2 p = bounds.xy + unitVertex * bounds.zw;
            vec4 d = layerToDisplay * vec4(p, 0.0, 1.0);
            // Display points (y down) to clip space, keeping w so perspective divides after:
            // x_ndc = 2x/W - 1, y_ndc = 1 - 2y/H. z = 0: layers flatten, painter's order rules.
            gl_Position = vec4(d.x * pointsToClip.x - d.w, d.w - d.y * pointsToClip.y, 0.0, d.w);
        }
        """

    static let fragmentSource = """
        #version 300 es
        precision mediump float;
        uniform vec4 color;           // premultiplied, opacity already applied
        out vec4 fragColor;
        void main() {
            fragColor = color;
        }
        """

    let program: GLuint
    let layerToDisplay: GLint
    let bounds: GLint
    let pointsToClip: GLint
    let color: GLint

    /// Compiles and links the program. The context must be current; on failure nothing is left
    /// allocated.
    init() throws(GLESError) {
        let vertex = try Self.compile(GLenum(GL_VERTEX_SHADER), "vertex", Self.vertexSource)
        defer { glDeleteShader(vertex) }
        let fragment = try Self.compile(GLenum(GL_FRAGMENT_SHADER), "fragment", Self.fragmentSource)
        defer { glDeleteShader(fragment) }

        let program = glCreateProgram()
        glAttachShader(program, vertex)
        glAttachShader(program, fragment)
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else {
            let log = Self.infoLog(program, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(program)
            throw .programLinkFailed(log: log)
        }
        func location(_ name: String) throws(GLESError) -> GLint {
            let location = glGetUniformLocation(program, name)
            guard location >= 0 else {
                glDeleteProgram(program)
                throw .programLinkFailed(log: "uniform '\(name)' is missing")
            }
            return location
        }
        layerToDisplay = try location("layerToDisplay")
        bounds = try location("bounds")
        pointsToClip = try location("pointsToClip")
        color = try location("color")
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
