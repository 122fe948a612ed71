import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import LaminaProtocol
import Testing
import LaminaTestSupport

/// `filters`: colour filters on known colours against their formulas computed here, a blur
/// against a CPU Gaussian of the same radius, bad filters refused, and damage against a full
/// redraw, all drawn through the render list and the renderer as laminad draws them.
@Suite("Layer filters (rendering)")
struct LayerFilterRenderingTests {
    static let cell = 8
    static let colours: [(Int, Int, Int)] = [(200, 100, 50), (30, 160, 240), (255, 255, 0), (90, 90, 90)]

    /// What `filters` make of an 8-bit opaque colour: each filter's formula in turn (written out
    /// here, not through `ColorMatrix`), clamped once at the end, as 8-bit values.
    static func expected(_ c: (Int, Int, Int), _ filters: [LayerFilter]) -> Pixel {
        var v = [Double(c.0) / 255, Double(c.1) / 255, Double(c.2) / 255]
        for f in filters {
            let x = f.values.first ?? 0
            switch f.type {
            case .saturate:
                let grey = 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
                v = v.map { grey + ($0 - grey) * x }
            case .brightness: v = v.map { $0 + x }
            case .contrast: v = v.map { ($0 - 0.5) * x + 0.5 }
            case .invert: v = v.map { 1 - $0 }
            case .colorMatrix:
                let m = f.values, rgba: [Double] = v + [1]
                var out: [Double] = []
                for row in 0..<3 {
                    var sum: Double = m[16 + row]
                    for col in 0..<4 { sum += m[row * 4 + col] * rgba[col] }
                    out.append(sum)
                }
                v = out
            default: break
            }
        }
        let bytes = v.map { Int((min(max($0, 0), 1) * 255).rounded()) }
        return Pixel(bytes[0], bytes[1], bytes[2])
    }

    static let filterSets: [[LayerFilter]] = [
        [.amount("s", .saturate, 0)],
        [.amount("s", .saturate, 0.5)],
        [.amount("s", .saturate, 1.8)],
        [LayerFilter(name: "i", type: .invert)],
        [.amount("b", .brightness, 0.2), .amount("c", .contrast, 1.5)],
        // R ← G, G ← B, B ← R, with a bias on red.
        [.colorMatrix("m", [0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0.1, 0, 0, 0])],
        [.colorMatrix("m", [0.5, 0.5, 0, 0, 0, 1, 0, 0, 0.2, 0.2, 0.2, 0, 0, 0, 0, 1, 0, 0, 0.3, 0]), .amount("s", .saturate, 0.3)],
    ]

    @Test("colour matrices and saturate on known colours match their formulas")
    func colourFilters() throws {
        var layers: [SceneLayer] = []
        for (row, filters) in Self.filterSets.enumerated() {
            for (column, c) in Self.colours.enumerated() {
                let frame = Rect(x: Double(column * Self.cell), y: Double(row * Self.cell), width: Double(Self.cell), height: Double(Self.cell))
                layers.append(SceneLayer(frame: frame, color: rgb(c.0, c.1, c.2)) { $0.filters = filters })
            }
        }
        let width = Self.colours.count * Self.cell, height = Self.filterSets.count * Self.cell
        let display = try HeadlessDisplay(width: width, height: height)
        try display.present(try drawList(layers, width: width, height: height, background: .black))
        let image = try display.screenshot()
        #expect(display.renderer.filterPasses == Self.filterSets.count * Self.colours.count, "one pass per run of colour filters")
        for (row, filters) in Self.filterSets.enumerated() {
            for (column, c) in Self.colours.enumerated() {
                let got = Pixel(image, column * Self.cell + Self.cell / 2, row * Self.cell + Self.cell / 2)
                let want = Self.expected(c, filters)
                #expect(got.isClose(to: want, tolerance: 2), "\(filters) on \(c): \(got), formula \(want)")
            }
        }
    }

    /// Colour filters act on straight colour: a translucent layer's colour is inverted, and its
    /// alpha kept, before it is composited.
    @Test("colour filters act on straight colour, keeping alpha")
    func translucent() throws {
        let layer = SceneLayer(frame: Rect(x: 0, y: 0, width: 8, height: 8), color: rgb(200, 100, 50, 128)) {
            $0.filters = [LayerFilter(name: "neg", type: .invert)]
        }
        let display = try HeadlessDisplay(width: 8, height: 8)
        try display.present(try drawList([layer], width: 8, height: 8, background: .black))
        let a = 128.0 / 255
        let want = Pixel(Int((55 * a).rounded()), Int((155 * a).rounded()), Int((205 * a).rounded()))
        let got = Pixel(try display.screenshot(), 4, 4)
        #expect(got.isClose(to: want, tolerance: 2), "\(got), formula \(want)")
    }

    /// The discrete Gaussian of σ = radius / 3 over ±⌈3σ⌉ pixels, normalised, as a CPU
    /// reference: a white square's blur is the product of the blurred edges along x and y.
    static func blurredEdge(_ x: Int, from lo: Int, to hi: Int, radius: Double) -> Double {
        let sigma = radius / 3, n = Int((3 * sigma).rounded(.up))
        let w = (-n...n).map { k in _exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = w.reduce(0, +)
        var sum = 0.0
        for (i, k) in (-n...n).enumerated() where (lo..<hi).contains(x - k) { sum += w[i] }
        return sum / total
    }

    @Test("a blur matches a CPU Gaussian of the same radius", arguments: [3.0, 9.0, 24.0])
    func blur(radius: Double) throws {
        let size = 120, lo = 50, hi = 70
        let square = SceneLayer(frame: Rect(x: Double(lo), y: Double(lo), width: Double(hi - lo), height: Double(hi - lo)), color: .white) {
            $0.filters = [.gaussianBlur("soft", radius: radius)]
        }
        let display = try HeadlessDisplay(width: size, height: size)
        try display.present(try drawList([square], width: size, height: size, background: .black))
        let image = try display.screenshot()
        var worst = 0
        for y in stride(from: 20, to: 100, by: 3) {
            for x in stride(from: 20, to: 100, by: 3) {
                let want = Int((255 * Self.blurredEdge(x, from: lo, to: hi, radius: radius) * Self.blurredEdge(y, from: lo, to: hi, radius: radius)).rounded())
                worst = max(worst, abs(Int(image.pixel(x: x, y: y).r) - want))
            }
        }
        #expect(worst <= 3, "largest difference from the CPU Gaussian: \(worst) of 255")
        // The blur spreads beyond the layer's bounds: the group box grew by the reach.
        #expect(image.pixel(x: lo - Int(radius / 2), y: 60).r > 0)
    }

    /// A masked layer's filters apply to its pixels, and its mask to what they make.
    @Test("a masked layer is filtered, then masked")
    func maskedLayer() throws {
        let mask = SceneLayer(frame: Rect(x: 0, y: 0, width: 10, height: 20), color: .white)
        let layer = SceneLayer(frame: Rect(x: 0, y: 0, width: 20, height: 20), color: rgb(255, 0, 0), mask: mask) {
            $0.filters = [LayerFilter(name: "neg", type: .invert)]
        }
        let display = try HeadlessDisplay(width: 20, height: 20)
        try display.present(try drawList([layer], width: 20, height: 20, background: .black))
        let image = try display.screenshot()
        #expect(Pixel(image, 5, 10).isClose(to: Pixel(0, 255, 255), tolerance: 2), "\(Pixel(image, 5, 10))")
        #expect(Pixel(image, 15, 10).isClose(to: Pixel(0, 0, 0), tolerance: 2), "\(Pixel(image, 15, 10))")
    }

    /// A still filtered layer is a group like any other: kept in the group cache the second
    /// time it is drawn, its passes not run again, and drawn from there with the pixels of a
    /// fresh draw.
    @Test("a still filtered layer is drawn from the group cache")
    func cached() throws {
        let layer = SceneLayer(frame: Rect(x: 20, y: 20, width: 40, height: 40), color: rgb(200, 80, 40)) {
            $0.filters = [.gaussianBlur("soft", radius: 6), .amount("s", .saturate, 0.5)]
        }
        let list = try drawList([layer], width: 100, height: 100, background: .black)
        let backend = try HeadlessDisplay(width: 100, height: 100)
        backend.damageTracking = false
        try backend.present(list)
        try backend.present(list)
        let passes = backend.renderer.filterPasses, hits = backend.renderer.groupCache.hits
        try backend.present(list)
        #expect(backend.renderer.groupCache.hits - hits == 1 && backend.renderer.filterPasses == passes)
        let cached = try backend.screenshot()
        backend.renderer.cachesGroups = false
        try backend.present(list)
        #expect(backend.renderer.filterPasses == passes + 3, "a blur's two passes and one colour pass")
        let d = cached.difference(from: try backend.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst)")
    }

    @Test("bad filters are refused naming the filter, and nothing else in the commit is applied",
          arguments: [
              ([LayerFilter.gaussianBlur("soft", radius: 500)], "filters.soft.inputRadius"),
              ([.colorMatrix("m", [1, 2, 3])], "filters.m: colorMatrix takes inputMatrix of 20 numbers"),
              ([.amount("s", .saturate, .infinity)], "filters"),
              ((0..<9).map { LayerFilter.amount("f\($0)", .brightness, 0) }, "at most 8 filters"),
          ])
    func badFilters(filters: [LayerFilter], message: String) throws {
        var display = ModelTree(width: 32, height: 32, background: .black)
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "filters"))
        let id = LayerID(rawValue: 1)
        var refused = ""
        do {
            _ = try display.apply([.create(id, kind: .layer), .insert(parent: .root, child: id, index: .max),
                                   .set(id, .backgroundColor, .color(.white)),
                                   .set(id, .filters, .filters(filters))], from: client, limits: ClientLimits())
        } catch {
            refused = "\(error)"
        }
        #expect(refused.contains(message), "\(refused)")
        #expect(display.drawList().commands.isEmpty, "the commit was refused whole")
    }

    /// A blurred panel over a square that moves, and a blurred group whose sublayer moves:
    /// drawn with damage into a kept buffer, the same as drawn whole.
    @Test("damage matches a full redraw for blurred layers over and under moving ones")
    func damageMatchesFullRedraw() throws {
        func scene(_ t: Double) -> [SceneLayer] {
            [
                SceneLayer(frame: Rect(x: 20 + t, y: 40, width: 30, height: 30), color: rgb(0, 200, 255)),
                SceneLayer(frame: Rect(x: 40, y: 30, width: 60, height: 50), color: rgb(255, 255, 255, 140)) {
                    $0.filters = [.gaussianBlur("soft", radius: 12)]
                },
                SceneLayer(frame: Rect(x: 120, y: 20, width: 60, height: 60), color: .clear, sublayers: [
                    SceneLayer(frame: Rect(x: 10 + t / 2, y: 10, width: 20, height: 20), color: rgb(255, 80, 0)),
                ]) { $0.filters = [.gaussianBlur("g", radius: 6), .amount("s", .saturate, 0.4)] },
            ]
        }
        let kept = try HeadlessDisplay(width: 200, height: 120, buffers: 1)
        for t in [0.0, 7, 15] {
            try kept.present(try drawList(scene(t), width: 200, height: 120, background: .black))
        }
        let whole = try HeadlessDisplay(width: 200, height: 120)
        whole.damageTracking = false
        try whole.present(try drawList(scene(15), width: 200, height: 120, background: .black))
        let d = try kept.screenshot().difference(from: try whole.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) (\(d.differing) pixels differ)")
    }
}
