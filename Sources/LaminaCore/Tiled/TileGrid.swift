/// One tile of a tiled layer: its level of detail (0 full resolution, 1 half, −1 twice, …) and
/// its column and row in that level's grid, counted from the bounds' top-left corner.
public struct TileKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var level: Int
    public var column: Int
    public var row: Int
    public init(level: Int, column: Int, row: Int) {
        self.level = level; self.column = column; self.row = row
    }
    public static func < (a: TileKey, b: TileKey) -> Bool {
        (a.level, a.row, a.column) < (b.level, b.row, b.column)
    }
    public var description: String { "level \(level) tile (\(column), \(row))" }
}

/// `CATiledLayer`'s tiling of a layer's bounds, shared by laminad (which tiles to ask for and
/// draw) and the client libraries (where a tile goes). Level L holds the picture at
/// `contentsScale × 2⁻ᴸ` image pixels per point: level 0 at full resolution, each later level
/// half the one before, the `levelsOfDetailBias` magnified levels −1, −2, … twice, four times.
/// Every tile is `tileSize` pixels, so at level L it covers `tileSize / (contentsScale × 2⁻ᴸ)`
/// points; the grid starts at the bounds' origin, and an edge tile's part beyond the bounds
/// is not shown.
public struct TileGrid: Sendable, Equatable {
    public let bounds: Rect
    public let tileSize: Size
    public let contentsScale: Double
    /// The finest level (−levelsOfDetailBias) and the coarsest (levelsOfDetail − 1, less where
    /// the picture would be under a pixel there).
    public let finestLevel: Int
    public let coarsestLevel: Int

    public init(_ p: LayerProperties) {
        let t = p.tiled
        bounds = p.bounds
        tileSize = Size(width: Swift.max(t.tileSize.width, 1), height: Swift.max(t.tileSize.height, 1))
        contentsScale = p.contentsScale > 0 && p.contentsScale.isFinite ? p.contentsScale : 1
        finestLevel = -Swift.min(Swift.max(t.levelsOfDetailBias, 0), TiledProperties.maximumLevels)
        var coarsest = Swift.min(Swift.max(t.levelsOfDetail, 1), TiledProperties.maximumLevels) - 1
        // Core Animation's clamp: the coarsest level keeps at least one pixel each way.
        let side = Swift.min(p.bounds.width, p.bounds.height) * contentsScale
        while coarsest > 0, side * Self.power(-coarsest) < 1 { coarsest -= 1 }
        coarsestLevel = coarsest
    }

    /// 2ⁿ for the small whole numbers levels use.
    @inlinable static func power(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<Swift.abs(n) { r *= 2 }
        return n < 0 ? 1 / r : r
    }

    /// Whether `level` is one of the layer's levels.
    public func contains(level: Int) -> Bool { level >= finestLevel && level <= coarsestLevel }

    /// Image pixels per point at `level`.
    public func pixelScale(level: Int) -> Double { contentsScale * Self.power(-level) }

    /// A tile's size in points at `level`.
    public func tilePoints(level: Int) -> Size {
        let s = pixelScale(level: level)
        return Size(width: tileSize.width / s, height: tileSize.height / s)
    }

    /// Columns and rows at `level` (0 for empty bounds), at most `Int32.max` each.
    public func counts(level: Int) -> (columns: Int, rows: Int) {
        let t = tilePoints(level: level)
        func n(_ length: Double, _ side: Double) -> Int {
            guard length > 0, side > 0 else { return 0 }
            return Int(Swift.min((length / side).rounded(.up), Double(Int32.max)))
        }
        return (n(bounds.width, t.width), n(bounds.height, t.height))
    }

    /// Whether `key` names a tile of this grid.
    public func contains(_ key: TileKey) -> Bool {
        guard contains(level: key.level) else { return false }
        let c = counts(level: key.level)
        return key.column >= 0 && key.row >= 0 && key.column < c.columns && key.row < c.rows
    }

    /// The whole tile's rectangle in the layer's bounds coordinates (it may reach past the
    /// bounds at the right and bottom edges).
    public func rect(of key: TileKey) -> Rect {
        let t = tilePoints(level: key.level)
        return Rect(x: bounds.minX + Double(key.column) * t.width, y: bounds.minY + Double(key.row) * t.height,
                    width: t.width, height: t.height)
    }

    /// The level to show at `scale` display pixels per point: the coarsest whose resolution is
    /// at least that (so tiles are never magnified where a finer level exists), within the
    /// layer's levels.
    public func level(forScale scale: Double) -> Int {
        guard scale > 0, scale.isFinite else { return coarsestLevel }
        // 2⁻ᴸ · contentsScale ≥ scale ⇔ L ≤ log2(contentsScale / scale); a hair of slack keeps
        // exact powers of two on their level.
        let ideal = (log2(contentsScale / scale) + 1e-9).rounded(.down)
        guard ideal.isFinite else { return ideal > 0 ? coarsestLevel : finestLevel }
        let l = Int(Swift.min(Swift.max(ideal, Double(finestLevel)), Double(coarsestLevel)))
        return l
    }

    /// The tiles of `level` that meet `visible` (a rectangle in the bounds coordinates), row by
    /// row; nil when there would be more than `limit`.
    public func tiles(level: Int, in visible: Rect, limit: Int) -> [TileKey]? {
        let t = tilePoints(level: level)
        let c = counts(level: level)
        let x0 = Swift.max(visible.minX, bounds.minX), x1 = Swift.min(visible.maxX, bounds.maxX)
        let y0 = Swift.max(visible.minY, bounds.minY), y1 = Swift.min(visible.maxY, bounds.maxY)
        guard c.columns > 0, c.rows > 0, x1 > x0, y1 > y0 else { return [] }
        let r = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        func range(_ lo: Double, _ hi: Double, _ origin: Double, _ side: Double, _ n: Int) -> ClosedRange<Int>? {
            let a = Swift.max(0, ((lo - origin) / side).rounded(.down))
            let b = Swift.min(Double(n - 1), ((hi - origin) / side).rounded(.up) - 1)
            guard a.isFinite, b.isFinite, a <= b else { return nil }
            return Int(a)...Int(b)
        }
        guard let cols = range(r.minX, r.maxX, bounds.minX, t.width, c.columns),
              let rows = range(r.minY, r.maxY, bounds.minY, t.height, c.rows) else { return [] }
        guard cols.count <= limit, rows.count <= limit, cols.count * rows.count <= limit else { return nil }
        var keys: [TileKey] = []
        keys.reserveCapacity(cols.count * rows.count)
        for row in rows { for col in cols { keys.append(TileKey(level: level, column: col, row: row)) } }
        return keys
    }

    /// The tile of `level` (coarser than `key`'s) that holds `key`'s top-left corner, and the
    /// part of it `key` covers in its unit coordinates: what is shown, scaled, while `key` is
    /// on its way.
    public func ancestor(of key: TileKey, level: Int) -> (key: TileKey, unitRect: Rect) {
        let k = Self.power(level - key.level)
        let col = Double(key.column) / k, row = Double(key.row) / k
        let parent = TileKey(level: level, column: Int(col.rounded(.down)), row: Int(row.rounded(.down)))
        return (parent, Rect(x: col - Double(parent.column), y: row - Double(parent.row), width: 1 / k, height: 1 / k))
    }
}

@inline(__always) private func log2(_ x: Double) -> Double { _log(x) / 0.6931471805599453 }
