import CGLES
import LaminaCore

extension Shaders {
    /// An offscreen group's pixels blended with what lies behind them (`compositingFilter`).
    ///
    /// The separable modes are the W3C Compositing and Blending Level 1 functions B(Cb, Cs) on
    /// unpremultiplied colours, composited by the spec's general formula
    /// co = cs·(1 − αb) + cb·(1 − αs) + αs·αb·B(Cb, Cs), αo = αs + αb − αs·αb (premultiplied).
    /// plusLighter is min(1, cs + cb) for colour and alpha; plusDarker is Apple's
    /// R = max(0, 1 − ((1 − D) + (1 − S))) for opaque pixels, taken premultiplied:
    /// αo = min(1, αs + αb), co = max(0, αo − ((αs − cs) + (αb − cb))); both leave the backdrop
    /// unchanged where the source is clear, like every mode here.
    ///
    /// The program writes the whole result (blending off): the backdrop is read from a copy
    /// (`backdrop`, the framebuffer's size, so each fragment reads its own texel) or, with
    /// `fetch`, from the framebuffer itself (GL_EXT_shader_framebuffer_fetch). Clips mix the
    /// result with the backdrop by their coverage. With `useMask`, the group's pixels are
    /// multiplied by its mask's alpha first, as `maskedComposite` does.
    static func blendComposite(fetch: Bool) -> String {
        let common = fetch
            ? fragmentCommon.insertingAfterVersion("#extension GL_EXT_shader_framebuffer_fetch : require\n#define FRAMEBUFFER_FETCH 1")
            : fragmentCommon
        let backdrop = fetch ? "vec4 dst = fragColor;" : "vec4 dst = texelFetch(backdrop, at, 0);"
        return common + """
        uniform sampler2D source;      // the group, premultiplied (unit 0)
        uniform sampler2D mask;        // its mask, when useMask (unit 1)
        \(fetch ? "" : "uniform sampler2D backdrop;    // a copy of what lies behind (unit 2)")
        uniform float useMask;
        uniform float opacity;
        uniform int mode;              // BlendMode's case index

        vec3 multiply(vec3 b, vec3 s) { return b * s; }
        vec3 screen(vec3 b, vec3 s) { return b + s - b * s; }
        vec3 hardLight(vec3 b, vec3 s) {
            return mix(multiply(b, 2.0 * s), screen(b, 2.0 * s - 1.0), step(0.5, s));
        }
        float colorDodge(float b, float s) {
            if (b <= 0.0) return 0.0;
            if (s >= 1.0) return 1.0;
            return min(1.0, b / (1.0 - s));
        }
        float colorBurn(float b, float s) {
            if (b >= 1.0) return 1.0;
            if (s <= 0.0) return 0.0;
            return 1.0 - min(1.0, (1.0 - b) / s);
        }
        float softLight(float b, float s) {
            if (s <= 0.5) return b - (1.0 - 2.0 * s) * b * (1.0 - b);
            float d = b <= 0.25 ? ((16.0 * b - 12.0) * b + 4.0) * b : sqrt(b);
            return b + (2.0 * s - 1.0) * (d - b);
        }

        // B(Cb, Cs) for the separable modes, unpremultiplied.
        vec3 mixing(vec3 b, vec3 s) {
            // An if chain, not a switch: GLSL ES 1.00 (the ES 2 path) has none.
            if (mode == \(BlendMode.multiply.shaderIndex)) return multiply(b, s);
            if (mode == \(BlendMode.screen.shaderIndex)) return screen(b, s);
            if (mode == \(BlendMode.overlay.shaderIndex)) return hardLight(s, b);   // hard-light with the layers swapped
            if (mode == \(BlendMode.darken.shaderIndex)) return min(b, s);
            if (mode == \(BlendMode.lighten.shaderIndex)) return max(b, s);
            if (mode == \(BlendMode.colorDodge.shaderIndex)) return vec3(colorDodge(b.r, s.r), colorDodge(b.g, s.g), colorDodge(b.b, s.b));
            if (mode == \(BlendMode.colorBurn.shaderIndex)) return vec3(colorBurn(b.r, s.r), colorBurn(b.g, s.g), colorBurn(b.b, s.b));
            if (mode == \(BlendMode.softLight.shaderIndex)) return vec3(softLight(b.r, s.r), softLight(b.g, s.g), softLight(b.b, s.b));
            if (mode == \(BlendMode.hardLight.shaderIndex)) return hardLight(b, s);
            if (mode == \(BlendMode.difference.shaderIndex)) return abs(b - s);
            return b + s - 2.0 * b * s;   // exclusion
        }

        vec4 blended(vec4 src, vec4 dst) {
            float sa = src.a, ba = dst.a;
            if (mode == \(BlendMode.plusLighter.shaderIndex)) return min(src + dst, 1.0);
            if (mode == \(BlendMode.plusDarker.shaderIndex)) {
                float a = min(1.0, sa + ba);
                return vec4(max(vec3(0.0), a - ((sa - src.rgb) + (ba - dst.rgb))), a);
            }
            vec3 cs = sa > 0.0 ? src.rgb / sa : vec3(0.0);
            vec3 cb = ba > 0.0 ? dst.rgb / ba : vec3(0.0);
            vec3 m = clamp(mixing(cb, cs), 0.0, 1.0);
            return vec4(src.rgb * (1.0 - ba) + dst.rgb * (1.0 - sa) + sa * ba * m, sa + ba - sa * ba);
        }

        void main() {
            ivec2 at = ivec2(gl_FragCoord.xy);
            vec4 src = texelFetch(source, at, 0) * opacity;
            if (useMask > 0.5) src *= texelFetch(mask, at, 0).a;
            \(backdrop)
            fragColor = mix(dst, blended(src, dst), clipCoverage());
        }
        """
    }
}

extension BlendMode {
    /// The mode's number in `Shaders.blendComposite` (`mode`): its place among the cases.
    var shaderIndex: Int32 { Int32(BlendMode.allCases.firstIndex(of: self)!) }
}

/// `Shaders.blendComposite`: a group's pixels blended with the backdrop, read from a copy.
struct BlendUniforms: ProgramUniforms {
    static var fragment: String { Shaders.blendComposite(fetch: false) }
    /// Samplers: texture units 0, 1 and 2 (the backdrop's is -1 where it is fetched).
    let source: GLint
    let mask: GLint
    let backdrop: GLint
    let useMask: GLint
    let opacity: GLint
    let mode: GLint

    init(_ find: UniformLocator) throws(GLESError) {
        try self.init(find, fetch: false)
    }

    init(_ find: UniformLocator, fetch: Bool) throws(GLESError) {
        source = try find("source")
        mask = try find("mask")
        backdrop = fetch ? -1 : try find("backdrop")
        useMask = try find("useMask")
        opacity = try find("opacity")
        mode = try find("mode")
    }

    func assignTextureUnits() {
        glUniform1i(source, 0)
        glUniform1i(mask, 1)
        if backdrop >= 0 { glUniform1i(backdrop, 2) }
    }
}

/// `Shaders.blendComposite` reading the backdrop with GL_EXT_shader_framebuffer_fetch.
struct FetchBlendUniforms: ProgramUniforms {
    static var fragment: String { Shaders.blendComposite(fetch: true) }
    let blend: BlendUniforms

    init(_ find: UniformLocator) throws(GLESError) {
        blend = try BlendUniforms(find, fetch: true)
    }

    func assignTextureUnits() { blend.assignTextureUnits() }
}
