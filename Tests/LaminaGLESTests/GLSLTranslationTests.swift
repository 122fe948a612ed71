import LaminaGLES
import Testing

/// The ES 3.00 → ES 1.00 rewrite of the ES 2 path (`GLSLTranslation`, pure Swift). That every
/// renderer program compiles and draws after it is shown on a real context
/// (`GLESPathRenderingTests`, and every pixel suite in ES 2 mode).
@Suite("GLSL translation")
struct GLSLTranslationTests {
    @Test func aVertexShaderGetsAttributesAndVaryings() {
        let source = """
            #version 300 es
            layout(location = 0) in vec2 unitVertex;
            layout(location = 3) in vec4 colorIn;   // premultiplied
            out vec2 local;
            flat out vec4 color;
            invariant gl_Position;
            void main() { local = unitVertex; color = colorIn; gl_Position = vec4(unitVertex, 0.0, 1.0); }
            """
        let es100 = GLSLTranslation.translate(source, stage: .vertex, to: .es100)
        #expect(es100.hasPrefix("#version 100\n"))
        #expect(es100.contains("attribute vec2 unitVertex;") && es100.contains("attribute vec4 colorIn;   // premultiplied"))
        #expect(es100.contains("varying vec2 local;") && es100.contains("varying vec4 color;"))
        #expect(!es100.contains("layout") && !es100.contains("flat") && !es100.contains(" out "))
        #expect(GLSLTranslation.attributeLocations(source).map { "\($0.name)@\($0.location)" } == ["unitVertex@0", "colorIn@3"])
        #expect(GLSLTranslation.translate(source, stage: .vertex, to: .es300) == source)
    }

    @Test func aFragmentShaderGetsDerivativesTexture2DAndFragColor() {
        let source = """
            #version 300 es
            #define HAS_CLIPS 1
            precision highp float;
            out vec4 fragColor;
            in vec2 local;
            uniform sampler2D source;
            uniform sampler2D mask;
            uniform ivec2 origin;
            void main() {
                vec4 a = texture(source, local) + mytexture(local);
                fragColor = texelFetch(source, ivec2(gl_FragCoord.xy) - origin, 0) * texelFetch(mask, ivec2(1, 2), 0).a + a * dFdx(local.x);
            }
            """
        let es100 = GLSLTranslation.translate(source, stage: .fragment, to: .es100)
        let lines = es100.split(separator: "\n").map(String.init)
        #expect(lines[0] == "#version 100" && lines[1] == "#extension GL_OES_standard_derivatives : enable")
        #expect(lines.contains("#define fragColor gl_FragColor") && lines.contains("varying vec2 local;"))
        // texture( becomes texture2D( but an identifier ending in "texture(" does not.
        #expect(es100.contains("texture2D(source, local) + mytexture(local)"))
        // texelFetch samples the texel's centre, with one over the size in a uniform declared once per sampler.
        #expect(es100.contains("texture2D(source, (vec2(ivec2(gl_FragCoord.xy) - origin) + 0.5) * laminaTexelSize_source)"))
        #expect(es100.contains("texture2D(mask, (vec2(ivec2(1, 2)) + 0.5) * laminaTexelSize_mask).a"))
        #expect(lines.filter { $0 == "uniform vec2 laminaTexelSize_source;" }.count == 1)
        // Declared after `precision` (before their first use).
        let precision = lines.firstIndex(of: "precision highp float;")!
        #expect(lines.firstIndex(of: "uniform vec2 laminaTexelSize_mask;")! > precision)
        #expect(!es100.contains("texelFetch") && !es100.contains("300 es"))
    }

    @Test func externalImagesUseTheES2Extension() {
        let source = "#version 300 es\n#extension GL_OES_EGL_image_external_essl3 : require\nuniform samplerExternalOES picture;"
        let es100 = GLSLTranslation.translate(source, stage: .fragment, to: .es100)
        #expect(es100.contains("#extension GL_OES_EGL_image_external : require") && !es100.contains("essl3"))
    }
}
