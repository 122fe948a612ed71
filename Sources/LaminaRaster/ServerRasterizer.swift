import LaminaCore
import LaminaProtocol
import LaminaCompositor

/// The compositor's `LayerRasterizing`: shape and text layers and drawings (`drawing`) drawn with cairo and pango
/// (`RasterCache`), handed to the renderer as server-owned `ImageSource`s through the contents
/// pipeline (`ImageStore`). A layer keeps one source while its raster keeps its size; a redraw
/// of the same size is a new generation of it (the renderer re-uploads), another size a new
/// source. Sources of layers no longer drawn are removed at the end of the frame, and the
/// renderer frees their textures.
public final class ServerRasterizer: LayerRasterizing {
    public let cache = RasterCache()
    public let store = ImageStore()
    /// The raster version each layer's source holds.
    private var uploaded: [RasterCache.Key: UInt64] = [:]

    /// Trees whose refusal was reported.
    private var refusedTrees: Set<Int> = []
    /// Told once per client tree when a raster is over the budget (laminad logs it).
    public var warn: (String) -> Void = { _ in }

    public init() {
        cache.onRefusal = { [unowned self] key, bytes in
            guard refusedTrees.insert(key.tree).inserted else { return }
            warn("a \(bytes)-byte raster of layer \(key.layer) (client tree \(key.tree)) is over the raster budget (\(cache.budgetBytes) bytes in all, \(cache.budgetBytesPerTree) per client): that layer draws nothing until it changes")
        }
    }

    public var statistics: [Statistic] {
        [Statistic(name: "rasterBytes", value: Double(cache.heldBytes)),
         Statistic(name: "budget.rasterBytes", value: Double(cache.budgetBytes)),
         Statistic(name: "budget.rasterBytesPerClient", value: Double(cache.budgetBytesPerTree)),
         Statistic(name: "rastersRefusedForBudget", value: Double(cache.refusedForBudget)),
         // Shape, text and drawing rasters drawn (cache misses) since laminad started.
         Statistic(name: "rasterizations", value: Double(cache.rasterizations))]
    }

    public func contents(tree: EntrySerial, layer: LayerID, _ p: LayerProperties, toDisplay: Transform3D,
                         images: [UInt32: ImageSource] = [:]) -> DrawContents? {
        let key = RasterCache.Key(tree: Int(tree.rawValue), layer: layer.rawValue)
        // Shapes are sized by their drawn extent, which is not known before drawing: measure
        // the magnification over the bounds (the path normally lies in them).
        // Drawings likewise, so one under a scale transform stays sharp.
        let drawn = p.kind == .shape || (p.kind != .text && !p.drawing.isEmpty)
        let stretch = drawn ? toDisplay.largestStretch(over: p.bounds) : 1
        guard let raster = cache.raster(for: key, p, scale: cache.scale(for: p, screenScale: stretch), images: images) else {
            if uploaded.removeValue(forKey: key) != nil { store.remove(key) }
            return nil
        }
        let source = source(for: key, raster)
        // Texel for pixel at rest; linear filtering for whatever transform the layer has.
        return DrawContents(source: source, destination: raster.image.frame)
    }

    public func vectorContents(tree: EntrySerial, layer: LayerID, document: any VectorDocument,
                               pixelsPerPoint: Double) -> (source: ImageSource, pixelsPerPoint: Double)? {
        let key = RasterCache.Key(tree: Int(tree.rawValue), layer: layer.rawValue)
        guard let raster = cache.raster(for: key, vector: document, scale: pixelsPerPoint) else {
            if uploaded.removeValue(forKey: key) != nil { store.remove(key) }
            return nil
        }
        return (source(for: key, raster), raster.image.scale)
    }

    /// The store's source for `key` holding `raster`: the same one while the version holds.
    private func source(for key: RasterCache.Key, _ raster: CachedRaster) -> ImageSource {
        if uploaded[key] == raster.version, let s = store[key] { return s }
        uploaded[key] = raster.version
        return store.register(key, bitmap: raster.image.bitmap)
    }

    public func keep(tree: EntrySerial, layers: [LayerID]) {
        for layer in layers { cache.touch(RasterCache.Key(tree: Int(tree.rawValue), layer: layer.rawValue)) }
    }

    public func endFrame() {
        cache.endFrame()
        guard uploaded.count > cache.count else { return }
        for key in uploaded.keys where !cache.contains(key) {
            store.remove(key)
            uploaded.removeValue(forKey: key)
        }
    }
}
