import LaminaCore

// A tiled layer's tiles in the walk (`CATiledLayer`): the level its on-screen scale needs, the
// tiles of that level in view, each drawn from the cache where held (fading in from its first
// frame), the nearest coarser held tile scaled under it while it is missing or fading; and what
// was seen and wanted, for the compositor to stamp and to ask the client for (TileViews).

extension RenderWalk {
    /// The most tiles one layer looks at in a frame: a level needing more (tiny tiles on a big
    /// display) gives way to the next coarser one.
    static let maximumTilesPerLayer = 1024

    mutating func appendTiles(_ id: LayerID, _ p: LayerProperties, opacity: Double, toDisplay: Transform3D,
                              into commands: inout [DrawCommand]) {
        tiledLayers += 1
        guard p.bounds.width > 0, p.bounds.height > 0 else { return }
        let grid = TileGrid(p)
        let visible = Self.visibleRect(of: p.bounds, toDisplay: toDisplay, viewport: viewport)
        guard visible.width > 0, visible.height > 0 else { return }
        var level = grid.level(forScale: Self.pixelScale(of: toDisplay) * displayScale)
        var found = grid.tiles(level: level, in: visible, limit: Self.maximumTilesPerLayer)
        while found == nil, level < grid.coarsestLevel {
            level += 1
            found = grid.tiles(level: level, in: visible, limit: Self.maximumTilesPerLayer)
        }
        guard let keys = found else { return }
        let held = tree.tiles.layers[id]?.entries ?? [:]
        let radii = p.masksToBounds && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: p.bounds.size, curve: p.cornerCurve) : .zero
        let clip: (rect: Rect, radii: CornerRadii)? = p.masksToBounds ? (p.bounds, radii) : nil
        var seen: [TileKey] = []
        func alpha(_ e: TileEntry) -> Double {
            guard p.tiled.tileFadeDuration > 0 else { return 1 }
            guard let start = e.firstShown else { return 0 }
            return Swift.min(1, Swift.max(0, (clockTime - start) / p.tiled.tileFadeDuration))
        }
        func draw(_ e: TileEntry, over key: TileKey, unit: Rect, alpha a: Double) {
            let r = grid.rect(of: key)
            let x0 = Swift.max(r.minX, p.bounds.minX), x1 = Swift.min(r.maxX, p.bounds.maxX)
            let y0 = Swift.max(r.minY, p.bounds.minY), y1 = Swift.min(r.maxY, p.bounds.maxY)
            guard x1 > x0, y1 > y0, a > 0 else { return }
            let source = Rect(x: unit.minX + (x0 - r.minX) / r.width * unit.width,
                              y: unit.minY + (y0 - r.minY) / r.height * unit.height,
                              width: (x1 - x0) / r.width * unit.width, height: (y1 - y0) / r.height * unit.height)
            let contents = DrawContents(source: e.source, destination: Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0),
                                        sourceRect: source, minificationFilter: p.minificationFilter,
                                        magnificationFilter: p.magnificationFilter, isOpaque: p.isOpaque && a >= 1, clip: clip)
            commands.append(DrawCommand(kind: .contents, transform: toDisplay, bounds: p.bounds, opacity: opacity * a,
                                        cornerRadii: radii, contents: contents))
        }
        let whole = Rect(x: 0, y: 0, width: 1, height: 1)
        for k in keys {
            let own = held[k]
            let a = own.map(alpha) ?? 0
            if own != nil, a < 1 { tileViewsFading = true }
            if a < 1 {
                // The nearest coarser tile held, scaled, while this one is on its way (one not
                // shown before fades in from now, as any new tile does).
                var l = k.level + 1
                while l <= grid.coarsestLevel {
                    let (parent, unit) = grid.ancestor(of: k, level: l)
                    if let e = held[parent] {
                        let pa = alpha(e)
                        if pa < 1 { tileViewsFading = true }
                        draw(e, over: k, unit: unit, alpha: pa)
                        seen.append(parent)
                        break
                    }
                    l += 1
                }
            }
            if let own {
                draw(own, over: k, unit: whole, alpha: a)
                seen.append(k)
            }
        }
        tileViews.append(TileViews.View(layer: id, seen: seen, wanted: keys, grid: grid))
    }

    /// The part of `bounds` (layer coordinates) that lands in `viewport` (display points): the
    /// box around the viewport's corners mapped back, for a layer placed by an affine transform;
    /// the whole bounds otherwise.
    static func visibleRect(of bounds: Rect, toDisplay t: Transform3D, viewport: Rect) -> Rect {
        // The plane z = 0 of the layer onto the display: x' = x·m11 + y·m21 + m41, y' likewise.
        guard t.m14 == 0, t.m24 == 0, t.m44 == 1 else { return bounds }
        let det = t.m11 * t.m22 - t.m12 * t.m21
        guard det != 0, det.isFinite else { return .zero }
        var pts: [Point] = []
        for c in viewport.corners {
            let dx = c.x - t.m41, dy = c.y - t.m42
            pts.append(Point(x: (dx * t.m22 - dy * t.m21) / det, y: (dy * t.m11 - dx * t.m12) / det))
        }
        guard let box = Rect(bounding: pts), box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite
        else { return bounds }
        let x0 = Swift.max(box.minX, bounds.minX), x1 = Swift.min(box.maxX, bounds.maxX)
        let y0 = Swift.max(box.minY, bounds.minY), y1 = Swift.min(box.maxY, bounds.maxY)
        guard x1 > x0, y1 > y0 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `viewport` narrowed to the box around `bounds` placed by `toDisplay` (a `masksToBounds`
    /// clip, for the tiled layers inside it); unchanged under a perspective.
    static func narrowed(_ viewport: Rect, to bounds: Rect, toDisplay t: Transform3D) -> Rect {
        guard t.m14 == 0, t.m24 == 0, t.m44 == 1 else { return viewport }
        let pts = bounds.corners.map { c in Point(x: c.x * t.m11 + c.y * t.m21 + t.m41, y: c.x * t.m12 + c.y * t.m22 + t.m42) }
        guard let box = Rect(bounding: pts) else { return viewport }
        let x0 = Swift.max(box.minX, viewport.minX), x1 = Swift.min(box.maxX, viewport.maxX)
        let y0 = Swift.max(box.minY, viewport.minY), y1 = Swift.min(box.maxY, viewport.maxY)
        guard x1 > x0, y1 > y0 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Display points per layer point: the longer of the transform's two axes (so neither is
    /// shown blurred).
    static func pixelScale(of t: Transform3D) -> Double {
        let sx = (t.m11 * t.m11 + t.m12 * t.m12).squareRoot(), sy = (t.m21 * t.m21 + t.m22 * t.m22).squareRoot()
        let s = Swift.max(sx, sy)
        return s.isFinite && s > 0 ? s : 1
    }
}
