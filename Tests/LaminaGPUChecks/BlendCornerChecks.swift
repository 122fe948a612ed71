import LaminaCore
import LaminaGLES
import LaminaCompositor
import LaminaTestSupport

/// The blend modes' formulas (`compositingFilter`), computed on the CPU from the W3C
/// Compositing and Blending Level 1 spec (and Apple's plusLighter and plusDarker), for the
/// renderer's pixels to be compared with: by the test suite (BlendModeTests) and on a GPU
/// (`GPUChecks.blendModes`).
public enum BlendReference {
    /// A backdrop colour and a source colour (straight alpha), and the blended layer's opacity.
    public struct Pair: Sendable {
        public var backdrop: Color
        public var source: Color
        public var opacity: Double = 1
    }

    static func rgb(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) -> Color {
        Color(red: Double(r) / 255, green: Double(g) / 255, blue: Double(b) / 255, alpha: Double(a) / 255)
    }

    /// Chosen to take each branch: source channels on both sides of 0.5 (hard light, overlay,
    /// soft light), backdrop channels on both sides of 0.25 (soft light), translucent sources
    /// and backdrops, group opacity, and the extremes colour dodge and burn treat apart.
    public static let pairs: [Pair] = [
        Pair(backdrop: rgb(51, 128, 204), source: rgb(153, 77, 230)),
        Pair(backdrop: rgb(230, 26, 102), source: rgb(26, 204, 128, 153)),
        Pair(backdrop: rgb(77, 179, 38, 128), source: rgb(179, 51, 115, 204)),
        Pair(backdrop: rgb(255, 0, 128), source: rgb(0, 255, 255)),
        Pair(backdrop: rgb(100, 200, 20), source: rgb(240, 128, 60), opacity: 0.5),
        Pair(backdrop: rgb(10, 60, 250), source: rgb(128, 0, 255, 255)),
    ]

    /// Premultiplied RGBA in [0, 1], as an 8-bit target holds a straight colour drawn over clear.
    public static func stored(_ c: Color) -> [Double] {
        [c.red, c.green, c.blue].map { (($0 * c.alpha) * 255).rounded() / 255 } + [(c.alpha * 255).rounded() / 255]
    }

    /// The W3C separable blend functions B(Cb, Cs) on one channel.
    public static func mixing(_ mode: BlendMode, _ b: Double, _ s: Double) -> Double {
        func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1) }
        switch mode {
        case .multiply: return b * s
        case .screen: return b + s - b * s
        case .overlay: return hardLight(s, b)
        case .darken: return min(b, s)
        case .lighten: return max(b, s)
        case .colorDodge: return b == 0 ? 0 : s == 1 ? 1 : min(1, b / (1 - s))
        case .colorBurn: return b == 1 ? 1 : s == 0 ? 0 : 1 - min(1, (1 - b) / s)
        case .softLight:
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (d - b)
        case .hardLight: return hardLight(b, s)
        case .difference: return abs(b - s)
        case .exclusion: return b + s - 2 * b * s
        case .plusLighter, .plusDarker: return s  // not separable: `expected` composites them
        }
    }

    /// The composite of premultiplied `src` over premultiplied `dst` with `mode`.
    public static func expected(_ mode: BlendMode, src: [Double], dst: [Double]) -> [Double] {
        let sa = src[3], ba = dst[3]
        switch mode {
        case .plusLighter:
            return (0..<4).map { min(1, src[$0] + dst[$0]) }
        case .plusDarker:
            // Apple's R = max(0, 1 − ((1 − D) + (1 − S))), premultiplied.
            let a = min(1, sa + ba)
            return (0..<3).map { max(0, a - ((sa - src[$0]) + (ba - dst[$0]))) } + [a]
        default:
            // Cs' = (1 − αb)·Cs + αb·B(Cb, Cs), then source-over.
            return (0..<3).map { i in
                let cs = sa > 0 ? src[i] / sa : 0, cb = ba > 0 ? dst[i] / ba : 0
                let m = min(1, max(0, mixing(mode, cb, cs)))
                return src[i] * (1 - ba) + dst[i] * (1 - sa) + sa * ba * m
            } + [sa + ba - sa * ba]
        }
    }

    /// The expected 8-bit RGBA of `pair` blended with `mode`.
    public static func expectedBytes(_ mode: BlendMode, _ pair: Pair) -> [Int] {
        let src = stored(pair.source).map { $0 * pair.opacity }
        return expected(mode, src: src, dst: stored(pair.backdrop)).map { Int(($0 * 255).rounded()) }
    }
}

/// One corner of Apple's continuous corner in the corner's frame, in radii: distance along the
/// edge from the corner (a) and depth into the rectangle (b), flattened finely from PaintCode's
/// published control points (blended towards the circular corner where the reach does not fit,
/// docs/protocol.md). Independent of the renderer's solver: the points, sampled.
public struct ContinuousCornerProfile: Sendable {
    /// (a, b) from the first edge round to the second: a falls, b rises.
    public private(set) var points: [(a: Double, b: Double)] = []
    /// How far the corner reaches along each edge, in radii.
    public private(set) var reach: Double

    static let continuous: [(Double, Double)] = [
        (1.52866483, 0), (1.08849323, 0), (0.86840689, 0), (0.66993427, 0.065496),
        (0.63149399, 0.074911),
        (0.37282392, 0.16905899), (0.16905899, 0.37282392), (0.074911, 0.63149399),
        (0.065496, 0.66993427),
        (0, 0.86840689), (0, 1.08849323), (0, 1.52866483),
    ]
    static let circular: [(Double, Double)] = [
        (1, 0), (1, 0), (1, 0), (1, 0), (1, 0),
        (0.44771525, 0), (0, 0.44771525), (0, 1),
        (0, 1), (0, 1), (0, 1), (0, 1),
    ]

    /// The corner of `radius` in a rectangle whose shorter side is twice `limit`.
    public init(radius: Double, limit: Double) {
        let s = min(1, max(0, (limit / radius - 1) / (1.52866483 - 1)))
        let p = zip(Self.circular, Self.continuous).map { c, k in (c.0 + (k.0 - c.0) * s, c.1 + (k.1 - c.1) * s) }
        reach = p[0].0
        for i in [0, 4, 8] {  // the three cubics; the lines join their ends
            for k in 0...512 {
                let t = Double(k) / 512, u = 1 - t
                let w = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
                points.append((w.0 * p[i].0 + w.1 * p[i + 1].0 + w.2 * p[i + 2].0 + w.3 * p[i + 3].0,
                               w.0 * p[i].1 + w.1 * p[i + 1].1 + w.2 * p[i + 2].1 + w.3 * p[i + 3].1))
            }
        }
    }

    /// Whether (a, b), in radii from the corner, lies inside the shape: beyond the curve, which
    /// is the graph of a falling function of a.
    public func contains(a: Double, b: Double) -> Bool {
        if a >= reach || b >= reach { return a >= 0 && b >= 0 }
        if a < 0 || b < 0 { return false }
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid].a >= a { lo = mid } else { hi = mid }
        }
        let p = points[lo], q = points[hi]
        return b >= (q.a == p.a ? p.b : p.b + (a - p.a) / (q.a - p.a) * (q.b - p.b))
    }

    /// The fraction of pixel (x, y) inside the rectangle `r` with corners of `radius` of this
    /// profile, by 16 × 16 samples.
    public func coverage(_ x: Int, _ y: Int, _ r: Rect, radius: Double) -> Double {
        var inside = 0
        for j in 0..<16 {
            for i in 0..<16 {
                let px = Double(x) + (Double(i) + 0.5) / 16, py = Double(y) + (Double(j) + 0.5) / 16
                if contains(a: min(px - r.minX, r.maxX - px) / radius, b: min(py - r.minY, r.maxY - py) / radius) { inside += 1 }
            }
        }
        return Double(inside) / 256
    }
}

extension GPUChecks {
    /// Every blend mode over every `BlendReference` pair, composited by the renderer (one
    /// 8 × 8 cell each, the backdrop read by framebuffer fetch where the context has it, or by
    /// copy): passed when each pixel is within 2 levels of the formula.
    public static func blendModes(fetch: Bool) -> Outcome {
        do {
            let cell = 8.0, pairs = BlendReference.pairs
            let width = pairs.count * 8, height = BlendMode.allCases.count * 8
            var commands: [DrawCommand] = []
            for (row, mode) in BlendMode.allCases.enumerated() {
                for (column, pair) in pairs.enumerated() {
                    let at = Transform3D.translation(x: Double(column) * cell, y: Double(row) * cell)
                    let bounds = Rect(x: 0, y: 0, width: cell, height: cell)
                    commands.append(DrawCommand(transform: at, bounds: bounds, color: pair.backdrop, opacity: 1))
                    var group = DrawCommand(kind: .beginGroup, transform: at, bounds: bounds, opacity: pair.opacity)
                    group.blendMode = mode
                    commands += [group, DrawCommand(transform: at, bounds: bounds, color: pair.source, opacity: 1), DrawCommand(kind: .endGroup)]
                }
            }
            let display = try HeadlessDisplay(width: width, height: height)
            display.renderer.usesFramebufferFetch = fetch
            try display.present(DrawList(width: width, height: height, background: .clear, commands: commands))
            let image = try display.screenshot()
            let how = display.renderer.hasFramebufferFetch && fetch ? "framebuffer fetch" : "a copy of the backdrop"
            var worst = 0, at = ""
            for (row, mode) in BlendMode.allCases.enumerated() {
                for (column, pair) in pairs.enumerated() {
                    let want = BlendReference.expectedBytes(mode, pair)
                    let p = image.pixel(x: column * 8 + 4, y: row * 8 + 4)
                    let got = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
                    let d = zip(got, want).map { abs($0 - $1) }.max()!
                    if d > worst { (worst, at) = (d, "\(mode.rawValue), pair \(column): \(got) where \(want) was expected") }
                }
            }
            let detail = "\(BlendMode.allCases.count) modes × \(pairs.count) colour pairs by \(how)"
            return worst <= 2 ? .passed("\(detail), worst difference \(worst)") : .failed("\(detail): differs by \(worst) at \(at)")
        } catch {
            return .failed("\(error)")
        }
    }

    /// A continuous-cornered rectangle (the full curve, and one blended towards circular) with
    /// a border, drawn by the renderer, against `ContinuousCornerProfile`'s coverage around its
    /// corners: passed within 0.12 of full intensity at every pixel and 0.01 on average.
    public static func continuousCorners() -> Outcome {
        do {
            var lines: [String] = []
            for (frame, radius) in [(Rect(x: 20, y: 16, width: 200, height: 120), 30.0), (Rect(x: 17, y: 13, width: 121, height: 61), 24.0)] {
                let radii = CornerRadii(radius: radius, mask: .all, size: frame.size, curve: .continuous)
                let command = DrawCommand(kind: .layer, transform: .identity, bounds: frame, color: .black, cornerRadii: radii,
                                          borderWidth: 6, borderColor: .white)
                let display = try HeadlessDisplay(width: 240, height: 160)
                try display.present(DrawList(width: 240, height: 160, background: .black, commands: [command]))
                let image = try display.screenshot()
                let outer = ContinuousCornerProfile(radius: radius, limit: min(frame.width, frame.height) / 2)
                let inner = ContinuousCornerProfile(radius: radius - 6, limit: min(frame.width, frame.height) / 2 - 6)
                let insetFrame = Rect(x: frame.minX + 6, y: frame.minY + 6, width: frame.width - 12, height: frame.height - 12)
                let n = Int((outer.reach * radius).rounded(.up)) + 2
                var worst = 0.0, sum = 0.0, count = 0, at = ""
                for y in Int(frame.minY) - 2 ..< Int(frame.maxY) + 2 {
                    for x in Int(frame.minX) - 2 ..< Int(frame.maxX) + 2 {
                        let nearX = x < Int(frame.minX) + n || x >= Int(frame.maxX) - n, nearY = y < Int(frame.minY) + n || y >= Int(frame.maxY) - n
                        guard nearX && nearY else { continue }
                        let want = outer.coverage(x, y, frame, radius: radius) - inner.coverage(x, y, insetFrame, radius: radius - 6)
                        let d = abs(Double(image.pixel(x: x, y: y).r) / 255 - want)
                        sum += d
                        count += 1
                        if d > worst { (worst, at) = (d, "(\(x), \(y))") }
                    }
                }
                let mean = sum / Double(max(count, 1))
                lines.append("\(Int(frame.width))×\(Int(frame.height)) radius \(Int(radius)): worst \(Int(worst * 255)) at \(at), mean \(String(Int(mean * 10_000)))e-4")
                if worst > 0.12 || mean > 0.01 { return .failed(lines.joined(separator: "; ")) }
            }
            return .passed("a bordered rectangle's continuous corners against the curve: " + lines.joined(separator: "; "))
        } catch {
            return .failed("\(error)")
        }
    }
}
