extension Shaders {
    /// The most gradient stops the gradient program takes; longer lists are resampled to this
    /// many evenly spaced stops.
    static let maximumGradientStops = 64

    /// A gradient layer's gradient (`CAGradientLayer`): axial, radial or conic, over the
    /// layer's rounded bounds. Stops are premultiplied, so colours interpolate premultiplied
    /// (a fade to a clear colour shows no dark fringe), and the result is dithered with up to
    /// one step of 8-bit output of triangular noise, so long low-contrast gradients
    /// show no bands (alpha too, except where the colour is opaque: an opaque gradient hides
    /// what is behind it, `Occlusion`).
    static let gradient = fragmentCommon + """
        #define MAX_STOPS \(maximumGradientStops)
        in vec2 local;
        uniform vec4 rect;
        uniform vec4 radii;
        uniform int gradientType;       // 0 axial, 1 radial, 2 conic
        uniform vec2 startPoint;        // layer coordinates
        uniform vec2 endPoint;
        uniform int stopCount;          // 2 ... MAX_STOPS
        uniform vec4 stopColors[MAX_STOPS];               // premultiplied, opacity applied
        uniform vec4 stopLocations[MAX_STOPS / 4];        // four per vector, non-decreasing

        // (i - q * 4, not i % 4: GLSL ES 1.00 has no %.)
        float location(int i) { int q = i / 4; return stopLocations[q][i - q * 4]; }

        // Jorge Jimenez's interleaved gradient noise: uniform in [0, 1), no visible pattern.
        float ign(vec2 p) { return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715)))); }

        void main() {
            // Derivatives first, in uniform control flow.
            float cover = coverage(local, rect, radii) * clipCoverage();
            vec2 d = endPoint - startPoint;
            vec2 p = local - startPoint;
            float t;
            if (gradientType == 0) {
                float len2 = dot(d, d);
                t = len2 > 0.0 ? dot(p, d) / len2 : 1.0;
            } else if (gradientType == 1) {
                // An ellipse about startPoint whose radii reach endPoint's x and y.
                vec2 r = abs(d);
                if (r.x == 0.0) r.x = r.y;
                if (r.y == 0.0) r.y = r.x;
                t = r.x > 0.0 ? length(p / r) : 1.0;
            } else {
                // The angle about startPoint, from the direction of endPoint, clockwise on screen.
                float a = atan(p.y, p.x) - (dot(d, d) > 0.0 ? atan(d.y, d.x) : 0.0);
                t = fract(a / 6.2831853);
            }
            int last = stopCount - 1;
            vec4 color;
            if (t <= location(0)) {
                color = stopColors[0];
            } else if (t >= location(last)) {
                color = stopColors[last];
            } else {
                color = stopColors[last];
                for (int i = 1; i < MAX_STOPS; i++) {
                    if (i > last) break;
                    float b = location(i);
                    if (t <= b) {
                        float a = location(i - 1);
                        color = mix(stopColors[i - 1], stopColors[i], b > a ? (t - a) / (b - a) : 1.0);
                        break;
                    }
                }
            }
            // Dither: triangular noise in (-1, 1) of one 8-bit step (two interleaved gradient
            // noises), so the error does not depend on the colour and no level forms a band;
            // the same in every channel, keeping the colour premultiplied (no channel above alpha).
            // An opaque colour stays opaque: what lies behind never shows through it.
            float noise = ign(gl_FragCoord.xy) + ign(gl_FragCoord.xy + vec2(47.0, 17.0)) - 1.0;
            float opaque = step(1.0 - 0.5 / 255.0, color.a);
            color = clamp(color + noise / 255.0, 0.0, 1.0);
            color.a = max(color.a, opaque);
            color.rgb = min(color.rgb, vec3(color.a));
            fragColor = color * cover;
        }
        """

    /// A masked group composited: the group's pixels times the alpha of its mask's pixels,
    /// times the group's opacity. Both textures have the framebuffer's size.
    static let maskedComposite = fragmentCommon + """
        uniform sampler2D source;
        uniform sampler2D mask;
        uniform float opacity;
        void main() {
            ivec2 texel = ivec2(gl_FragCoord.xy);
            float m = texelFetch(mask, texel, 0).a;
            fragColor = texelFetch(source, texel, 0) * (m * opacity * clipCoverage());
        }
        """
}
