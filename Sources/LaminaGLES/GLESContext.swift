import CEGL
import CGLES
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The strings a current GL context reports about itself.
public struct GLInfo: Sendable, Equatable, CustomStringConvertible {
    /// `GL_RENDERER`, such as "llvmpipe (LLVM 15.0.6, 256 bits)".
    public var renderer: String
    /// `GL_VERSION`, such as "OpenGL ES 3.2 Mesa 22.3.6".
    public var version: String
    /// `GL_VENDOR`.
    public var vendor: String
    /// `GL_SHADING_LANGUAGE_VERSION`.
    public var shadingLanguageVersion: String

    /// "OpenGL ES 3.2 Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits)".
    public var description: String { "\(version) on \(renderer)" }
}

/// An OpenGL ES 3 context on an EGL display, destroyed when released.
///
/// The context keeps its display alive. GL calls act on the context current on the calling
/// thread, so the renderer and framebuffers made with this context must be used on the thread
/// that made it current; that is why this type is not `Sendable`.
public final class GLESContext: CustomStringConvertible {
    /// The display the context lives on.
    public let display: EGLDisplayConnection
    /// The EGL context handle.
    public let handle: EGLContext
    /// The configuration the context was made with, or nil for a configless context
    /// (EGL_KHR_no_config_context), which can be made current with any compatible surface.
    public let config: EGLConfig?
    /// The renderer path asked for (`GLESCapabilities`): an ES 2 request makes an ES 2 context.
    public let request: GLESRequest

    /// Creates an OpenGL ES context on `display`: version 3, or 2 where `request` asks for the
    /// ES 2 path (`LAMINA_GLES` by default). Pass the configuration of the window
    /// surface it will draw to (KMS), or nil for a configless context, which needs
    /// EGL_KHR_no_config_context.
    /// The corresponding C functions are `eglBindAPI` and `eglCreateContext`.
    public init(display: EGLDisplayConnection, config: EGLConfig?,
                request: GLESRequest = .fromEnvironment(GLESContext.environment())) throws(EGLError) {
        if config == nil, !display.extensions.contains("EGL_KHR_no_config_context") {
            throw .missingExtension("EGL_KHR_no_config_context", neededFor: "a context without a configuration")
        }
        // The bound API is per thread; OpenGL ES is the default, but another library may have
        // bound desktop GL on this thread.
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else { throw .lastError("eglBindAPI") }
        // An ES 2-only driver (VC4, lima, etnaviv) refuses version 3: then version 2, and the
        // capabilities take the ES 2 path (`GLESCapabilities`, which says so where ES 3 was asked for).
        var created: EGLContext?
        for version in request.clientMajorVersion == 3 ? [3, 2] : [2] as [EGLint] {
            let attributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, version, EGL_NONE]
            created = eglCreateContext(display.handle, config, nil, attributes)
            if created != nil { break }
        }
        guard let context = created else { throw .lastError("eglCreateContext") }
        self.display = display
        self.handle = context
        self.config = config
        self.request = request
    }

    /// `LAMINA_GLES` from the process's environment, where it is set.
    public static func environment() -> [String: String] {
        getenv("LAMINA_GLES").map { ["LAMINA_GLES": String(cString: $0)] } ?? [:]
    }

    /// What the renderer may use on this context, decided from its version and extensions the
    /// first time it is asked for (the context must be current then), and kept for the shaders
    /// linked while it is current (`GLESContext.currentDialect`).
    public func capabilities() -> GLESCapabilities {
        if let known = Self.known.withLock({ $0[UInt(bitPattern: handle)] }) { return known }
        let c = GLESCapabilities(version: glInfo().version, extensions: Self.currentExtensions(), request: request)
        Self.known.withLock { $0[UInt(bitPattern: handle)] = c }
        return c
    }

    /// The capabilities of each live context that has been asked for them, by handle.
    private static let known = Mutex<[UInt: GLESCapabilities]>([:])

    /// The shading language of the context current on the calling thread: its capabilities'
    /// where they were decided, otherwise ES 3.00 on an ES 3 context and ES 1.00 on an ES 2 one.
    static func currentDialect() -> GLSLDialect {
        guard let current = eglGetCurrentContext() else { return .es300 }
        if let known = known.withLock({ $0[UInt(bitPattern: current)] }) { return known.shadingLanguage }
        let version = glGetString(GLenum(GL_VERSION)).map { String(cString: $0) } ?? ""
        return GLESCapabilities(version: version, extensions: []).shadingLanguage
    }

    /// A context for offscreen rendering, already current on the calling thread with no surface.
    ///
    /// Uses a configless context where the display supports one, otherwise the first
    /// configuration that renders OpenGL ES 3. Draw into a `GLESFramebuffer`.
    public static func headless(
        platforms: [HeadlessEGLPlatform] = HeadlessEGLPlatform.allCases,
        request: GLESRequest = .fromEnvironment(GLESContext.environment())
    ) throws(EGLError) -> GLESContext {
        let display = try EGLDisplayConnection.headless(platforms: platforms)
        let config: EGLConfig?
        if display.extensions.contains("EGL_KHR_no_config_context") {
            config = nil
        } else {
            // Surface type defaults to EGL_WINDOW_BIT, which NVIDIA's device platform lacks.
            // -1 is EGL_DONT_CARE, a cast macro Swift does not import.
            // ES 3 where asked for and offered, else ES 2 (an ES 2-only driver's configs).
            let es3 = request.clientMajorVersion == 3 ? try? display.chooseConfigs([EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, -1]) : nil
            if let first = es3?.first {
                config = first
            } else {
                config = try display.chooseConfigs([EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_SURFACE_TYPE, -1])[0]
            }
        }
        let context = try GLESContext(display: display, config: config, request: request)
        try context.makeCurrent()
        return context
    }

    /// True when this context is current on the calling thread.
    /// The corresponding C function is `eglGetCurrentContext`.
    public var isCurrent: Bool { eglGetCurrentContext() == handle }

    /// Makes the context current on the calling thread, drawing to and reading from `surface`,
    /// or to no surface at all (framebuffer objects only, EGL_KHR_surfaceless_context) when nil.
    /// The corresponding C function is `eglMakeCurrent`.
    public func makeCurrent(surface: EGLSurface? = nil) throws(EGLError) {
        if surface == nil, !display.extensions.contains("EGL_KHR_surfaceless_context") {
            throw .missingExtension("EGL_KHR_surfaceless_context", neededFor: "a context current without a surface")
        }
        guard eglMakeCurrent(display.handle, surface, surface, handle) == EGL_TRUE else {
            throw .lastError("eglMakeCurrent")
        }
    }

    /// Makes the context current without a surface unless it already is, for deleting GL
    /// objects from a `deinit`. Returns false where that is impossible (the context is current
    /// on another thread); the objects then go when the context is destroyed.
    func makeCurrentForCleanup() -> Bool {
        if isCurrent { return true }
        do { try makeCurrent() } catch { return false }
        return true
    }

    /// The GL strings of this context, which must be current.
    /// The corresponding C function is `glGetString`.
    public func glInfo() -> GLInfo {
        func string(_ name: Int32) -> String {
            glGetString(GLenum(name)).map { String(cString: $0) } ?? "unknown"
        }
        return GLInfo(renderer: string(GL_RENDERER), version: string(GL_VERSION),
                      vendor: string(GL_VENDOR), shadingLanguageVersion: string(GL_SHADING_LANGUAGE_VERSION))
    }

    /// Blocks until every GL command issued so far has finished. The context must be current.
    /// The corresponding C function is `glFinish`.
    public func finish() { glFinish() }

    /// The current context's GL extensions (GL_EXTENSIONS split at spaces).
    public static func currentExtensions() -> Set<String> {
        Set((glGetString(GLenum(GL_EXTENSIONS)).map { String(cString: $0) } ?? "").split(separator: " ").map(String.init))
    }

    /// "OpenGL ES context on EGL 1.5 (Mesa Project) on surfaceless".
    public var description: String { "OpenGL ES context on \(display)" }

    deinit {
        _ = Self.known.withLock { $0.removeValue(forKey: UInt(bitPattern: handle)) }
        if isCurrent {
            _ = eglMakeCurrent(display.handle, nil, nil, nil)
        }
        _ = eglDestroyContext(display.handle, handle)
    }
}

/// Keeps a software or real GPU at most `depth` frames behind: each presented frame is
/// flushed with a fence, and the frame `depth` back is waited for before the next is drawn,
/// as a swapchain does. Without it, on llvmpipe, nothing makes a headless frame render: its
/// commands pile up in scenes (up to 36 MiB each, 64 of them) and a frame that a later one
/// covers may never be rasterised at all, which is neither honest work nor bounded memory.
///
/// Without GL fences (the ES 2 path: `glFenceSync` is ES 3) the same is done with EGL's fences
/// (EGL 1.5 `eglCreateSync`, which Mesa gives every context, VC4's included) where the display
/// has them, and otherwise each frame is finished before the next (`glFinish`), which bounds the
/// queue the same way at the cost of the overlap.
public struct FramePacing {
    public let depth: Int
    /// Whether the context has fences (`GLESCapabilities.fences`).
    public var usesFences = true
    /// Where GL fences are missing: the display whose EGL fences stand in, or nil for `glFinish`.
    public var eglFenceDisplay: EGLDisplay?
    private var fences: [GLsync] = []
    private var eglFences: [EGLSync] = []

    public init(depth: Int = 2) { self.depth = max(1, depth) }

    /// Called when a frame's commands are all issued: fences and flushes them, then waits
    /// (at most a second) for the frame `depth` before it to finish.
    /// The corresponding C functions are `glFenceSync`, `glFlush` and `glClientWaitSync`.
    public mutating func frameIssued() {
        guard usesFences else {
            guard let display = eglFenceDisplay else {
                glFinish()
                return
            }
            if let fence = eglCreateSync(display, EGLenum(EGL_SYNC_FENCE), nil) { eglFences.append(fence) }
            glFlush()
            while eglFences.count > depth {
                let oldest = eglFences.removeFirst()
                _ = eglClientWaitSync(display, oldest, EGLint(EGL_SYNC_FLUSH_COMMANDS_BIT), 1_000_000_000)
                _ = eglDestroySync(display, oldest)
            }
            return
        }
        if let fence = glFenceSync(GLenum(GL_SYNC_GPU_COMMANDS_COMPLETE), 0) { fences.append(fence) }
        glFlush()
        while fences.count > depth {
            let oldest = fences.removeFirst()
            _ = glClientWaitSync(oldest, GLbitfield(GL_SYNC_FLUSH_COMMANDS_BIT), 1_000_000_000)
            glDeleteSync(oldest)
        }
    }
}
