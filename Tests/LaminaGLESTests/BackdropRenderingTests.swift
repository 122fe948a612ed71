import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import LaminaProtocol
import Testing
import LaminaTestSupport

/// `backgroundFilters`: what lies behind a layer, filtered, under its own draws. A blur against
/// a CPU Gaussian of the same radius, colour filters on known colours against their formulas,
/// corners, the kept backdrop, damage against a full redraw, and bad filters refused. Every
/// pixel test draws twice, damage-tracked into a kept buffer and whole, and compares the two.
@Suite("Background filters (rendering)")
struct BackdropRenderingTests {
    /// Presents `frames` on a damage-tracked display with one kept buffer and the last on one
    /// drawing whole; expects the same pixels and returns the tracked screenshot.
    static func drawBothWays(_ frames: [[SceneLayer]], width: Int, height: Int,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> (Bitmap, HeadlessDisplay) {
        let tracked = try HeadlessDisplay(width: width, height: height, buffers: 1)
        for layers in frames { try tracked.present(try drawList(layers, width: width, height: height, background: .black)) }
        let whole = try HeadlessDisplay(width: width, height: height)
        whole.damageTracking = false
        try whole.present(try drawList(frames.last!, width: width, height: height, background: .black))
        let a = try tracked.screenshot(), b = try whole.screenshot()
        let d = a.difference(from: b)
        #expect(d.worst <= 1, "damage-tracked against whole: \(d.worst) apart (\(d.differing) pixels)", sourceLocation: sourceLocation)
        return (a, tracked)
    }

    @Test("a background blur matches a CPU Gaussian of the same radius", arguments: [3.0, 9.0, 24.0])
    func blur(radius: Double) throws {
        let size = 160, lo = 70, hi = 90
        let square = SceneLayer(frame: Rect(x: Double(lo), y: Double(lo), width: Double(hi - lo), height: Double(hi - lo)), color: .white)
        let glass = SceneLayer(frame: Rect(x: 40, y: 40, width: 80, height: 80)) {
            $0.backgroundFilters = [.gaussianBlur("frost", radius: radius)]
        }
        // The square alone first: the glass arrives over a drawn backdrop.
        let (image, _) = try Self.drawBothWays([[square], [square, glass]], width: size, height: size)
        var worst = 0
        for y in stride(from: 41, to: 120, by: 3) {
            for x in stride(from: 41, to: 120, by: 3) {
                let want = Int((255 * LayerFilterRenderingTests.blurredEdge(x, from: lo, to: hi, radius: radius)
                                * LayerFilterRenderingTests.blurredEdge(y, from: lo, to: hi, radius: radius)).rounded())
                worst = max(worst, abs(Int(image.pixel(x: x, y: y).r) - want))
            }
        }
        // σ ≥ 6 pixels runs at a quarter of the resolution (GLESRenderer+Backdrop.swift): the
        // averaging down and bilinear way back up are compensated in σ, within 4 levels.
        #expect(worst <= (radius >= 18 ? 4 : 3), "largest difference from the CPU Gaussian inside the glass: \(worst) of 255")
        // Outside the glass the square is sharp, and nothing spreads there.
        #expect(image.pixel(x: 30, y: 80).r == 0)
        #expect(image.pixel(x: 150, y: 80).r == 0)
    }

    @Test("colour matrices and saturate on a backdrop of known colours match their formulas")
    func colourFilters() throws {
        let cell = LayerFilterRenderingTests.cell
        var layers: [SceneLayer] = []
        let sets = LayerFilterRenderingTests.filterSets, colours = LayerFilterRenderingTests.colours
        for (row, _) in sets.enumerated() {
            for (column, c) in colours.enumerated() {
                layers.append(SceneLayer(frame: Rect(x: Double(column * cell), y: Double(row * cell), width: Double(cell), height: Double(cell)),
                                         color: rgb(c.0, c.1, c.2)))
            }
        }
        // One glass a row over the cells of that row, its own background clear.
        for (row, filters) in sets.enumerated() {
            layers.append(SceneLayer(frame: Rect(x: 0, y: Double(row * cell), width: Double(colours.count * cell), height: Double(cell))) {
                $0.backgroundFilters = filters
            })
        }
        let width = colours.count * cell, height = sets.count * cell
        let (image, display) = try Self.drawBothWays([layers], width: width, height: height)
        #expect(display.renderer.backdrops.filtered == sets.count)
        for (row, filters) in sets.enumerated() {
            for (column, c) in colours.enumerated() {
                let got = Pixel(image, column * cell + cell / 2, row * cell + cell / 2)
                let want = LayerFilterRenderingTests.expected(c, filters)
                #expect(got.isClose(to: want, tolerance: 2), "\(filters) on \(c): \(got), formula \(want)")
            }
        }
    }

    /// Frosted glass: a translucent background over the filtered backdrop.
    @Test("a translucent background is drawn over the filtered backdrop")
    func frosted() throws {
        let back = SceneLayer(frame: Rect(x: 0, y: 0, width: 20, height: 20), color: rgb(200, 100, 50))
        let glass = SceneLayer(frame: Rect(x: 0, y: 0, width: 20, height: 20), color: rgb(255, 255, 255, 128)) {
            $0.backgroundFilters = [LayerFilter(name: "neg", type: .invert)]
        }
        let (image, _) = try Self.drawBothWays([[back, glass]], width: 20, height: 20)
        let a = 128.0 / 255
        func over(_ c: Double) -> Int { Int((255 * a + c * (1 - a)).rounded()) }
        let want = Pixel(over(55), over(155), over(205))
        #expect(Pixel(image, 10, 10).isClose(to: want, tolerance: 2), "\(Pixel(image, 10, 10)), formula \(want)")
    }

    /// A layer's plain fill right after its backdrop is drawn in the backdrop's composite
    /// (`GLESRenderer.foldedFill`): the same pixels as drawn on its own, within two levels
    /// inside (the separate draw rounds the backdrop to 8 bits before the fill goes over it)
    /// and a few along the rounded edge (where the shape's coverage now applies once to the
    /// two together), at a reduced resolution and at full, translucent or not; a fill with a
    /// border is drawn on its own.
    @Test("a layer's fill is drawn in its backdrop's composite, as on its own",
          arguments: [(24.0, 1.0, 0.0), (24.0, 0.6, 0.0), (2.0, 0.6, 0.0), (24.0, 1.0, 2.0)])
    func foldedFill(radius: Double, opacity: Double, border: Double) throws {
        var layers: [SceneLayer] = []
        for i in 0..<8 {
            layers.append(SceneLayer(frame: Rect(x: Double(i * 20), y: 0, width: 20, height: 120),
                                     color: rgb(i % 2 == 0 ? 230 : 20, i * 30, 120)))
        }
        layers.append(SceneLayer(frame: Rect(x: 20.5, y: 20, width: 110, height: 80), color: rgb(255, 255, 255, 90)) {
            $0.cornerRadius = 14
            $0.opacity = opacity
            $0.borderWidth = border
            $0.borderColor = rgb(0, 0, 255)
            $0.backgroundFilters = [.gaussianBlur("frost", radius: radius)]
        })
        let list = try drawList(layers, width: 160, height: 120, background: .black)
        func draw(folding: Bool) throws -> (Bitmap, Int) {
            let display = try HeadlessDisplay(width: 160, height: 120)
            display.renderer.backdrops.foldsFills = folding
            try display.present(list)
            return (try display.screenshot(), display.renderer.backdrops.foldedFills)
        }
        let (folded, count) = try draw(folding: true)
        let (alone, none) = try draw(folding: false)
        #expect(count == (border > 0 ? 0 : 1) && none == 0, "fills folded: \(count), with folding off \(none)")
        var inside = 0, edge = 0
        for y in 0..<120 {
            for x in 0..<160 {
                let a = folded.pixel(x: x, y: y), b = alone.pixel(x: x, y: y)
                let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                // Away from the rounded outline (corners' circles of radius 14, centres 14 in).
                let cx = min(max(Double(x) + 0.5, 34.5), 116.5), cy = min(max(Double(y) + 0.5, 34), 86)
                let fromOutline = abs(((Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)).squareRoot() - 14)
                if fromOutline > 1.5 { inside = max(inside, d) } else { edge = max(edge, d) }
            }
        }
        #expect(inside <= 2, "away from the edge: \(inside) levels apart")
        #expect(edge <= 24, "on the rounded edge: \(edge) levels apart")
    }

    /// The filtered backdrop is clipped to the rounded corners: inverted white inside the
    /// curve, white outside it, checked against the circle's equation away from its edge.
    @Test("the backdrop is clipped to the layer's rounded corners", arguments: [CornerCurve.circular, .continuous])
    func corners(curve: CornerCurve) throws {
        let back = SceneLayer(frame: Rect(x: 0, y: 0, width: 80, height: 80), color: .white)
        let glass = SceneLayer(frame: Rect(x: 10, y: 10, width: 60, height: 60)) {
            $0.cornerRadius = 20
            $0.cornerCurve = curve
            $0.backgroundFilters = [LayerFilter(name: "neg", type: .invert)]
        }
        let (image, _) = try Self.drawBothWays([[back, glass]], width: 80, height: 80)
        #expect(Pixel(image, 40, 40).isClose(to: Pixel(0, 0, 0), tolerance: 1))
        #expect(Pixel(image, 11, 11).isClose(to: Pixel(255, 255, 255), tolerance: 1), "outside the corner: \(Pixel(image, 11, 11))")
        #expect(Pixel(image, 5, 40).isClose(to: Pixel(255, 255, 255), tolerance: 1), "outside the bounds")
        if curve == .circular {
            // The top-left corner's circle: centre (30, 30), radius 20.
            for y in 10..<30 {
                for x in 10..<30 {
                    let d = ((Double(x) + 0.5 - 30) * (Double(x) + 0.5 - 30) + (Double(y) + 0.5 - 30) * (Double(y) + 0.5 - 30)).squareRoot()
                    if d < 19 { #expect(image.pixel(x: x, y: y).r <= 1, "(\(x), \(y)) inside the curve") }
                    if d > 21 { #expect(image.pixel(x: x, y: y).r >= 254, "(\(x), \(y)) outside the curve") }
                }
            }
        }
    }

    /// Where the backdrop is drawn without the clip: a layer on whole pixels is cut only in its
    /// four corner squares (the corner's reach and a pixel), the rest drawn unclipped; a layer
    /// off whole pixels keeps a ring of the corner's reach and a pixel all round clipped; a
    /// turned one is clipped everywhere. The parts never overlap and the cut ones cover every
    /// pixel the shape's edge crosses.
    @Test("the backdrop is drawn without the clip away from the corners")
    func clipParts() {
        let radii = CornerRadii(radius: 16, mask: .all, size: Size(width: 400, height: 300), curve: .circular)
        func command(_ t: Transform3D) -> DrawCommand {
            DrawCommand(kind: .backdrop, transform: t, bounds: Rect(x: 0, y: 0, width: 400, height: 300), cornerRadii: radii)
        }
        func area(_ boxes: [PixelBox]) -> Double { boxes.reduce(0) { $0 + $1.area } }
        func overlaps(_ boxes: [PixelBox]) -> Bool {
            boxes.indices.contains { i in boxes.indices.contains { j in i < j && boxes[i].intersects(boxes[j]) } }
        }

        let aligned = PixelBox(x0: 440, y0: 210, x1: 840, y1: 510)
        let parts = GLESRenderer.clipParts(command(.translation(x: 440, y: 210)), aligned)
        #expect(parts.cut == [PixelBox(x0: 440, y0: 210, x1: 457, y1: 227), PixelBox(x0: 823, y0: 210, x1: 840, y1: 227),
                              PixelBox(x0: 440, y0: 493, x1: 457, y1: 510), PixelBox(x0: 823, y0: 493, x1: 840, y1: 510)])
        #expect(!overlaps(parts.uncut + parts.cut))
        #expect(area(parts.uncut) + area(parts.cut) == aligned.area)

        // Half a pixel off: the edges are antialiased, so a ring stays clipped.
        let off = PixelBox(x0: 440, y0: 210, x1: 841, y1: 511)
        let ring = GLESRenderer.clipParts(command(.translation(x: 440.5, y: 210.5)), off)
        #expect(ring.uncut == [PixelBox(x0: 458, y0: 228, x1: 823, y1: 493)])
        #expect(ring.cut.count == 4 && !overlaps(ring.uncut + ring.cut))
        #expect(area(ring.uncut) + area(ring.cut) == off.area)

        let turned = GLESRenderer.clipParts(command(.rotation(angle: 0.1)), aligned)
        #expect(turned.uncut.isEmpty && turned.cut == [aligned])
    }

    /// A masked glass layer shows the filtered backdrop only where its mask does, and its
    /// opacity mixes it with what lies behind.
    @Test("mask and opacity apply to the filtered backdrop")
    func maskAndOpacity() throws {
        let back = SceneLayer(frame: Rect(x: 0, y: 0, width: 40, height: 20), color: .white)
        let mask = SceneLayer(frame: Rect(x: 0, y: 0, width: 10, height: 20), color: .white)
        let masked = SceneLayer(frame: Rect(x: 0, y: 0, width: 20, height: 20), mask: mask) {
            $0.backgroundFilters = [LayerFilter(name: "neg", type: .invert)]
        }
        let faded = SceneLayer(frame: Rect(x: 20, y: 0, width: 20, height: 20)) {
            $0.opacity = 0.25
            $0.backgroundFilters = [LayerFilter(name: "neg", type: .invert)]
        }
        let (image, _) = try Self.drawBothWays([[back, masked, faded]], width: 40, height: 20)
        #expect(Pixel(image, 5, 10).isClose(to: Pixel(0, 0, 0), tolerance: 1), "masked in: \(Pixel(image, 5, 10))")
        #expect(Pixel(image, 15, 10).isClose(to: Pixel(255, 255, 255), tolerance: 1), "masked out: \(Pixel(image, 15, 10))")
        #expect(Pixel(image, 30, 10).isClose(to: Pixel(191, 191, 191), tolerance: 2), "a quarter inverted: \(Pixel(image, 30, 10))")
    }

    /// The kept backdrop: drawn from the cache while nothing behind changes, even as the
    /// glass's own sublayer does; filtered again when something behind moves. Each frame has
    /// the pixels of a renderer that keeps nothing.
    @Test("the filtered backdrop is kept while nothing behind it changes")
    func cache() throws {
        func scene(behind x: Double, label: Color) -> [SceneLayer] {
            [SceneLayer(frame: Rect(x: x, y: 30, width: 30, height: 30), color: rgb(0, 200, 255)),
             SceneLayer(frame: Rect(x: 20, y: 20, width: 100, height: 60), color: rgb(255, 255, 255, 60),
                        sublayers: [SceneLayer(frame: Rect(x: 10, y: 10, width: 20, height: 10), color: label)]) {
                 $0.backgroundFilters = [.gaussianBlur("frost", radius: 10), .amount("s", .saturate, 1.5)]
             }]
        }
        let steps: [[SceneLayer]] = [scene(behind: 40, label: .red), scene(behind: 40, label: .green),
                                     scene(behind: 40, label: .blue), scene(behind: 55, label: .blue), scene(behind: 55, label: .red)]
        let tracked = try HeadlessDisplay(width: 160, height: 100, buffers: 2)
        let fresh = try HeadlessDisplay(width: 160, height: 100)
        fresh.damageTracking = false
        fresh.renderer.cachesBackdrops = false
        var counts: [(filtered: Int, cached: Int)] = []
        for (k, layers) in steps.enumerated() {
            let list = try drawList(layers, width: 160, height: 100, background: .black)
            try tracked.present(list)
            try fresh.present(list)
            counts.append((tracked.renderer.backdrops.filtered, tracked.renderer.backdrops.cached))
            let d = try tracked.screenshot().difference(from: try fresh.screenshot())
            #expect(d.worst <= 1, "step \(k): \(d.worst) apart (\(d.differing) pixels)")
        }
        #expect(counts.map(\.filtered) == [1, 1, 1, 2, 2], "\(counts)")
        #expect(counts.map(\.cached) == [0, 1, 2, 2, 3], "\(counts)")
        #expect(fresh.renderer.backdrops.filtered == steps.count && fresh.renderer.backdrops.cached == 0)
        #expect(tracked.renderer.cacheStatistics.contains { $0.name == "backdrop.cached" && $0.value == 3 })
    }

    /// A rectangle moving in and out from under the glass, one moving near it (within the
    /// blur's reach, never under it) and one far from it: each frame, damage-tracked into kept buffers, matches a
    /// full redraw, so the damage grew over the frosted area the change reaches.
    @Test("damage under and near the glass grows by the blur's reach", arguments: [1, 2])
    func damage(buffers: Int) throws {
        func scene(_ t: Double) -> [SceneLayer] {
            [SceneLayer(frame: Rect(x: 10 + t, y: 40, width: 30, height: 30), color: rgb(0, 200, 255)),
             SceneLayer(frame: Rect(x: 60 + t / 3, y: 2, width: 20, height: 12), color: rgb(255, 200, 0)),
             // Far from the glass: its damage is a pass of its own (`BackdropRegions.passes`).
             SceneLayer(frame: Rect(x: 2 + t / 20, y: 108, width: 6, height: 8), color: rgb(0, 255, 0)),
             SceneLayer(frame: Rect(x: 50, y: 30, width: 90, height: 60), color: rgb(255, 255, 255, 70)) {
                 $0.cornerRadius = 12
                 $0.backgroundFilters = [.gaussianBlur("frost", radius: 12)]
             }]
        }
        let tracked = try HeadlessDisplay(width: 200, height: 120, buffers: buffers)
        let whole = try HeadlessDisplay(width: 200, height: 120)
        whole.damageTracking = false
        var partial = 0
        for t in stride(from: 0.0, through: 120, by: 15) {
            let list = try drawList(scene(t), width: 200, height: 120, background: .black)
            try tracked.present(list)
            try whole.present(list)
            let d = try tracked.screenshot().difference(from: try whole.screenshot())
            #expect(d.worst <= 1, "t = \(t): \(d.worst) apart at (\(d.x), \(d.y)), \(d.differing) pixels")
            if tracked.damageStatistics.lastFraction < 1 { partial += 1 }
        }
        #expect(partial >= 4, "most frames drew part of the output: \(partial)")
    }

    @Test("bad background filters are refused naming the filter, and nothing else in the commit is applied",
          arguments: [
              ([LayerFilter.gaussianBlur("soft", radius: 500)], "backgroundFilters.soft.inputRadius must be from 0 to 64"),
              ([.colorMatrix("m", [1, 2, 3])], "backgroundFilters.m: colorMatrix takes inputMatrix of 20 numbers"),
              ([.amount("s", .saturate, .nan)], "backgroundFilters"),
              ((0..<9).map { LayerFilter.amount("f\($0)", .brightness, 0) }, "at most 8 filters"),
          ])
    func badFilters(filters: [LayerFilter], message: String) throws {
        var display = ModelTree(width: 32, height: 32, background: .black)
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "background filters"))
        let id = LayerID(rawValue: 1)
        var refused = ""
        do {
            _ = try display.apply([.create(id, kind: .layer), .insert(parent: .root, child: id, index: .max),
                                   .set(id, .backgroundColor, .color(.white)),
                                   .set(id, .backgroundFilters, .filters(filters))], from: client, limits: ClientLimits())
        } catch {
            refused = "\(error)"
        }
        #expect(refused.contains(message), "\(refused)")
        #expect(display.drawList().commands.isEmpty, "the commit was refused whole")
    }

    /// Backdrops past the area budget draw unfiltered, counted, and the rest still filter.
    @Test("backdrops past the area budget are skipped and counted")
    func budget() throws {
        let glass = (0..<3).map { _ in
            SceneLayer(frame: Rect(x: 0, y: 0, width: 40, height: 40)) { $0.backgroundFilters = [LayerFilter(name: "neg", type: .invert)] }
        }
        let back = SceneLayer(frame: Rect(x: 0, y: 0, width: 40, height: 40), color: .white)
        let display = try HeadlessDisplay(width: 40, height: 40)
        try display.present(try drawList([back] + glass, width: 40, height: 40, background: .black))
        // Two whole-output backdrops fit the budget of twice the output: inverted twice, white.
        #expect(display.renderer.backdrops.filtered == 2 && display.renderer.backdrops.skipped == 1)
        #expect(Pixel(try display.screenshot(), 20, 20).isClose(to: Pixel(255, 255, 255), tolerance: 1))
    }
}
