import CGLES

/// Why the GLES renderer or a framebuffer could not be set up or could not draw.
public enum GLESError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `glGetError` reported `code` after `call`.
    case callFailed(call: String, code: GLenum)
    /// A shader did not compile; `log` is the compiler's info log.
    case shaderCompilationFailed(stage: String, log: String)
    /// The program did not link, or lacks a uniform the renderer sets.
    case programLinkFailed(log: String)
    /// `glCheckFramebufferStatus` returned `status` instead of GL_FRAMEBUFFER_COMPLETE.
    case framebufferIncomplete(status: GLenum)
    /// A framebuffer or draw list size is not positive or exceeds what the GL supports.
    case invalidSize(width: Int, height: Int, maximum: Int)
    /// The renderer's context is not current on the calling thread.
    case contextNotCurrent
    /// `readPixels` was called before anything was drawn.
    case nothingDrawn
    /// A render target this renderer did not make (another renderer's buffer).
    case foreignTarget(String)
    /// The context lacks what the renderer's path needs (`GLESCapabilities.missing`).
    case unsupportedContext(String)

    public var description: String {
        switch self {
        case let .callFailed(call, code):
            "\(call) failed with \(GLESError.name(ofCode: code)) (0x\(String(code, radix: 16, uppercase: true)))"
        case let .shaderCompilationFailed(stage, log):
            "the \(stage) shader did not compile: \(log)"
        case let .programLinkFailed(log):
            "the shader program did not link: \(log)"
        case let .framebufferIncomplete(status):
            "the framebuffer is incomplete (status 0x\(String(status, radix: 16, uppercase: true)))"
        case let .invalidSize(width, height, maximum):
            "cannot render at \(width)×\(height): each side must be between 1 and \(maximum)"
        case .contextNotCurrent:
            "the renderer's GL context is not current on this thread; make it current before drawing"
        case .nothingDrawn:
            "nothing has been drawn yet, so there are no pixels to read"
        case .foreignTarget(let what):
            "cannot draw into \(what): it is not a GLES framebuffer or window surface"
        case .unsupportedContext(let what):
            "the GL context cannot run the renderer: \(what)"
        }
    }

    /// The symbolic name of a `glGetError` code, such as "GL_INVALID_OPERATION".
    public static func name(ofCode code: GLenum) -> String {
        switch Int32(bitPattern: code) {
        case GL_NO_ERROR: "GL_NO_ERROR"
        case GL_INVALID_ENUM: "GL_INVALID_ENUM"
        case GL_INVALID_VALUE: "GL_INVALID_VALUE"
        case GL_INVALID_OPERATION: "GL_INVALID_OPERATION"
        case GL_INVALID_FRAMEBUFFER_OPERATION: "GL_INVALID_FRAMEBUFFER_OPERATION"
        case GL_OUT_OF_MEMORY: "GL_OUT_OF_MEMORY"
        default: "unknown GL error"
        }
    }

    /// Throws the first error GL has recorded, naming `call`, and clears the rest of the flags
    /// (GL may hold one per kind). `call` is only built on failure, so a frame allocates nothing.
    /// The corresponding C function is `glGetError`.
    static func check(_ call: @autoclosure () -> String) throws(GLESError) {
        let first = glGetError()
        guard first != GLenum(GL_NO_ERROR) else { return }
        // Bounded: a lost context may report GL_CONTEXT_LOST forever.
        var drained = 0
        while drained < 8, glGetError() != GLenum(GL_NO_ERROR) { drained += 1 }
        throw .callFailed(call: call(), code: first)
    }
}
