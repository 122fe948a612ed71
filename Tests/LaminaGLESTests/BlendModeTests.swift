import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// `compositingFilter`: every blend mode on known colours, drawn through the render list and
/// the renderer (backdrop by framebuffer fetch and by copy), against the W3C Compositing and
/// Blending Level 1 formulas (and Apple's for plusLighter and plusDarker) computed here from
/// the same 8-bit inputs.
@Suite("Blend modes")
struct BlendModeTests {
    /// A backdrop colour and a source colour (straight alpha), and the blended layer's opacity.
    struct Pair {
        var backdrop: Color
        var source: Color
        var opacity: Double = 1
    }

    /// Chosen to take each branch: source channels on both sides of 0.5 (hard light, overlay,
    /// soft light), backdrop channels on both sides of 0.25 (soft light), translucent sources
    /// and backdrops, group opacity, and the extremes colour dodge and burn treat apart.
    static let pairs: [Pair] = [
        Pair(backdrop: rgb(51, 128, 204), source: rgb(153, 77, 230)),
        Pair(backdrop: rgb(230, 26, 102), source: rgb(26, 204, 128, 153)),
        Pair(backdrop: rgb(77, 179, 38, 128), source: rgb(179, 51, 115, 204)),
        Pair(backdrop: rgb(255, 0, 128), source: rgb(0, 255, 255)),
        Pair(backdrop: rgb(100, 200, 20), source: rgb(240, 128, 60), opacity: 0.5),
        Pair(backdrop: rgb(10, 60, 250), source: rgb(128, 0, 255, 255)),
    ]

    static let cell = 8

    /// One row per mode, one column per pair: each cell a backdrop layer and, over it, a layer
    /// of the source colour with the mode. The display's background is clear, so the pixels read
    /// back are the composite itself (premultiplied).
    static func scene() -> [SceneLayer] {
        var layers: [SceneLayer] = []
        for (row, mode) in BlendMode.allCases.enumerated() {
            for (column, pair) in pairs.enumerated() {
                let frame = Rect(x: Double(column * cell), y: Double(row * cell), width: Double(cell), height: Double(cell))
                layers.append(SceneLayer(frame: frame, color: pair.backdrop))
                layers.append(SceneLayer(frame: frame, color: pair.source) {
                    $0.compositingFilter = mode
                    $0.opacity = pair.opacity
                })
            }
        }
        return layers
    }

    /// Premultiplied RGBA in [0, 1], as the 8-bit target holds a straight colour drawn over clear.
    static func stored(_ c: Color) -> [Double] {
        [c.red, c.green, c.blue].map { (($0 * c.alpha) * 255).rounded() / 255 } + [(c.alpha * 255).rounded() / 255]
    }

    /// The W3C separable blend functions B(Cb, Cs) on one channel.
    static func mixing(_ mode: BlendMode, _ b: Double, _ s: Double) -> Double {
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
        case .plusLighter, .plusDarker: fatalError("not separable")
        }
    }

    /// The composite of premultiplied `src` over premultiplied `dst` with `mode`.
    static func expected(_ mode: BlendMode, src: [Double], dst: [Double]) -> [Double] {
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

    static func draw(fetch: Bool) throws -> (Bitmap, GLESRenderer) {
        let width = pairs.count * cell, height = BlendMode.allCases.count * cell
        let display = try HeadlessDisplay(width: width, height: height)
        display.renderer.usesFramebufferFetch = fetch
        try display.present(try drawList(scene(), width: width, height: height, background: .clear))
        return (try display.screenshot(), display.renderer)
    }

    @Test("every blend mode matches its formula, backdrop fetched or copied", arguments: [true, false])
    func formulas(fetch: Bool) throws {
        let (image, renderer) = try Self.draw(fetch: fetch)
        if fetch, !renderer.hasFramebufferFetch {
            #expect(renderer.backdropCopies > 0, "without framebuffer fetch the backdrop is copied")
        } else if !fetch {
            #expect(renderer.backdropCopies == BlendMode.allCases.count * Self.pairs.count)
        } else {
            #expect(renderer.backdropCopies == 0, "with framebuffer fetch nothing is copied")
        }
        #expect(renderer.blendedComposites == BlendMode.allCases.count * Self.pairs.count)
        for (row, mode) in BlendMode.allCases.enumerated() {
            for (column, pair) in Self.pairs.enumerated() {
                var src = Self.stored(pair.source)
                src = src.map { $0 * pair.opacity }
                let want = Self.expected(mode, src: src, dst: Self.stored(pair.backdrop)).map { Int(($0 * 255).rounded()) }
                let got = Pixel(image, column * Self.cell + Self.cell / 2, row * Self.cell + Self.cell / 2)
                let wanted = Pixel(want[0], want[1], want[2], want[3])
                #expect(got.isClose(to: wanted, tolerance: 2), "\(mode.rawValue), pair \(column): \(got), formula \(wanted)")
            }
        }
    }

    /// The modes are not source-over: each differs from a plain composite of the same colours
    /// somewhere, so the formulas above are not met by accident.
    @Test("each mode differs from plain source-over")
    func notSourceOver() throws {
        let (image, _) = try Self.draw(fetch: true)
        for (row, mode) in BlendMode.allCases.enumerated() {
            let differs = Self.pairs.indices.contains { column in
                let pair = Self.pairs[column]
                let src = Self.stored(pair.source).map { $0 * pair.opacity }, dst = Self.stored(pair.backdrop)
                let over = (0..<4).map { Int(((src[$0] + dst[$0] * (1 - src[3])) * 255).rounded()) }
                let got = Pixel(image, column * Self.cell + Self.cell / 2, row * Self.cell + Self.cell / 2)
                return !got.isClose(to: Pixel(over[0], over[1], over[2], over[3]), tolerance: 4)
            }
            #expect(differs, "\(mode.rawValue) looks like source-over")
        }
    }

    /// A blended layer's sublayers blend with it as one group, and a blended sublayer of a
    /// translucent layer blends only with what its superlayer's group holds (the group is
    /// isolated, as in CSS): over the backdrop outside the group it is a plain composite.
    @Test("a blended layer blends as a group, within its superlayer's group")
    func groups() throws {
        let backdrop = rgb(200, 100, 50)
        let parent = SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: .clear, sublayers: [
            SceneLayer(frame: Rect(x: 0, y: 0, width: 8, height: 16), color: rgb(60, 60, 60)),
            SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: rgb(128, 200, 255)) { $0.compositingFilter = .multiply },
        ]) { $0.opacity = 0.999 }  // a group of its own
        let display = try HeadlessDisplay(width: 16, height: 16)
        try display.present(try drawList([SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: backdrop), parent],
                                         width: 16, height: 16, background: .black))
        let image = try display.screenshot()
        // Left: multiplied with the grey inside the group. Right: the group was clear there, so
        // the multiply left the source as it is, and the group covers the backdrop source-over.
        let left = Pixel(image, 4, 8), right = Pixel(image, 12, 8)
        #expect(left.isClose(to: Pixel(30, 47, 60), tolerance: 2), "\(left)")
        #expect(right.isClose(to: Pixel(128, 200, 255), tolerance: 2), "\(right)")
    }
}
