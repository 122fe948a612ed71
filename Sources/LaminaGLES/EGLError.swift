import CEGL

/// Why an EGL display or context could not be set up or used.
public enum EGLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An EGL call failed; `code` is what `eglGetError` returned straight after it.
    case callFailed(call: String, code: EGLint)
    /// The EGL implementation lacks an extension the operation needs.
    case missingExtension(String, neededFor: String)
    /// None of the headless platforms was usable; each entry says why one was passed over.
    case noHeadlessPlatform(reasons: [String])
    /// `eglChooseConfig` matched no configuration for the attributes Lamina asked for.
    case noMatchingConfig(String)

    /// The failing call and the current `eglGetError` code.
    static func lastError(_ call: String) -> EGLError {
        .callFailed(call: call, code: eglGetError())
    }

    public var description: String {
        switch self {
        case let .callFailed(call, code):
            "\(call) failed with \(EGLError.name(ofCode: code)) (0x\(String(UInt32(bitPattern: code), radix: 16, uppercase: true)))"
        case let .missingExtension(name, purpose):
            "EGL lacks \(name), which is needed for \(purpose)"
        case let .noHeadlessPlatform(reasons):
            "no headless EGL platform is usable: " + reasons.joined(separator: "; ")
        case let .noMatchingConfig(wanted):
            "eglChooseConfig found no configuration with \(wanted)"
        }
    }

    /// The symbolic name of an `eglGetError` code, such as "EGL_BAD_MATCH".
    public static func name(ofCode code: EGLint) -> String {
        switch code {
        case EGL_SUCCESS: "EGL_SUCCESS"
        case EGL_NOT_INITIALIZED: "EGL_NOT_INITIALIZED"
        case EGL_BAD_ACCESS: "EGL_BAD_ACCESS"
        case EGL_BAD_ALLOC: "EGL_BAD_ALLOC"
        case EGL_BAD_ATTRIBUTE: "EGL_BAD_ATTRIBUTE"
        case EGL_BAD_CONFIG: "EGL_BAD_CONFIG"
        case EGL_BAD_CONTEXT: "EGL_BAD_CONTEXT"
        case EGL_BAD_CURRENT_SURFACE: "EGL_BAD_CURRENT_SURFACE"
        case EGL_BAD_DISPLAY: "EGL_BAD_DISPLAY"
        case EGL_BAD_MATCH: "EGL_BAD_MATCH"
        case EGL_BAD_NATIVE_PIXMAP: "EGL_BAD_NATIVE_PIXMAP"
        case EGL_BAD_NATIVE_WINDOW: "EGL_BAD_NATIVE_WINDOW"
        case EGL_BAD_PARAMETER: "EGL_BAD_PARAMETER"
        case EGL_BAD_SURFACE: "EGL_BAD_SURFACE"
        case EGL_CONTEXT_LOST: "EGL_CONTEXT_LOST"
        case EGL_BAD_DEVICE_EXT: "EGL_BAD_DEVICE_EXT"
        default: "unknown EGL error"
        }
    }
}
