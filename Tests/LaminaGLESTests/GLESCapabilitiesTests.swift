import LaminaGLES
import LaminaTestSupport
import Testing

/// The path and what it may use, decided from a context's version and extensions
/// (`GLESCapabilities`, pure Swift: no GL here).
@Suite("GLES capabilities")
struct GLESCapabilitiesTests {
    /// What Mesa 22.3's llvmpipe lists on an ES 2.0 context (MESA_GLES_VERSION_OVERRIDE=2.0), in part.
    static let llvmpipeES2: Set<String> = [
        "GL_OES_vertex_array_object", "GL_OES_standard_derivatives", "GL_OES_texture_npot", "GL_EXT_texture_rg",
        "GL_EXT_unpack_subimage", "GL_OES_rgb8_rgba8", "GL_OES_depth24", "GL_EXT_shader_framebuffer_fetch",
        "GL_OES_EGL_image_external", "GL_EXT_draw_instanced", "GL_OES_texture_float",
    ]

    @Test func theContextVersionDecidesByDefault() {
        let es3 = GLESCapabilities(version: "OpenGL ES 3.2 Mesa 22.3.6", extensions: Self.llvmpipeES2)
        #expect(es3.path == .gles3 && es3.contextVersion == (3, 2) && es3.shadingLanguage == .es300)
        #expect(es3.instancedArrays && es3.framebufferBlit && es3.textureStorage && es3.fences && es3.framebufferFetch)
        #expect(es3.missing == nil && es3.fallbacks.isEmpty)
        let es2 = GLESCapabilities(version: "OpenGL ES 2.0 Mesa 22.3.6", extensions: Self.llvmpipeES2)
        #expect(es2.path == .gles2 && es2.contextVersion == (2, 0) && es2.shadingLanguage == .es100)
        #expect(!es2.instancedArrays && !es2.framebufferBlit && !es2.textureStorage && !es2.fences)
        // Framebuffer fetch is written in the ES 3.00 dialect only.
        #expect(!es2.framebufferFetch)
        // The ES 2 extensions stand in where present.
        #expect(es2.vertexArrayObjects && es2.redTextures && es2.npotMipmaps && es2.unpackRowLength && es2.standardDerivatives)
        #expect(es2.extensionsInUse.contains("GL_OES_vertex_array_object") && es2.extensionsInUse.contains("GL_EXT_texture_rg"))
        #expect(es2.depthBits == 24)
    }

    @Test func aRequestForcesThePathWhereTheContextAllows() {
        let forced2 = GLESCapabilities(version: "OpenGL ES 3.2 Mesa", extensions: Self.llvmpipeES2, request: .path(.gles2))
        #expect(forced2.path == .gles2 && forced2.note == nil)
        // An ES 2 context cannot run the ES 3 path: ES 2, saying why.
        let refused = GLESCapabilities(version: "OpenGL ES 2.0", extensions: Self.llvmpipeES2, request: .path(.gles3))
        #expect(refused.path == .gles2 && refused.note?.contains("ES 2.0") == true)
        #expect(refused.description.contains("ES 3 was asked for"))
    }

    @Test func theVC4ProfileHidesWhatVC4Lacks() {
        let vc4 = GLESCapabilities(version: "OpenGL ES 3.2 Mesa", extensions: Self.llvmpipeES2, request: .vc4)
        #expect(vc4.path == .gles2)
        #expect(vc4.hidden == ["GL_EXT_texture_rg", "GL_EXT_shader_framebuffer_fetch", "GL_EXT_draw_instanced", "GL_OES_texture_float"])
        #expect(!vc4.redTextures && vc4.extensions.isDisjoint(with: VC4Profile.lacking))
        #expect(vc4.vertexArrayObjects && vc4.standardDerivatives && vc4.npotMipmaps)
        #expect(vc4.fallbacks.contains { $0.hasPrefix("no R8") })
        #expect(VC4Profile.present.isDisjoint(with: VC4Profile.lacking))
    }

    @Test func withoutDerivativesOrVertexArraysTheES2PathCannotDraw() {
        let bare = GLESCapabilities(version: "OpenGL ES 2.0", extensions: ["GL_OES_vertex_array_object"])
        #expect(bare.missing?.contains("GL_OES_standard_derivatives") == true)
        let noVAO = GLESCapabilities(version: "OpenGL ES 2.0", extensions: ["GL_OES_standard_derivatives"])
        #expect(noVAO.missing == "GL_OES_vertex_array_object")
        // Without GL_OES_texture_npot, GL_EXT_unpack_subimage or 24-bit depth: the fallbacks say so.
        #expect(!noVAO.npotMipmaps && !noVAO.unpackRowLength && noVAO.depthBits == 16)
    }

    @Test func statsNameThePathAndTheExtensionsInUse() {
        let vc4 = GLESCapabilities(version: "OpenGL ES 2.0 Mesa", extensions: Self.llvmpipeES2, request: .vc4)
        let stats = Dictionary(vc4.statistics.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(stats["renderer.gles"] == 2 && stats["renderer.contextVersion"] == 2.0)
        #expect(stats["renderer.extensionsHidden"] == 4 && stats["renderer.fallbacks"] == Double(vc4.fallbacks.count))
        #expect(stats["renderer.extension.GL_OES_vertex_array_object"] == 1 && stats["renderer.extension.GL_EXT_texture_rg"] == nil)
        let es3 = GLESCapabilities(version: "OpenGL ES 3.2 Mesa", extensions: Self.llvmpipeES2)
        let s3 = Dictionary(es3.statistics.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(s3["renderer.gles"] == 3 && abs((s3["renderer.contextVersion"] ?? 0) - 3.2) < 1e-9)
        #expect(s3["renderer.extension.GL_EXT_shader_framebuffer_fetch"] == 1 && s3["renderer.extension.GL_OES_vertex_array_object"] == nil)
    }

    @Test func versionsAndRequestsParse() {
        #expect(GLESCapabilities(version: "OpenGL ES-CM 1.1", extensions: []).contextVersion == (1, 1))
        #expect(GLESCapabilities(version: "garbage", extensions: []).contextVersion == (2, 0))
        #expect(GLESRequest("2") == .path(.gles2) && GLESRequest("3") == .path(.gles3))
        #expect(GLESRequest("VC4") == .vc4 && GLESRequest("auto") == .automatic && GLESRequest("4") == nil)
        #expect(GLESRequest.fromEnvironment(["LAMINA_GLES": "vc4"]) == .vc4)
        #expect(GLESRequest.fromEnvironment([:]) == .automatic)
        #expect(GLESRequest.environmentError(["LAMINA_GLES": "es2"])?.contains("'es2'") == true)
        #expect(GLESRequest.vc4.clientMajorVersion == 2 && GLESRequest.automatic.clientMajorVersion == 3)
    }
}
