import CGLES
import LaminaCore

extension Shaders {
    /// One pass of a separable Gaussian blur of a group's premultiplied pixels (`filters`'
    /// gaussianBlur), with `BlurKernel`'s taps along `direction`: exactly `exactly` taps each
    /// side, or (nil) as many as the `taps` uniform says, up to `BlurKernel.maximumTaps`. On
    /// llvmpipe a loop that breaks early still samples through the iteration it breaks in, so
    /// narrow blurs (the usual ones at a backdrop's reduced resolution) have programs of their
    /// own whose loops run their exact count. The source is output-sized, so a fragment reads
    /// around its own texel.
    static func filterBlur(exactly: Int? = nil) -> String {
        let loop = exactly.map { "for (int i = 1; i <= \($0); i++) {" }
            ?? "for (int i = 1; i < MAX_TAPS; i++) {\n        if (i > taps) break;"
        return fragmentCommon + """
        #define MAX_TAPS \(BlurKernel.maximumTaps + 1)
        uniform sampler2D source;
        uniform vec2 sourceSize;     // texels
        uniform vec2 direction;      // (1, 0) or (0, 1)
        uniform int taps;            // taps each side of the centre
        uniform float weights[MAX_TAPS];
        uniform float offsets[MAX_TAPS];
        void main() {
            vec2 centre = gl_FragCoord.xy / sourceSize;
            vec2 step = direction / sourceSize;
            vec4 sum = weights[0] * texture(source, centre);
            \(loop)
                vec2 d = offsets[i] * step;
                sum += weights[i] * (texture(source, centre + d) + texture(source, centre - d));
            }
            fragColor = sum;
        }
        """
    }

    /// A 4×5 colour matrix (`ColorMatrix`) on a group's pixels: unpremultiplied, multiplied,
    /// the bias added, clamped to [0, 1] and premultiplied again.
    static let colorMatrix = fragmentCommon + """
        uniform sampler2D source;
        uniform mat4 matrix;         // column-major: matrix * (r, g, b, a)
        uniform vec4 bias;
        void main() {
            vec4 c = texelFetch(source, ivec2(gl_FragCoord.xy), 0);
            vec4 straight = c.a > 0.0 ? vec4(c.rgb / c.a, c.a) : vec4(0.0);
            vec4 o = clamp(matrix * straight + bias, 0.0, 1.0);
            fragColor = vec4(o.rgb * o.a, o.a);
        }
        """
}

/// `Shaders.filterBlur`: one pass of a group's blur.
struct FilterBlurUniforms: ProgramUniforms {
    static var fragment: String { Shaders.filterBlur() }
    /// A sampler, texture unit 0.
    let source: GLint
    let sourceSize: GLint
    let direction: GLint
    /// -1 in the programs of an exact count.
    let taps: GLint
    let weights: GLint
    let offsets: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        sourceSize = try find("sourceSize")
        direction = try find("direction")
        taps = find.optional("taps")
        weights = try find("weights")
        offsets = try find("offsets")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}

/// `Shaders.colorMatrix`: a group's colour filters in one pass.
struct ColorMatrixUniforms: ProgramUniforms {
    static var fragment: String { Shaders.colorMatrix }
    /// A sampler, texture unit 0.
    let source: GLint
    let matrix: GLint
    let bias: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        source = try find("source")
        matrix = try find("matrix")
        bias = try find("bias")
    }

    func assignTextureUnits() { glUniform1i(source, 0) }
}
