import LaminaCore
import LaminaRaster
import Testing

@Suite("Raster cache: redrawn only when the look or the scale changes")
struct RasterCacheTests {
    @Test func redrawsOnlyWhenStyleOrScaleChange() throws {
        let cache = RasterCache()
        let key = RasterCache.Key(tree: 1, layer: 7)
        var p = shapeLayer(Path(ellipseIn: Rect(0, 0, 50, 50))) { $0.strokeColor = .red; $0.lineWidth = 4 }
        let first = try #require(cache.raster(for: key, p, scale: 1))
        #expect(cache.rasterizations == 1)
        // Geometry that does not change the pixels (position, opacity) hits the cache.
        p.position = Point(300, 200)
        p.opacity = 0.5
        #expect(cache.raster(for: key, p, scale: 1) == first)
        #expect(cache.rasterizations == 1)
        // strokeEnd, colour and scale each redraw, with a new version.
        p.strokeEnd = 0.5
        let second = try #require(cache.raster(for: key, p, scale: 1))
        #expect(cache.rasterizations == 2 && second.version != first.version)
        _ = cache.raster(for: key, p, scale: 2)
        #expect(cache.rasterizations == 3)
        p.fillColor = .blue
        _ = cache.raster(for: key, p, scale: 2)
        #expect(cache.rasterizations == 4)
        // Another layer with the same look has an entry of its own.
        _ = cache.raster(for: RasterCache.Key(tree: 1, layer: 8), p, scale: 2)
        #expect(cache.rasterizations == 5 && cache.count == 2)
        // Layers not asked for in a frame are forgotten at its end.
        cache.endFrame()
        _ = cache.raster(for: key, p, scale: 2)
        #expect(cache.rasterizations == 5)
        cache.endFrame()
        #expect(cache.count == 1)
        cache.endFrame()
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test func textIsRedrawnForTextChangesNotForMoves() throws {
        let cache = RasterCache()
        let key = RasterCache.Key(tree: 0, layer: 1)
        var p = textLayer("Hello")
        _ = try #require(cache.raster(for: key, p, scale: 1))
        p.position = Point(10, 10)
        p.transform = .scale(x: 2, y: 2)
        _ = cache.raster(for: key, p, scale: cache.scale(for: p, screenScale: 2))
        #expect(cache.rasterizations == 1, "a text layer is drawn at contentsScale whatever its transform")
        for change in [{ (q: inout LayerProperties) in q.string = "Hello!" }, { $0.fontSize = 20 }, { $0.foregroundColor = .red },
                       { $0.bounds.size.width = 100 }, { $0.isWrapped = true }, { $0.alignmentMode = .center },
                       { $0.truncationMode = .end }, { $0.font = "DejaVu Serif" }] {
            let before = cache.rasterizations
            change(&p)
            _ = cache.raster(for: key, p, scale: cache.scale(for: p, screenScale: 1))
            #expect(cache.rasterizations == before + 1)
        }
        p.contentsScale = 2
        _ = cache.raster(for: key, p, scale: cache.scale(for: p, screenScale: 1))
        #expect(cache.rasterizations == 10)
        // Nothing to draw: nil, and asking again draws nothing again.
        p.string = ""
        #expect(cache.raster(for: key, p, scale: 2) == nil)
        #expect(cache.raster(for: key, p, scale: 2) == nil)
        #expect(cache.rasterizations == 11)
    }

    @Test func scalesFollowContentsScaleAndTheScreen() {
        let cache = RasterCache()
        var shape = LayerProperties(kind: .shape)
        #expect(cache.scale(for: shape, screenScale: 1) == 1)
        #expect(cache.scale(for: shape, screenScale: 3) == 3)
        #expect(cache.scale(for: shape, screenScale: 1.1) == 1.25, "rounded up to quarters")
        #expect(cache.scale(for: shape, screenScale: 0.3) == 1, "never below contentsScale")
        shape.contentsScale = 2
        #expect(cache.scale(for: shape, screenScale: 1) == 2)
        #expect(cache.scale(for: shape, screenScale: 100) == 16, "capped")
        var text = LayerProperties(kind: .text)
        #expect(cache.scale(for: text, screenScale: 4) == 1)
        text.contentsScale = 2
        #expect(cache.scale(for: text, screenScale: 1) == 2)
    }

    @Test func screenStretchOfTransforms() {
        let r = Rect(0, 0, 100, 100)
        #expect(Transform3D.identity.largestStretch(over: r) == 1)
        #expect(abs(Transform3D.scale(x: 3, y: 2).largestStretch(over: r) - 3) < 1e-12)
        #expect(abs(Transform3D.rotation(angle: 0.7).concatenating(.scale(x: 2, y: 2)).largestStretch(over: r) - 2) < 1e-12)
        // Tilted towards the viewer under perspective: the near edge is magnified.
        let tilted = Transform3D.rotation(angle: 0.5, x: 1, y: 0, z: 0).concatenating(.perspective(distance: 200))
        #expect(tilted.largestStretch(over: Rect(-50, -50, 100, 100)) > 1)
    }
}

/// Raster memory is a budget: in all and per client tree (16 text layers 10⁹ points wide held 1 GB).
@Suite("Raster budget")
struct RasterBudgetTests {
    func wideText(_ width: Double) -> LayerProperties {
        var p = LayerProperties(kind: .text)
        p.string = "wide"
        p.bounds = Rect(x: 0, y: 0, width: width, height: 100)
        return p
    }

    @Test func rastersOverTheBudgetAreNotKept() throws {
        let cache = RasterCache()
        cache.budgetBytes = 40_000
        cache.budgetBytesPerTree = 20_000
        var refusals: [RasterCache.Key] = []
        cache.onRefusal = { key, _ in refusals.append(key) }
        // 1e9 points wide: capped at 4096 pixels a side, so 4096 × 1 here, 16 KiB.
        let a = RasterCache.Key(tree: 1, layer: 1), b = RasterCache.Key(tree: 1, layer: 2), c = RasterCache.Key(tree: 2, layer: 1)
        let first = try #require(cache.raster(for: a, wideText(1e9), scale: 1)).image.bitmap.bytes.count
        #expect(first == 16384)
        #expect(cache.raster(for: b, wideText(1e9), scale: 1) == nil ? true : false, "tree 1's second raster is over its share")
        #expect(refusals == [b])
        #expect(cache.heldBytes(tree: 1) == first)
        // Asked again with the same style: still nothing, and not drawn again.
        let drawn = cache.rasterizations
        #expect(cache.raster(for: b, wideText(1e9), scale: 1) == nil ? true : false)
        #expect(cache.rasterizations == drawn)
        #expect(cache.raster(for: c, wideText(1e9), scale: 1) != nil ? true : false, "another tree has its own share")
        #expect(cache.heldBytes <= cache.budgetBytes)
        // Layers not drawn in a frame give their bytes back.
        cache.endFrame()
        _ = cache.raster(for: c, wideText(1e9), scale: 1)
        cache.endFrame()
        #expect(cache.heldBytes(tree: 1) == 0)
        #expect(cache.heldBytes == cache.heldBytes(tree: 2))
    }
}
