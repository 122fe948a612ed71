import LaminaCompositor

/// The GLSL ES 3.00 sources of the renderer's programs.
///
/// Every program draws the same unit square, stretched over a rectangle in some layer's
/// coordinates and carried to the display by that layer's transform (screen-space passes use
/// the identity). Colours are premultiplied throughout; opacity is applied before blending
/// with `GL_ONE, GL_ONE_MINUS_SRC_ALPHA`.
enum Shaders {
    /// The most `masksToBounds` clips a fragment is tested against; deeper nesting keeps the
    /// innermost ones (the renderer's documented limit).
    static let maximumClips = DrawCommand.maximumClips

    static let vertex = """
        #version 300 es
        layout(location = 0) in vec2 unitVertex;
        // Row-vector Core Animation matrix uploaded as-is: read column-major it is the
        // column-vector matrix for M * v.
        uniform mat4 layerToDisplay;
        uniform vec4 quad;            // the rectangle covered: origin.xy, size.zw (layer coordinates)
        uniform vec2 pointsToClip;    // 2 / display width, 2 / display height
        out vec2 local;               // the fragment in layer coordinates (perspective-correct)
        // Every program computes the same position from the same vertex, so rectangles drawn
        // side by side by different programs (edge bands and flat interiors) meet exactly.
        invariant gl_Position;
        void main() {
            local = quad.xy + unitVertex * quad.zw;
            vec4 d = layerToDisplay * vec4(local, 0.0, 1.0);
            // Display points (y down) to clip space, keeping w so perspective divides after:
            // x_ndc = 2x/W - 1, y_ndc = 1 - 2y/H. z = 0: layers flatten, painter's order rules.
            gl_Position = vec4(d.x * pointsToClip.x - d.w, d.w - d.y * pointsToClip.y, 0.0, d.w);
        }
        """

    /// Shared by every fragment shader: the rounded-rectangle distance, its antialiased
    /// coverage, and the clip stack.
    static let fragmentCommon = """
        #version 300 es
        precision highp float;
        #define MAX_CLIPS \(maximumClips)
        #ifdef FRAMEBUFFER_FETCH
        // GL_EXT_shader_framebuffer_fetch: the fragment starts as the pixel behind it.
        inout vec4 fragColor;
        #else
        out vec4 fragColor;
        #endif

        \(continuousCorner)
        // Signed distance from p to the rectangle (origin.xy, size.zw) whose corners have the
        // radii (minXminY, maxXminY, maxXmaxY, minXmaxY), negative inside, and the distance's
        // gradient (a unit vector). Inigo Quilez's rounded box, with the corner picked by p's
        // quadrant; y grows downward. A negative radius is a continuous corner.
        vec3 roundedRectDistance(vec2 p, vec4 rect, vec4 radii) {
            vec2 halfSize = rect.zw * 0.5;
            vec2 q = p - (rect.xy + halfSize);
            vec2 row = q.y < 0.0 ? radii.xy : radii.wz;   // (minX corner, maxX corner) of p's row
            float r = q.x < 0.0 ? row.x : row.y;
            #ifdef CONTINUOUS_CORNERS
            if (r < 0.0) return continuousRectDistance(q, halfSize, -r);
            #endif
            vec2 e = abs(q) - halfSize + r;
            vec2 outside = max(e, 0.0);
            float l = length(outside);
            float d = min(max(e.x, e.y), 0.0) + l - r;
            vec2 g = l > 0.0 ? outside / l : (e.x > e.y ? vec2(1.0, 0.0) : vec2(0.0, 1.0));
            return vec3(d, g * vec2(q.x < 0.0 ? -1.0 : 1.0, q.y < 0.0 ? -1.0 : 1.0));
        }

        // The fraction of the pixel inside the shape at p (layer units), from its distance:
        // the distance changes across a pixel by the layer-space pixel footprint projected on
        // the gradient, which converts it to pixels; a box filter one pixel wide then ramps
        // from 1 at -0.5 px to 0 at +0.5 px. Edges on pixel boundaries stay exact, and the ramp
        // follows any transform (analytic antialiasing, no multisampling). Must be called in
        // uniform control flow: it takes derivatives of p.
        float coverage(vec2 p, vec4 rect, vec4 radii) {
            vec3 dg = roundedRectDistance(p, rect, radii);
            float pixel = length(vec2(dot(dFdx(p), dg.yz), dot(dFdy(p), dg.yz)));
            return clamp(0.5 - dg.x / max(pixel, 1e-6), 0.0, 1.0);
        }

        #if HAS_CLIPS
        uniform float displayHeight;
        uniform int clipCount;
        uniform mat3 clipFromDisplay[MAX_CLIPS]; // display point -> clip layer (homography)
        uniform vec4 clipRect[MAX_CLIPS];
        uniform vec4 clipRadii[MAX_CLIPS];

        // The product of the coverages of every clip in force. Each clip is its layer's rounded
        // bounds; the display point maps back into the clip layer's plane through the inverse of
        // the plane's homography, so clips work under any 2D or 3D transform.
        float clipCoverage() {
            float c = 1.0;
            vec2 display = vec2(gl_FragCoord.x, displayHeight - gl_FragCoord.y);
            for (int i = 0; i < MAX_CLIPS; i++) {
                if (i >= clipCount) break;
                vec3 h = clipFromDisplay[i] * vec3(display, 1.0);
                // h.z <= 0: the point is behind the clip plane's eye, so outside it.
                float inside = coverage(h.xy / max(h.z, 1e-6), clipRect[i], clipRadii[i]);
                c *= h.z > 0.0 ? inside : 0.0;
            }
            return c;
        }
        #else
        // The variant for draws outside every clip (HAS_CLIPS 0): nothing to multiply.
        float clipCoverage() { return 1.0; }
        #endif

        """

    /// A layer's rounded rectangle at `p`: its background and its border, each antialiased
    /// (the `shape` program and the shape batch). Colours premultiplied, opacity applied.
    static let shapeColor = """
        vec4 shapeColor(vec2 p, vec4 rect, vec4 radii, float borderWidth, vec4 fillColor, vec4 borderColor) {
            float outer = coverage(p, rect, radii);
            if (borderWidth <= 0.0) return fillColor * outer;
            // The border lies inside the bounds; its inner edge is the bounds inset by the
            // width, with each radius shrunk by the width (Core Animation's inner corners).
            vec4 innerRect = rect + vec4(borderWidth, borderWidth, -2.0 * borderWidth, -2.0 * borderWidth);
            float inner = 0.0;
            if (innerRect.z > 0.0 && innerRect.w > 0.0) {
                inner = coverage(p, innerRect, innerRadii(radii, borderWidth));
            }
            // The two coverages share the pixel: `inner` of it shows the fill, the ring
            // (outer - inner) shows the border over the fill.
            float ring = max(outer - inner, 0.0);
            return fillColor * inner + (borderColor + fillColor * (1.0 - borderColor.a)) * ring;
        }

        """

    /// A layer's rounded rectangle: its background and its border, each antialiased.
    static let shape = fragmentCommon + shapeColor + """
        in vec2 local;
        uniform vec4 rect;
        uniform vec4 radii;
        uniform float borderWidth;
        uniform vec4 fillColor;      // premultiplied, opacity applied
        uniform vec4 borderColor;    // premultiplied, opacity applied
        void main() {
            vec4 color = shapeColor(local, rect, radii, borderWidth, fillColor, borderColor);
            fragColor = color * clipCoverage();
        }
        """

    /// One flat colour: the cells of a layer that are fully inside its shape (the edge-band
    /// split), and pixel-aligned rectangles. Without clips (HAS_CLIPS 0) it is a few
    /// instructions, about ten times cheaper per fragment on llvmpipe than `shape`.
    static let fill = fragmentCommon + """
        in vec2 local;
        uniform vec4 fillColor;      // premultiplied, opacity applied
        void main() {
            fragColor = fillColor * clipCoverage();
        }
        """

    /// The shadow of a rounded rectangle, blurred analytically (Evan Wallace's closed form: the
    /// Gaussian integral across x is exact through erf; along y it is summed at four points).
    static let shadow = fragmentCommon + """
        in vec2 local;
        uniform vec4 rect;           // the casting rectangle, moved by the shadow offset
        uniform vec4 radii;
        uniform float sigma;         // layer units
        uniform vec4 color;          // premultiplied shadow colour x shadowOpacity x opacity

        float gaussian(float x, float s) {
            return exp(-(x * x) / (2.0 * s * s)) / (2.5066282746 * s);
        }
        // erf, to within 5e-4 (Abramowitz and Stegun 7.1.27).
        vec2 erf(vec2 x) {
            vec2 s = sign(x), a = abs(x);
            x = 1.0 + (0.278393 + (0.230389 + 0.078108 * (a * a)) * a) * a;
            x *= x;
            return s - s / (x * x);
        }
        // The blurred coverage along x of the row at height y of a rounded box centred on 0
        // (a negative corner radius: a continuous corner).
        float rowCoverage(float x, float y, float corner, vec2 halfSize) {
            float delta = min(halfSize.y - corner - abs(y), 0.0);
            float curved = halfSize.x - corner + sqrt(max(0.0, corner * corner - delta * delta));
            #ifdef CONTINUOUS_CORNERS
            if (corner < 0.0) {
                float r = -corner, s = cornerSmoothing(r, halfSize);
                float depth = halfSize.y - abs(y);
                curved = halfSize.x - (depth < r * mix(1.0, CORNER_REACH, s) ? r * cornerInset(max(depth, 0.0) / r, s) : 0.0);
            }
            #endif
            vec2 integral = 0.5 + 0.5 * erf((x + vec2(-curved, curved)) * (0.70710678 / sigma));
            return integral.y - integral.x;
        }
        void main() {
            vec2 halfSize = rect.zw * 0.5;
            vec2 p = local - (rect.xy + halfSize);
            vec2 row = p.y < 0.0 ? radii.xy : radii.wz;
            float corner = p.x < 0.0 ? row.x : row.y;
            float value;
            if (sigma < 0.05) {
                value = coverage(local, rect, radii);
            } else {
                // Integrate the Gaussian in y over the part of the box within 3 sigma: at four
                // points, or eight for a continuous corner, whose rows' extents change over
                // 1.5 times the distance a circular corner's do.
                float low = p.y - halfSize.y, high = p.y + halfSize.y;
                float start = clamp(-3.0 * sigma, low, high), end = clamp(3.0 * sigma, low, high);
                #ifdef CONTINUOUS_CORNERS
                int rows = corner < 0.0 ? 8 : 4;
                #else
                const int rows = 4;
                #endif
                float step = (end - start) / float(rows);
                float y = start + step * 0.5;
                value = 0.0;
                for (int i = 0; i < rows; i++) {
                    value += rowCoverage(p.x, p.y - y, corner, halfSize) * gaussian(y, sigma) * step;
                    y += step;
                }
            }
            fragColor = color * value * clipCoverage();
        }
        """

    /// An offscreen group's pixels, composited with the group's opacity. The group texture has
    /// the framebuffer's size, so each fragment reads its own texel; a smaller texture (a cached
    /// group's appearance) starts at framebuffer pixel `origin`.
    static let composite = fragmentCommon + """
        uniform sampler2D source;
        uniform float opacity;
        uniform ivec2 origin;
        uniform vec4 fill;           // premultiplied, over the source (a backdrop's layer's own fill)
        void main() {
            vec4 pixel = texelFetch(source, ivec2(gl_FragCoord.xy) - origin, 0);
            fragColor = (fill + pixel * (opacity * (1.0 - fill.a))) * clipCoverage();
        }
        """

    /// A quarter of the resolution in one pass: each pixel the average of the 4 × 4 block of
    /// `source` below it (pixel p of the target covers source pixels 4p … 4p + 3, GL's rows),
    /// four bilinear samples each taken where four texels meet.
    static let downsample4 = fragmentCommon + """
        uniform sampler2D source;
        uniform vec2 sourceSize;     // texels
        void main() {
            vec2 corner = floor(gl_FragCoord.xy) * 4.0;
            vec4 sum = texture(source, (corner + vec2(1.0, 1.0)) / sourceSize)
                     + texture(source, (corner + vec2(3.0, 1.0)) / sourceSize)
                     + texture(source, (corner + vec2(1.0, 3.0)) / sourceSize)
                     + texture(source, (corner + vec2(3.0, 3.0)) / sourceSize);
            fragColor = sum * 0.25;
        }
        """

    /// A backdrop filtered at 1/`factor` of the display's resolution (GLESRenderer+Backdrop.swift),
    /// drawn back over the display: each pixel samples the reduced result bilinearly at its
    /// centre over `factor`, less `shift` (where the result lies in the texture), the sample a
    /// linear blit back up to the display's resolution would take, without that pass.
    static let backdropComposite = fragmentCommon + """
        uniform sampler2D source;
        uniform vec2 sourceSize;     // texels
        uniform float opacity;
        uniform float factor;
        uniform vec2 shift;          // texels
        uniform vec4 fill;           // premultiplied, over the backdrop (the layer's own fill)
        void main() {
            vec2 p = gl_FragCoord.xy / factor - shift;
            fragColor = (fill + texture(source, p / sourceSize) * (opacity * (1.0 - fill.a))) * clipCoverage();
        }
        """

    /// One pass of a separable Gaussian blur of a texture's alpha, with taps from
    /// `BlurKernel`: as many as the `taps` uniform says, or exactly `exactly`; or
    /// (`resampling`) a down-sampling or up-sampling pass, one read and no taps (`scale` 2 or
    /// 1/factor). The resampling and exact programs are programs of their own because llvmpipe
    /// samples through the iteration a loop breaks in: two reads a pixel more in the general
    /// program, a fifth more for a narrow blur.
    /// Intermediate passes write colour (1,1,1,1) × alpha into scratch targets; the last one
    /// tints with the shadow colour and lands at the shadow offset.
    static func blur(resampling: Bool, exactly: Int? = nil) -> String {
        let head = exactly.map { "for (int i = 1; i <= \($0); i++) {" }
            ?? "for (int i = 1; i < MAX_TAPS; i++) {\n                if (i > taps) break;"
        let loop = resampling ? "" : """
            \(head)
                    vec2 d = offsets[i] * direction;
                    sum += weights[i] * (texture(source, (centre + d) / sourceSize).a
                                         + texture(source, (centre - d) / sourceSize).a);
                }
            """
        return fragmentCommon + """
        #define MAX_TAPS \(BlurKernel.maximumTaps + 1)
        uniform sampler2D source;
        uniform vec2 sourceSize;     // texels
        uniform vec2 sourceOffset;   // framebuffer pixels: the fragment reads source at (p - offset) * scale
        uniform vec2 direction;      // (1, 0) or (0, 1): texels per unit of offset
        uniform int taps;            // taps each side of the centre
        uniform float scale;         // source texels per framebuffer pixel
        uniform vec4 color;          // premultiplied tint
        uniform float weights[MAX_TAPS];
        uniform float offsets[MAX_TAPS];
        void main() {
            vec2 centre = (gl_FragCoord.xy - sourceOffset) * scale;
            float sum = weights[0] * texture(source, centre / sourceSize).a;
            \(loop)
            fragColor = color * sum * clipCoverage();
        }
        """
    }

    /// `contents` for the common case, a whole image (or its `contentsRect` part) stretched
    /// over a destination whose edges land on pixels, without nine slices or a rounded mask
    /// (a video, a photo): one texture read and no coverage, where `contents` runs two distance
    /// fields, the nine-slice map and their derivatives for every pixel (on llvmpipe a
    /// full-screen video went from about 9 to about 2 ms of shading a frame).
    static let plainContents = fragmentCommon + """
        in vec2 local;
        uniform sampler2D source;
        uniform vec4 destRect;       // origin.xy, size.zw (layer units)
        uniform vec4 sourceRect;     // u0, v0, u1, v1 (texture units; may be flipped)
        uniform vec4 clampRect;      // min u, min v, max u, max v: half a texel inside sourceRect
        uniform float opacity;
        uniform float opaque;
        void main() {
            vec2 uv = mix(sourceRect.xy, sourceRect.zw, (local - destRect.xy) / destRect.zw);
            vec4 texel = texture(source, clamp(uv, clampRect.xy, clampRect.zw));
            texel.a = max(texel.a, opaque);
            fragColor = texel * (opacity * clipCoverage());
        }
        """

    /// A layer's contents (or a server raster): a texture mapped onto `destRect` in nine
    /// slices. Along each axis the destination's edges (`destInsets`: left, top, right, bottom,
    /// layer units) show the source's edges (`sourceInsets`, texture units) one to one, and the
    /// middle stretches; zero insets stretch the whole source. The texture holds premultiplied
    /// RGBA. Edges are antialiased like shapes, and `masksToBounds` clips to the rounded bounds.
    static let contents = fragmentCommon + """
        in vec2 local;
        uniform sampler2D source;
        uniform vec4 destRect;       // origin.xy, size.zw (layer units)
        uniform vec4 destInsets;     // left, top, right, bottom (layer units)
        uniform vec4 sourceRect;     // u0, v0, u1, v1 (texture units; may be flipped)
        uniform vec4 sourceInsets;   // left, top, right, bottom (texture units)
        uniform vec4 clampRect;      // min u, min v, max u, max v: half a texel inside sourceRect
        uniform vec4 maskRect;
        uniform vec4 maskRadii;
        uniform float useMask;
        uniform float opacity;
        uniform float opaque;

        // One axis of the nine-slice map: x in [d0, d1] with edges a (start) and b (end) to
        // [s0, s1] with edges sa and sb.
        float slice(float x, float d0, float d1, float a, float b, float s0, float s1, float sa, float sb) {
            if (x < d0 + a) return s0 + (x - d0) / max(a, 1e-6) * sa;
            if (x > d1 - b) return s1 - (d1 - x) / max(b, 1e-6) * sb;
            float middle = max(d1 - b - (d0 + a), 1e-6);
            return s0 + sa + (x - (d0 + a)) / middle * (s1 - sb - (s0 + sa));
        }

        void main() {
            float inside = coverage(local, destRect, vec4(0.0));
            float masked = coverage(local, maskRect, maskRadii);
            float clipped = clipCoverage();
            vec2 uv = vec2(
                slice(local.x, destRect.x, destRect.x + destRect.z, destInsets.x, destInsets.z,
                      sourceRect.x, sourceRect.z, sourceInsets.x, sourceInsets.z),
                slice(local.y, destRect.y, destRect.y + destRect.w, destInsets.y, destInsets.w,
                      sourceRect.y, sourceRect.w, sourceInsets.y, sourceInsets.w));
            uv = clamp(uv, clampRect.xy, clampRect.zw);
            vec4 texel = texture(source, uv);
            if (opaque > 0.5) texel.a = 1.0;
            float c = inside * (useMask > 0.5 ? masked : 1.0) * clipped;
            fragColor = texel * (opacity * c);
        }
        """
}
