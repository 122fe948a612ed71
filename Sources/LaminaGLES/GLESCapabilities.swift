/// Which OpenGL ES renderer path laminad takes: GLSL ES 3.00 and the ES 3 API, or GLSL ES 1.00
/// and the ES 2 API with only what its extensions add (docs/architecture.md, "The two GLES paths").
public enum GLESPath: String, Sendable, Equatable, CustomStringConvertible {
    case gles2 = "2"
    case gles3 = "3"

    /// "ES 2" or "ES 3".
    public var description: String { "ES \(rawValue)" }
}

/// What the configuration asks for (`laminad --gles`, `[renderer] gles`, `LAMINA_GLES`).
public enum GLESRequest: Sendable, Equatable, CustomStringConvertible {
    /// The context's version decides.
    case automatic
    /// This path, where the context can take it (an ES 3 context runs the ES 2 path; an
    /// ES 2 context cannot run the ES 3 one, and then the ES 2 path is taken, saying so).
    case path(GLESPath)
    /// The ES 2 path with the extensions Raspberry Pi's VC4 lacks hidden as well (`VC4Profile`):
    /// a test mode that runs what a Pi 0–3 would.
    case vc4

    /// Parses "auto", "2", "3" or "vc4"; nil for anything else.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "auto", "": self = .automatic
        case "2": self = .path(.gles2)
        case "3": self = .path(.gles3)
        case "vc4": self = .vc4
        default: return nil
        }
    }

    /// The values `init?(_:)` accepts, for errors and help.
    public static let accepted = "auto, 2, 3 or vc4"

    /// The request named by the environment variable `LAMINA_GLES` (how the test harness runs
    /// every renderer in ES 2 mode), or automatic where it is unset or empty. An unknown value
    /// is reported by `environmentError`.
    public static func fromEnvironment(_ environment: [String: String]) -> GLESRequest {
        environment["LAMINA_GLES"].flatMap(GLESRequest.init) ?? .automatic
    }

    /// Why `LAMINA_GLES` cannot be used, or nil.
    public static func environmentError(_ environment: [String: String]) -> String? {
        guard let value = environment["LAMINA_GLES"], GLESRequest(value) == nil else { return nil }
        return "LAMINA_GLES='\(value)' is not one of \(accepted)"
    }

    /// The EGL client version to ask for: 2 for the ES 2 path (so a driver that honours it
    /// gives an ES 2.0 context), 3 otherwise.
    public var clientMajorVersion: Int32 {
        switch self {
        case .automatic, .path(.gles3): 3
        case .path(.gles2), .vc4: 2
        }
    }

    /// "auto", "2", "3" or "vc4".
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .path(let p): p.rawValue
        case .vc4: "vc4"
        }
    }
}

/// The extensions Mesa's vc4 driver (Raspberry Pi 0–3, V3D 2.1/2.6) exposes of those the
/// renderer would use, and the ones it lacks, from `src/gallium/drivers/vc4/vc4_screen.c`
/// (docs/gles2.md gives the source and the reasoning for each).
public enum VC4Profile {
    /// Extensions the renderer can use that vc4 exposes on its ES 2.0 context.
    public static let present: Set<String> = [
        "GL_OES_vertex_array_object",       // core Mesa, every ES 2 driver
        "GL_OES_standard_derivatives",      // every gallium driver
        "GL_OES_texture_npot",              // caps->npot_textures = true
        "GL_OES_rgb8_rgba8",                // RGBA8 render targets
        "GL_OES_depth24",                   // Z24S8 / X8Z24 depth formats only
        "GL_OES_packed_depth_stencil",
        "GL_OES_EGL_image",
        "GL_OES_EGL_image_external",
        "GL_EXT_unpack_subimage",
        "GL_EXT_texture_format_BGRA8888",
        "GL_EXT_read_format_bgra",
        "GL_EXT_map_buffer_range",
        "GL_OES_mapbuffer",
        "GL_OES_element_index_uint",
        "GL_EXT_discard_framebuffer",
        "GL_KHR_debug",
    ]

    /// Extensions a desktop Mesa driver exposes on an ES 2 context that vc4 does not (no vertex
    /// attribute divisor cap, no float or half-float render targets, no 3D textures, no RG
    /// render targets, no framebuffer fetch, one render target).
    public static let lacking: Set<String> = [
        "GL_EXT_instanced_arrays", "GL_ANGLE_instanced_arrays", "GL_EXT_draw_instanced",
        "GL_EXT_texture_rg",
        "GL_EXT_shader_framebuffer_fetch", "GL_EXT_shader_framebuffer_fetch_non_coherent",
        "GL_ARM_shader_framebuffer_fetch_depth_stencil",
        "GL_OES_texture_3D",
        "GL_OES_texture_float", "GL_OES_texture_float_linear",
        "GL_OES_texture_half_float", "GL_OES_texture_half_float_linear", "GL_EXT_color_buffer_half_float",
        "GL_NV_framebuffer_blit", "GL_ANGLE_framebuffer_blit",
        "GL_APPLE_sync",
        "GL_EXT_draw_buffers", "GL_NV_draw_buffers",
        "GL_KHR_blend_equation_advanced", "GL_KHR_blend_equation_advanced_coherent",
        "GL_EXT_blend_func_extended",
    ]
}

/// What the renderer may use on the context it draws with, decided once from the context's
/// `GL_VERSION`, its `GL_EXTENSIONS` and the request (pure Swift: tested without GL).
public struct GLESCapabilities: Sendable, Equatable, CustomStringConvertible {
    /// The path taken.
    public let path: GLESPath
    /// The context's ES version, from `GL_VERSION` ("OpenGL ES 3.2 Mesa …" is (3, 2)).
    public let contextVersion: (major: Int, minor: Int)
    /// The request it was decided from.
    public let request: GLESRequest
    /// The context's extensions less those hidden (`hidden`).
    public let extensions: Set<String>
    /// The context's extensions that the request hid (the VC4 profile's lacking ones).
    public let hidden: Set<String>
    /// Why the path differs from the request, or nil.
    public let note: String?

    public static func == (a: Self, b: Self) -> Bool {
        a.path == b.path && a.contextVersion == b.contextVersion && a.request == b.request
            && a.extensions == b.extensions && a.hidden == b.hidden && a.note == b.note
    }

    /// Decides the path for a context whose `GL_VERSION` is `version` and whose
    /// `GL_EXTENSIONS` are `extensions`.
    public init(version: String, extensions: Set<String>, request: GLESRequest = .automatic) {
        let v = Self.parseVersion(version)
        contextVersion = v
        self.request = request
        let hide = request == .vc4 ? extensions.intersection(VC4Profile.lacking) : []
        hidden = hide
        self.extensions = extensions.subtracting(hide)
        let canES3 = v.major >= 3
        switch request {
        case .automatic:
            path = canES3 ? .gles3 : .gles2
            note = nil
        case .path(.gles3) where !canES3:
            path = .gles2
            note = "ES 3 was asked for, but the context is ES \(v.major).\(v.minor)"
        case .path(let p):
            path = p
            note = nil
        case .vc4:
            path = .gles2
            note = nil
        }
    }

    /// (major, minor) from "OpenGL ES 3.2 Mesa 22.3.6" or "OpenGL ES-CM 1.1"; (2, 0) where
    /// no version can be read (the least any context laminad makes can be).
    static func parseVersion(_ version: String) -> (major: Int, minor: Int) {
        let words = version.split(separator: " ")
        for word in words {
            let parts = word.split(separator: ".")
            if parts.count >= 2, let major = Int(parts[0]), let minor = Int(parts[1].prefix { $0.isNumber }) {
                return (major, minor)
            }
        }
        return (2, 0)
    }

    /// True on the ES 3 path or where `name` is among the (unhidden) extensions.
    private func es3OrExtension(_ names: String...) -> Bool {
        path == .gles3 || names.contains { extensions.contains($0) }
    }

    /// The GLSL dialect of the shaders: ES 3.00 or ES 1.00.
    public var shadingLanguage: GLSLDialect { path == .gles3 ? .es300 : .es100 }
    /// Vertex array objects (ES 3, or GL_OES_vertex_array_object).
    public var vertexArrayObjects: Bool { es3OrExtension("GL_OES_vertex_array_object") }
    /// `glDrawArraysInstanced` and `glVertexAttribDivisor`. On the ES 2 path the extensions'
    /// entry points would be needed; the renderer draws without instancing there instead.
    public var instancedArrays: Bool { path == .gles3 }
    /// `glBlitFramebuffer` and separate read and draw framebuffers (ES 3 only; the ES 2 path
    /// copies with a shader).
    public var framebufferBlit: Bool { path == .gles3 }
    /// `glTexStorage2D` and sized internal formats in `glTexImage2D` (ES 3 only).
    public var textureStorage: Bool { path == .gles3 }
    /// One- and two-channel textures (ES 3, or GL_EXT_texture_rg); elsewhere luminance.
    public var redTextures: Bool { es3OrExtension("GL_EXT_texture_rg") }
    /// `glFenceSync` (ES 3 only; the ES 2 path paces frames with `glFinish`).
    public var fences: Bool { path == .gles3 }
    /// Mipmaps and repeat on textures whose sides are not powers of two (ES 3, or GL_OES_texture_npot).
    public var npotMipmaps: Bool { es3OrExtension("GL_OES_texture_npot") }
    /// `GL_UNPACK_ROW_LENGTH` (ES 3, or GL_EXT_unpack_subimage).
    public var unpackRowLength: Bool { es3OrExtension("GL_EXT_unpack_subimage") }
    /// RGBA8 renderbuffers (ES 3, or GL_OES_rgb8_rgba8).
    public var rgba8Renderbuffers: Bool { es3OrExtension("GL_OES_rgb8_rgba8") }
    /// `dFdx`/`dFdy` in fragment shaders (ES 3, or GL_OES_standard_derivatives); the renderer's
    /// antialiasing needs them.
    public var standardDerivatives: Bool { es3OrExtension("GL_OES_standard_derivatives") }
    /// Framebuffer fetch in the ES 3.00 dialect (`inout fragColor`): the ES 3 path only.
    public var framebufferFetch: Bool { path == .gles3 && extensions.contains("GL_EXT_shader_framebuffer_fetch") }
    /// The depth buffer laminad would ask for: 24 bits where the context has it, else 16. The
    /// renderer draws without a depth test (painter's order), so it asks for none.
    public var depthBits: Int { es3OrExtension("GL_OES_depth24") ? 24 : 16 }

    /// What the renderer needs and the context lacks, or nil when it can draw.
    public var missing: String? {
        if path == .gles2, !standardDerivatives {
            return "GL_OES_standard_derivatives (the antialiased edges take derivatives)"
        }
        if path == .gles2, !vertexArrayObjects {
            return "GL_OES_vertex_array_object"
        }
        return nil
    }

    /// The extensions the ES 2 path uses in place of ES 3 features (empty on the ES 3 path,
    /// which uses framebuffer fetch only), for `laminactl stats`.
    public var extensionsInUse: [String] {
        var used: [String] = []
        if path == .gles2 {
            for name in ["GL_OES_standard_derivatives", "GL_OES_vertex_array_object", "GL_OES_texture_npot",
                         "GL_EXT_texture_rg", "GL_EXT_unpack_subimage", "GL_OES_rgb8_rgba8", "GL_OES_EGL_image_external"]
            where extensions.contains(name) {
                used.append(name)
            }
        } else if framebufferFetch {
            used.append("GL_EXT_shader_framebuffer_fetch")
        }
        return used
    }

    /// The fallbacks in force, for `laminactl stats`.
    public var fallbacks: [String] {
        var list: [String] = []
        if !instancedArrays { list.append("no instancing: batched layers and particles drawn as expanded triangles") }
        if !framebufferBlit { list.append("no blit: copies drawn with a shader") }
        if !textureStorage { list.append("no texture storage: unsized RGBA textures") }
        if !redTextures { list.append("no R8: luminance textures for video planes") }
        if !fences { list.append("no fences: frames paced with glFinish") }
        if !npotMipmaps { list.append("no NPOT mipmaps: NPOT contents sampled without mipmaps") }
        if !unpackRowLength { list.append("no unpack row length: rows repacked before upload") }
        return list
    }

    /// For `laminactl stats`: `renderer.gles` (the path, 2 or 3), `renderer.contextVersion`
    /// (3.2, say), `renderer.extensionsHidden` (by the VC4 profile), `renderer.fallbacks`, and
    /// `renderer.extension.NAME` = 1 for each extension the path uses (`extensionsInUse`).
    public var statistics: [(name: String, value: Double)] {
        [("renderer.gles", path == .gles3 ? 3 : 2),
         ("renderer.contextVersion", Double(contextVersion.major) + Double(min(contextVersion.minor, 9)) / 10),
         ("renderer.extensionsHidden", Double(hidden.count)),
         ("renderer.fallbacks", Double(fallbacks.count))]
            + extensionsInUse.map { ("renderer.extension.\($0)", 1) }
    }

    /// "ES 2 (forced by vc4, context ES 3.2; 12 extensions hidden)".
    public var description: String {
        var parts = ["context ES \(contextVersion.major).\(contextVersion.minor)"]
        if request != .automatic { parts.insert("asked for \(request)", at: 0) }
        if !hidden.isEmpty { parts.append("\(hidden.count) extensions hidden") }
        if let note { parts.append(note) }
        return "\(path) (\(parts.joined(separator: "; ")))"
    }
}

/// The GLSL dialect the renderer's shaders are compiled in.
public enum GLSLDialect: Sendable, Equatable {
    /// `#version 300 es`, as written.
    case es300
    /// `#version 100`, translated by `GLSLTranslation`.
    case es100
}
