import CEGL

/// A space-separated EGL extension string, split once so lookups are cheap.
public struct EGLExtensions: Sendable, Equatable, CustomStringConvertible {
    /// The extension names in the order the implementation listed them.
    public let names: [String]

    init(_ string: UnsafePointer<CChar>?) {
        names = string.map { String(cString: $0).split(separator: " ").map(String.init) } ?? []
    }

    /// The client extensions: what libEGL supports before any display exists (platforms,
    /// device enumeration). Empty where the implementation lacks EGL_EXT_client_extensions.
    /// The corresponding C function is `eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS)`.
    public static func client() -> EGLExtensions {
        EGLExtensions(eglQueryString(nil, EGL_EXTENSIONS))
    }

    /// True when `name` is listed.
    public func contains(_ name: String) -> Bool { names.contains(name) }

    public var description: String { names.joined(separator: " ") }
}
