import LaminaCore
import LaminaCompositor

/// A rasterised layer as the cache hands it out. `version` is new whenever the pixels are: a
/// texture made from an earlier version is stale.
public struct CachedRaster: Sendable, Equatable {
    public var image: RasterImage
    /// Unique among every raster this cache has made.
    public var version: UInt64
}

/// The shape and text layers of a display rasterised once and kept while they look the same.
///
/// An entry is keyed by the layer and remembers what it was drawn from: the shape or text style
/// and the scale. A frame asks for each shape or text layer it draws; the image is redrawn only
/// when the style or the scale changed (an animating `strokeEnd` therefore redraws every frame,
/// a moving layer never). Entries of layers not drawn since the last `endFrame` are dropped then.
public final class RasterCache {
    /// A layer: the server's number for its client tree and the layer's number in it.
    public struct Key: Hashable, Sendable {
        public var tree: Int
        public var layer: UInt32
        public init(tree: Int, layer: UInt32) {
            self.tree = tree
            self.layer = layer
        }
    }

    private enum Style: Hashable {
        case shape(ShapeStyle)
        case text(TextStyle)
        case drawing(DrawingStyle)
        case vector(VectorStyle)
    }

    /// An SVG image a layer shows: the same document object is the same picture.
    private struct VectorStyle: Hashable {
        let document: any VectorDocument
        static func == (a: VectorStyle, b: VectorStyle) -> Bool { a.document === b.document }
        func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(document)) }
    }

    private struct Entry {
        var style: Style
        var scale: Double
        var raster: CachedRaster?
        var frame: UInt64
        var bytes: Int { raster?.image.bitmap.bytes.count ?? 0 }
    }

    /// Raster pixels all layers may hold, and one client tree (16 text layers 10⁹ points wide
    /// held 1 GB): a raster past either is not kept and its layer draws nothing until its
    /// style changes (counted in `refusedForBudget`, reported once per tree by `onRefusal`).
    public var budgetBytes = 256 << 20
    public var budgetBytesPerTree = 128 << 20
    public private(set) var heldBytes = 0
    private var heldByTree: [Int: Int] = [:]
    public private(set) var refusedForBudget = 0
    public var onRefusal: (Key, Int) -> Void = { _, _ in }

    private var entries: [Key: Entry] = [:]
    private var frame: UInt64 = 0
    /// Entries asked for in the current frame (each counted once).
    private var usedThisFrame = 0
    private var nextVersion: UInt64 = 1

    /// How many images have been drawn (cache misses), for tests and benchmarks.
    public private(set) var rasterizations = 0
    /// The output's pixels per point (1 on the displays Lamina drives today).
    public var displayScale: Double = 1

    public init() {}

    /// The number of layers with an entry.
    public var count: Int { entries.count }

    /// Whether `key` has an entry (drawn in this frame or the last).
    public func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The bytes of pixels the cache holds.
    public var byteCount: Int { heldBytes }

    /// The pixels per point a layer is drawn at.
    ///
    /// Text, as `CATextLayer`, at `contentsScale` times the display's scale: a text layer
    /// magnified by its transform shows its pixels larger. Shapes and drawings at the layer's scale on screen
    /// (`screenScale`, from its transform), and at least `contentsScale`, so they stay sharp
    /// when magnified. Scales are rounded up to quarters, so a layer scaled by an animation is
    /// redrawn at a few steps rather than every frame, and capped at 16.
    public func scale(for p: LayerProperties, screenScale: Double) -> Double {
        let contents = p.contentsScale.isFinite && p.contentsScale > 0 ? p.contentsScale : 1
        let raw = p.kind == .text ? contents * displayScale
            : Swift.max(contents * displayScale, screenScale.isFinite ? screenScale : 1)
        return Swift.min(Swift.max((raw * 4).rounded(.up) / 4, 0.25), 16)
    }

    /// The image of the shape or text layer `key` with properties `p` at `scale`, drawn now if
    /// the cached one was drawn from other values; nil when the layer draws nothing (or is not
    /// a shape or text layer).
    public func raster(for key: Key, _ p: LayerProperties, scale: Double, images: [UInt32: ImageSource] = [:]) -> CachedRaster? {
        let style: Style
        switch p.kind {
        case .shape: style = .shape(ShapeStyle(p))
        case .text: style = .text(TextStyle(p))
        default:
            guard !p.drawing.isEmpty else { return nil }
            style = .drawing(DrawingStyle(p, images: images))
        }
        return raster(for: key, style, scale: scale, images: images)
    }

    /// The SVG image `document` that layer `key` shows, drawn at `scale` pixels per point (or
    /// less, where `rasterMaximumSide` lowers it), kept under the same budgets as the others.
    public func raster(for key: Key, vector document: any VectorDocument, scale: Double) -> CachedRaster? {
        raster(for: key, .vector(VectorStyle(document: document)), scale: scale, images: [:])
    }

    private func raster(for key: Key, _ style: Style, scale: Double, images: [UInt32: ImageSource]) -> CachedRaster? {
        let previous = entries[key]
        if previous?.frame != frame { usedThisFrame += 1 }
        if var e = previous, e.style == style, e.scale == scale {
            if e.frame != frame {
                e.frame = frame
                entries[key] = e
            }
            return e.raster
        }
        let image: RasterImage? = switch style {
        case .shape(let s): ShapeRasterizer.rasterize(s, scale: scale)
        case .text(let t): TextRasterizer.rasterize(t, scale: scale)
        case .drawing(let d): DrawingRasterizer.rasterize(d, scale: scale, images: images)
        case .vector(let v): v.document.rasterize(pixelsPerPoint: scale, maximumSide: rasterMaximumSide).map {
            RasterImage(bitmap: $0.bitmap, frame: Rect(x: 0, y: 0, width: Double($0.bitmap.width) / $0.pixelsPerPoint,
                                                       height: Double($0.bitmap.height) / $0.pixelsPerPoint), scale: $0.pixelsPerPoint)
        }
        }
        rasterizations += 1
        var raster = image.map { CachedRaster(image: $0, version: nextVersion) }
        if raster != nil { nextVersion += 1 }
        let oldBytes = previous?.bytes ?? 0
        let newBytes = raster?.image.bitmap.bytes.count ?? 0
        let tree = heldByTree[key.tree, default: 0] - oldBytes
        if newBytes > 0, heldBytes - oldBytes + newBytes > budgetBytes || tree + newBytes > budgetBytesPerTree {
            raster = nil
            refusedForBudget += 1
            onRefusal(key, newBytes)
        }
        let kept = raster?.image.bitmap.bytes.count ?? 0
        heldBytes += kept - oldBytes
        heldByTree[key.tree] = tree + kept
        entries[key] = Entry(style: style, scale: scale, raster: raster, frame: frame)
        return raster
    }

    /// Raster bytes held for one client tree.
    public func heldBytes(tree: Int) -> Int { heldByTree[tree] ?? 0 }

    /// Marks `key`'s raster as shown this frame without asking for it again (its layer was
    /// drawn from commands kept by the render-list cache).
    public func touch(_ key: Key) {
        guard let i = entries.index(forKey: key), entries.values[i].frame != frame else { return }
        entries.values[i].frame = frame
        usedThisFrame += 1
    }

    /// Ends a frame: forgets the layers that were not asked for since the last call.
    public func endFrame() {
        let current = frame
        if usedThisFrame < entries.count {
            for (key, e) in entries where e.frame != current {
                heldBytes -= e.bytes
                heldByTree[key.tree, default: 0] -= e.bytes
                if heldByTree[key.tree] == 0 { heldByTree[key.tree] = nil }
            }
            entries = entries.filter { $0.value.frame == current }
        }
        usedThisFrame = 0
        frame += 1
    }
}
