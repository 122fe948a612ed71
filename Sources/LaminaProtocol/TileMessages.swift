import LaminaCore

/// laminad asks for tiles of a tiled layer (`CATiledLayer`, protocol 1.7; message 0x8F): the
/// tiles of one level that came into view at the scale they are shown and that laminad does not
/// hold. The client answers with supply-tile operations (opcode 18). A tile is asked for once
/// until it is supplied or leaves the view.
public struct TilesWanted: Hashable, Sendable {
    public struct Tile: Hashable, Sendable {
        public var column: UInt32
        public var row: UInt32
        /// The whole tile's rectangle in the layer's bounds coordinates (an edge tile may reach
        /// past the bounds: that part is not shown).
        public var rect: Rect
        public init(column: UInt32, row: UInt32, rect: Rect) {
            self.column = column; self.row = row; self.rect = rect
        }
    }
    /// The tiled layer.
    public var layer: LayerID
    /// The level of detail: 0 full resolution, 1 half, −1 twice, …
    public var level: Int32
    public var tiles: [Tile]

    /// The most tiles one message carries (laminad splits longer batches).
    public static let maximumTiles = 4096

    public init(layer: LayerID, level: Int32, tiles: [Tile]) {
        self.layer = layer; self.level = level; self.tiles = tiles
    }
}

extension ByteWriter {
    mutating func tilesWanted(_ m: TilesWanted) {
        u32(m.layer.rawValue)
        i32(m.level)
        u32(UInt32(m.tiles.count))
        for t in m.tiles {
            u32(t.column); u32(t.row)
            f64(t.rect.minX); f64(t.rect.minY); f64(t.rect.width); f64(t.rect.height)
        }
    }
}

extension ByteReader {
    mutating func tilesWanted() throws(DecodeError) -> TilesWanted {
        let layer = LayerID(try u32("tiles-wanted layer"))
        let level = try i32("tiles-wanted level")
        let count = Int(try u32("tiles-wanted count"))
        guard count <= TilesWanted.maximumTiles else {
            throw .invalid(field: "tiles-wanted count", reason: "at most \(TilesWanted.maximumTiles) tiles a message (got \(count))")
        }
        var tiles: [TilesWanted.Tile] = []
        tiles.reserveCapacity(count)
        for _ in 0..<count {
            let c = try u32("tile column"), r = try u32("tile row")
            let rect = Rect(x: try f64("tile x"), y: try f64("tile y"), width: try f64("tile width"), height: try f64("tile height"))
            tiles.append(TilesWanted.Tile(column: c, row: r, rect: rect))
        }
        return TilesWanted(layer: layer, level: level, tiles: tiles)
    }
}
