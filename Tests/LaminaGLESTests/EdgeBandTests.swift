import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// The edge-band split (flat cells with the plain fill, the distance-field shader only along
/// the edges and in the corners) must draw what the shader alone draws over the whole quad.
@Suite("Edge bands")
struct EdgeBandTests {
    /// Rounded, bordered, translucent layers at fractional positions under rotation and
    /// non-uniform scale, some with a clip, drawn both ways.
    @Test("the split draws the same pixels as the shader over the whole layer (circular and continuous corners)",
          arguments: [false, true])
    func sameAsWholeQuad(continuous: Bool) throws {
        let list = try Self.randomLayers(continuous: continuous)
        let backend = try HeadlessDisplay(width: 400, height: 300)
        // The same list is drawn twice: damage tracking would find nothing to draw the second time.
        backend.damageTracking = false
        try backend.present(list)
        let split = try backend.screenshot()
        backend.renderer.usesEdgeBands = false
        try backend.present(list)
        let whole = try backend.screenshot()
        let d = split.difference(from: whole), (worst, differing) = (d.worst, d.differing)
        // Flat cells lie a pixel or more inside every edge, where the shader's coverage is
        // exactly 0 or 1; only float rounding of the colour may differ.
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
    }

    /// The batch (one instanced draw for consecutive layers outside clips) against a draw per
    /// layer, on the same random layers; and the batch is really used.
    @Test("batched layers draw the same pixels as one draw per layer (circular and continuous corners)",
          arguments: [false, true])
    func batchSameAsSeparate(continuous: Bool) throws {
        let list = try Self.randomLayers(continuous: continuous)
        let backend = try HeadlessDisplay(width: 400, height: 300)
        backend.damageTracking = false
        let before = backend.renderer.batchDraws
        try backend.present(list)
        let batched = try backend.screenshot()
        #expect(backend.renderer.batchDraws > before, "the layers went through the batch")
        backend.renderer.usesBatching = false
        let unbatched = backend.renderer.batchDraws
        try backend.present(list)
        let separate = try backend.screenshot()
        #expect(backend.renderer.batchDraws == unbatched)
        let d = batched.difference(from: separate), (worst, differing) = (d.worst, d.differing)
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
        #expect(Set(batched.bytes.chunked(4)).count > 100, "a scene with many colours")
    }

    /// Layers the cheaper distance field takes (similarity transforms, every radius at least the
    /// border width, or no border) draw what one `shape` draw per layer draws.
    @Test("the similarity program draws the same pixels as the general one")
    func similarBatchSameAsSeparate() throws {
        var seed: UInt64 = 777
        func next(_ range: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * range
        }
        var layers: [SceneLayer] = []
        for i in 0..<40 {
            let w = 20 + next(80), h = 20 + next(60)
            layers.append(SceneLayer(frame: Rect(next(300), next(200), w, h), color: rgb(40 + i * 5, 90, 255 - i * 4, 150 + i * 2)) {
                $0.cornerRadius = [3.5, 12, 9.25, 0.7][i % 4]
                if i % 4 != 3 {
                    $0.borderWidth = [1, 2.5, 3][i % 3]
                    $0.borderColor = rgb(255, 220 - i * 3, 60, 180 + i)
                }
                $0.opacity = 0.85
                if i % 3 == 0 { $0.transform = .rotation(angle: next(3)) }
                if i % 5 == 1 { $0.transform = .scale(x: 1.35, y: 1.35) }
                if i % 7 == 2 { $0.transform = .scale(x: -0.8, y: 0.8) }
            })
        }
        let list = try drawList(layers, width: 400, height: 300, background: rgb(10, 10, 20))
        let backend = try HeadlessDisplay(width: 400, height: 300)
        backend.damageTracking = false
        let before = backend.renderer.similarBatchDraws
        try backend.present(list)
        let batched = try backend.screenshot()
        #expect(backend.renderer.similarBatchDraws > before, "the similarity program drew the batch")
        backend.renderer.usesBatching = false
        try backend.present(list)
        let separate = try backend.screenshot()
        let d = batched.difference(from: separate), (worst, differing) = (d.worst, d.differing)
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
    }

    /// The peer benchmark's layout: translucent bordered rounded layers 2 px apart in a row, rows
    /// overlapping by 9 px, at fractional x. Neighbours in a row share conflict tiles without
    /// touching, so only a row overlapping the one before must wait for the batch to be drawn.
    @Test("neighbours a few pixels apart stay in one batch; overlapping rows keep painter's order")
    func gridBatchesByRow() throws {
        var layers: [SceneLayer] = []
        for i in 0..<30 {
            let col = Double(i % 6), row = Double(i / 6)
            layers.append(SceneLayer(frame: Rect(col * 62 + 0.37 * row, row * 51, 60, 60), color: rgb(40 + i * 6, 200 - i * 5, 90, 255)) {
                $0.cornerRadius = 12
                $0.borderWidth = 2
                $0.borderColor = rgb(255, 255, 255, 255)
                $0.opacity = 0.85
            })
        }
        let list = try drawList(layers, width: 400, height: 300, background: rgb(0, 0, 0))
        let backend = try HeadlessDisplay(width: 400, height: 300)
        backend.damageTracking = false
        let before = backend.renderer.batchDraws
        try backend.present(list)
        let batched = try backend.screenshot()
        #expect(backend.renderer.batchDraws - before <= 5, "one batch per row")
        backend.renderer.usesBatching = false
        try backend.present(list)
        let separate = try backend.screenshot()
        let d = batched.difference(from: separate), (worst, differing) = (d.worst, d.differing)
        #expect(worst <= 1, "largest channel difference \(worst) (\(differing) pixels differ)")
    }

    @Test("similarity scale: similarity transforms with radii at least the border width only")
    func similarityScale() {
        let radii = CornerRadii(minXMinY: 4, maxXMinY: 4, maxXMaxY: 4, minXMaxY: 4)
        #expect(ShapeBatch.similarityScale(.identity, radii: radii, borderWidth: 2) == 1)
        #expect(abs(ShapeBatch.similarityScale(.rotation(angle: 0.7).concatenating(.scale(x: 2, y: 2)), radii: radii, borderWidth: 2) - 2) < 1e-6)
        #expect(ShapeBatch.similarityScale(.scale(x: 2, y: 1), radii: radii, borderWidth: 2) == 0)
        #expect(ShapeBatch.similarityScale(.identity, radii: radii, borderWidth: 5) == 0)
        #expect(ShapeBatch.similarityScale(.identity, radii: .zero, borderWidth: 0) == 1)
    }

    /// Rounded, bordered, translucent layers at fractional positions under rotation and
    /// non-uniform scale, some with a clip.
    /// With `continuous`, every other rounded layer has continuous corners (their corner
    /// squares reach 1.53 radii).
    static func randomLayers(continuous: Bool = false) throws -> DrawList {
        var seed: UInt64 = 12345
        func next(_ range: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * range
        }
        var layers: [SceneLayer] = []
        for i in 0..<40 {
            let w = 8 + next(90), h = 8 + next(70)
            let frame = Rect(next(300), next(200), w, h)
            let sub = i % 7 == 0
                ? [SceneLayer(frame: Rect(-5.3, 4.7, w * 0.8, h * 1.2), color: rgb(30, 200, 90, 200))] : []
            layers.append(SceneLayer(frame: frame, color: i % 5 == 4 ? .clear : rgb(40 + i * 5, 90, 255 - i * 4, 150 + i * 2),
                                     sublayers: sub) {
                $0.cornerRadius = [0, 3.5, 12, 40, 0.7][i % 5]
                if i % 4 == 1 { $0.maskedCorners = [.minXMinY, .maxXMaxY] }
                if i % 3 != 0 {
                    $0.borderWidth = [1, 2.5, 7, 30][i % 4]
                    $0.borderColor = rgb(255, 220 - i * 3, 60, 180 + i)
                }
                if i % 2 == 0 { $0.transform = .rotation(angle: next(3)) }
                if i % 6 == 3 { $0.transform = .scale(x: 1.7, y: 0.45) }
                $0.masksToBounds = sub.isEmpty ? false : true
                if continuous, i % 2 == 1 { $0.cornerCurve = .continuous }
            })
        }
        return try drawList(layers, width: 400, height: 300, background: rgb(10, 10, 20))
    }

    @Test("cells cover the padded bounds exactly once, merged or not; merging leaves far fewer", arguments: [false, true])
    func cellsTile(merge: Bool) {
        var bands = EdgeBands()
        let b = Rect(10.3, 20.6, 100, 60)
        let radii = CornerRadii(minXMinY: 12, maxXMinY: 0, maxXMaxY: 30, minXMaxY: 4)
        bands.split(b, radii: radii, borderWidth: 5, margin: 1, pad: 1, merge: merge)
        var fine = EdgeBands()
        fine.split(b, radii: radii, borderWidth: 5, margin: 1, pad: 1)
        let counts = (bands.shaded.count + bands.fill.count + bands.border.count, fine.shaded.count + fine.fill.count + fine.border.count)
        if merge { #expect(counts.0 * 2 < counts.1, "merged \(counts.0) cells, unmerged \(counts.1)") }
        // The same area of each kind either way.
        func area(_ r: [Rect]) -> Double { r.reduce(0) { $0 + $1.width * $1.height } }
        #expect(abs(area(bands.shaded) - area(fine.shaded)) < 1e-6 && abs(area(bands.fill) - area(fine.fill)) < 1e-6)
        let cells = bands.shaded + bands.fill + bands.border
        let area = cells.reduce(0) { $0 + $1.width * $1.height }
        #expect(abs(area - 102 * 62) < 1e-6)
        for (i, p) in cells.enumerated() {
            for q in cells[(i + 1)...] {
                let overlap = max(0, min(p.maxX, q.maxX) - max(p.minX, q.minX)) * max(0, min(p.maxY, q.maxY) - max(p.minY, q.minY))
                #expect(overlap < 1e-9, "\(p) overlaps \(q)")
            }
        }
        // Most of the area is flat: the shader runs on the bands and corners only.
        let shaded = bands.shaded.reduce(0) { $0 + $1.width * $1.height }
        #expect(shaded < 0.4 * area, "shaded \(shaded) of \(area)")
        #expect(!bands.fill.isEmpty && !bands.border.isEmpty)
    }
}

extension EdgeBandTests {
    /// Strips: the corner squares grow along the shorter sides, and a bordered rounded layer
    /// becomes two bands, two side strips and one flat middle; the cells still cover the padded
    /// bounds once, and every flat cell lies where the square split has flat cells too.
    @Test("strips along the shorter sides: 5 cells, the padded bounds covered once, flat only where flat", arguments: [true, false])
    func strips(wide: Bool) {
        let b = wide ? Rect(10.3, 20.6, 120, 80) : Rect(10.3, 20.6, 80, 120)
        let radii = CornerRadii(minXMinY: 12, maxXMinY: 12, maxXMaxY: 12, minXMaxY: 12)
        var bands = EdgeBands()
        bands.split(b, radii: radii, borderWidth: 2, margin: 1, pad: 1, merge: true, strips: true)
        #expect(bands.shaded.count == 4 && bands.fill.count == 1 && bands.border.isEmpty,
                "\(bands.shaded.count) shaded, \(bands.fill.count) fill, \(bands.border.count) border cells")
        let cells = bands.shaded + bands.fill + bands.border
        let area = cells.reduce(0) { $0 + $1.width * $1.height }
        #expect(abs(area - (b.width + 2) * (b.height + 2)) < 1e-6)
        for (i, p) in cells.enumerated() {
            for q in cells[(i + 1)...] {
                let overlap = max(0, min(p.maxX, q.maxX) - max(p.minX, q.minX)) * max(0, min(p.maxY, q.maxY) - max(p.minY, q.minY))
                #expect(overlap < 1e-9, "\(p) overlaps \(q)")
            }
        }
        var squares = EdgeBands()
        squares.split(b, radii: radii, borderWidth: 2, margin: 1, pad: 1, merge: true)
        for f in bands.fill {
            let covered = squares.fill.reduce(0) { sum, q in
                sum + max(0, min(f.maxX, q.maxX) - max(f.minX, q.minX)) * max(0, min(f.maxY, q.maxY) - max(f.minY, q.minY))
            }
            #expect(abs(covered - f.width * f.height) < 1e-6, "\(f) is not all flat in the square split")
        }
        // The strips run along the shorter sides.
        let middle = bands.fill[0]
        if wide { #expect(middle.minY < b.minY + 12 && middle.minX >= b.minX + 12) } else { #expect(middle.minX < b.minX + 12 && middle.minY >= b.minY + 12) }
    }
}

extension Array {
    /// The array cut into pieces of `n` (the last may be shorter).
    func chunked(_ n: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: n).map { self[$0..<Swift.min($0 + n, count)] }
    }
}
