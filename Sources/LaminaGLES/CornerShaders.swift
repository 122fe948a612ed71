import LaminaCore
import LaminaCompositor

extension Shaders {
    /// Apple's continuous corner (`cornerCurve = continuous`) in GLSL, for `fragmentCommon`:
    /// the points of `ContinuousCorner` (circular and continuous, blended by the corner's
    /// smoothing), their Bézier segments solved for the boundary, and the signed distance of a
    /// rectangle with such a corner.
    ///
    /// A continuous corner reaches the shaders as its radius negated (`CornerRadii.shaderRadii`),
    /// so a program takes continuous corners with no uniform more. The code is compiled only into
    /// each program's third variant (`CONTINUOUS_CORNERS`, with the clip stack), which the
    /// renderer uses where a draw's own corners or a clip in force are continuous: llvmpipe runs
    /// both sides of a branch for every pixel, and in every program it doubled the cost of the
    /// distance-field shader for circular corners too.
    ///
    /// The boundary near a corner is a convex curve symmetric about the corner's diagonal. A
    /// point is reflected onto the half between the first edge and the diagonal, where the curve
    /// is the graph of a function b = f(a) whose slope lies in [-1, 0]; its distance is
    /// (f(a) - b) / sqrt(1 + f'(a)²), the distance to the tangent below the point, exact on the
    /// curve and within a hundredth of a pixel over the antialiasing ramp for any corner larger
    /// than a few pixels. Between the corner and the curve's diagonal point the tangent there
    /// (perpendicular to the diagonal) stands in.
    static let continuousCorner: String = {
        func points(_ list: [(a: Double, b: Double)]) -> String {
            list.map { "vec2(\(glsl($0.a)), \(glsl($0.b)))" }.joined(separator: ",\n        ")
        }
        // GLSL ES 1.00 has no array constructors: the points are picked by index.
        func chain(_ list: [(a: Double, b: Double)]) -> String {
            list.dropLast().enumerated().map { "if (i == \($0.offset)) return vec2(\(glsl($0.element.a)), \(glsl($0.element.b)));" }
                .joined(separator: "\n            ") + "\n            return vec2(\(glsl(list.last!.a)), \(glsl(list.last!.b)));"
        }
        return """
        // Each radius less `width`, a continuous corner (negative) staying continuous: the inner
        // corners of a border.
        vec4 innerRadii(vec4 radii, float width) {
            return sign(radii) * max(abs(radii) - width, 0.0);
        }

        #ifdef CONTINUOUS_CORNERS
        const float CORNER_REACH = \(glsl(ContinuousCorner.reach));
        #if __VERSION__ >= 300
        const vec2 CORNER_CONTINUOUS[12] = vec2[12](
                \(points(ContinuousCorner.points)));
        const vec2 CORNER_CIRCULAR[12] = vec2[12](
                \(points(ContinuousCorner.circularPoints)));

        // Point i of the walk for a corner of smoothing s (ContinuousCorner.blendedPoints).
        vec2 cornerPoint(int i, float s) { return mix(CORNER_CIRCULAR[i], CORNER_CONTINUOUS[i], s); }
        #else
        vec2 cornerContinuous(int i) {
            \(chain(ContinuousCorner.points))
        }
        vec2 cornerCircular(int i) {
            \(chain(ContinuousCorner.circularPoints))
        }
        vec2 cornerPoint(int i, float s) { return mix(cornerCircular(i), cornerContinuous(i), s); }
        #endif

        // How continuous a corner of radius r is in a rectangle of half-size h
        // (ContinuousCorner.smoothing): less where its full reach does not fit.
        float cornerSmoothing(float r, vec2 h) {
            return clamp((min(h.x, h.y) / r - 1.0) / (CORNER_REACH - 1.0), 0.0, 1.0);
        }

        float bezier(vec4 c, float t) {
            float u = 1.0 - t;
            return u * u * u * c.x + 3.0 * u * u * t * c.y + 3.0 * u * t * t * c.z + t * t * t * c.w;
        }
        float bezierSlope(vec4 c, float t) {
            float u = 1.0 - t;
            return 3.0 * (u * u * (c.y - c.x) + 2.0 * u * t * (c.z - c.y) + t * t * (c.w - c.z));
        }

        // The t in [0, t1] at which the cubic coordinate c, monotonic there with a slope away
        // from zero, equals target: Newton's method from the chord's guess.
        float solveBezier(vec4 c, float target, float t1) {
            float end = bezier(c, t1);
            float t = abs(end - c.x) > 1e-9 ? clamp((target - c.x) / (end - c.x), 0.0, 1.0) * t1 : 0.5 * t1;
            for (int i = 0; i < 3; i++) {
                float d = bezierSlope(c, t);
                t = clamp(t - (bezier(c, t) - target) / (abs(d) > 1e-6 ? d : -1e-6), 0.0, t1);
            }
            return t;
        }

        // The diagonal point's distance along each edge, in radii: the middle cubic's halfway point.
        float cornerDiagonal(float s) {
            return bezier(vec4(cornerPoint(4, s).x, cornerPoint(5, s).x, cornerPoint(6, s).x, cornerPoint(7, s).x), 0.5);
        }

        // The piece of the half walk from the first edge to the diagonal that holds a (radii
        // along the edge): the first cubic, the line (as a cubic) or the middle cubic up to its
        // diagonal point; its a and b coordinates, and the t it ends at. Chosen by selects, so
        // one solve follows (a branch per piece would run all three on llvmpipe).
        void cornerPiece(float a, float s, out vec4 ax, out vec4 bx, out float end) {
            vec2 p0 = cornerPoint(0, s), p3 = cornerPoint(3, s), p4 = cornerPoint(4, s);
            bool first = a >= p3.x && p0.x > p3.x;
            bool line = !first && a >= p4.x && p3.x > p4.x;
            vec2 q0 = first ? p0 : line ? p3 : p4;
            vec2 q1 = first ? cornerPoint(1, s) : line ? mix(p3, p4, 1.0 / 3.0) : cornerPoint(5, s);
            vec2 q2 = first ? cornerPoint(2, s) : line ? mix(p3, p4, 2.0 / 3.0) : cornerPoint(6, s);
            vec2 q3 = first ? p3 : line ? p4 : cornerPoint(7, s);
            ax = vec4(q0.x, q1.x, q2.x, q3.x);
            bx = vec4(q0.y, q1.y, q2.y, q3.y);
            end = first || line ? 1.0 : 0.5;
        }

        // On the half from the first edge to the diagonal, for a in [diagonal, reach] (radii
        // along the first edge): the curve's depth b into the rectangle and its slope db/da.
        vec2 cornerDepth(float a, float s) {
            vec4 ax, bx;
            float end;
            cornerPiece(a, s, ax, bx, end);
            float t = solveBezier(ax, a, end);
            float da = bezierSlope(ax, t);
            return vec2(bezier(bx, t), bezierSlope(bx, t) / (abs(da) > 1e-6 ? da : -1e-6));
        }

        // How far in from the side edge the shape begins at depth v (radii) below the top or
        // bottom edge, for v in [0, reach): the boundary's a at b = v.
        float cornerInset(float v, float s) {
            float diagonal = cornerDiagonal(s);
            // Past the diagonal the curve mirrors the first half: the inset at depth v is the
            // depth at distance v along the edge.
            if (v >= diagonal) return cornerDepth(v, s).x;
            vec2 p0 = cornerPoint(0, s), p1 = cornerPoint(1, s), p2 = cornerPoint(2, s), p3 = cornerPoint(3, s);
            vec2 p4 = cornerPoint(4, s);
            // The first cubic's depth is p3.y t³ (its first three points lie on the edge).
            if (v <= p3.y && p3.y > 0.0) return bezier(vec4(p0.x, p1.x, p2.x, p3.x), pow(v / p3.y, 1.0 / 3.0));
            if (v <= p4.y && p4.y > p3.y) return mix(p3.x, p4.x, (v - p3.y) / (p4.y - p3.y));
            vec2 p5 = cornerPoint(5, s), p6 = cornerPoint(6, s), p7 = cornerPoint(7, s);
            float t = solveBezier(vec4(p4.y, p5.y, p6.y, p7.y), v, 0.5);
            return bezier(vec4(p4.x, p5.x, p6.x, p7.x), t);
        }

        // Signed distance (layer units, negative inside) and outward unit gradient of a
        // rectangle of half-size h, centred on 0, at q, whose corner in q's quadrant is
        // continuous with radius r.
        vec3 continuousRectDistance(vec2 q, vec2 h, float r) {
            float s = cornerSmoothing(r, h);
            float reach = r * mix(1.0, CORNER_REACH, s);
            vec2 flip = vec2(q.x < 0.0 ? -1.0 : 1.0, q.y < 0.0 ? -1.0 : 1.0);
            vec2 inward = h - abs(q);   // in from the side edge (x) and the top or bottom edge (y)
            if (inward.x >= reach || inward.y >= reach) {
                // Outside the corner's square the edges are straight: the box distance.
                vec2 e = -inward;
                vec2 outside = max(e, 0.0);
                float l = length(outside);
                vec2 g = l > 0.0 ? outside / l : (e.x > e.y ? vec2(1.0, 0.0) : vec2(0.0, 1.0));
                return vec3(min(max(e.x, e.y), 0.0) + l, g * flip);
            }
            // (a, b): radii along the top or bottom edge from the corner, and down from it;
            // reflected onto the half nearer that edge.
            vec2 w = inward / r;
            bool swapped = w.x < w.y;
            vec2 ab = swapped ? w.yx : w;
            float diagonal = cornerDiagonal(s);
            float d;
            vec2 g;
            if (ab.x >= diagonal) {
                vec2 f = cornerDepth(ab.x, s);
                float n = sqrt(1.0 + f.y * f.y);
                d = (f.x - ab.y) / n;
                g = vec2(f.y, -1.0) / n;
            } else {
                d = (2.0 * diagonal - ab.x - ab.y) * 0.70710678;
                g = vec2(-0.70710678);
            }
            if (swapped) g = g.yx;
            // a and b grow inwards: d(a)/d(q.x) = -flip.x / r, and likewise for b.
            return vec3(d * r, -g * flip);
        }

        #endif

        """
    }()

    /// `x` as a GLSL float literal (always with a decimal point).
    static func glsl(_ x: Double) -> String {
        let text = "\(x)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}

extension CornerRadii {
    /// The same radii as circular corners: for shaded cells outside every corner's square
    /// (`EdgeBands.corners`), where both curves leave the edges straight and the distance is
    /// the same, so those cells take the circular programs (and the similarity batch).
    var straightEdged: CornerRadii {
        var r = self
        r.curve = .circular
        return r
    }

    /// The radii as the shaders take them: minXMinY, maxXMinY, maxXMaxY, minXMaxY, each negated
    /// for a continuous corner (`Shaders.continuousCorner`).
    var shaderRadii: SIMD4<Float> {
        let k: Float = curve == .continuous ? -1 : 1
        return SIMD4(Float(minXMinY), Float(maxXMinY), Float(maxXMaxY), Float(minXMaxY)) * k
    }
}
