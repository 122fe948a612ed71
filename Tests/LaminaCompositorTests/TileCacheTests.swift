import Testing
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Tiled layers' tiles in a client's tree: supply-tile's checks, the cache's budget (least
/// recently seen out first), and asking for a tile once until it is supplied or leaves the view.
@Suite struct TileCacheTests {
    let tiled = LayerID(1)

    func tree(tile: Double = 4) throws -> ClientTree {
        var t = ClientTree(displayWidth: 100, displayHeight: 100)
        try t.apply([.create(tiled, kind: .tiled), .insert(parent: .root, child: tiled, index: 0),
                     .set(tiled, .bounds, .rect(Rect(x: 0, y: 0, width: 64, height: 64))),
                     .set(tiled, .tileSize, .size(Size(width: tile, height: tile))),
                     .set(tiled, .levelsOfDetail, .number(3))])
        return t
    }

    /// Creates image `n` of `side` pixels and supplies it as `key`.
    func supply(_ t: inout ClientTree, _ n: UInt32, side: UInt32 = 4, _ key: TileKey, limits: ClientLimits = ClientLimits()) throws(CommitRejection) {
        let memory = HeapPixelMemory([UInt8](repeating: 255, count: Int(side * side * 4)))
        try t.apply([.createImage(image: n, ImageFormat(width: side, height: side)),
                     .supplyTile(tiled, level: Int32(key.level), column: UInt32(key.column), row: UInt32(key.row), image: n)],
                    attachments: [.memory(memory)], limits: limits)
    }

    func rejection(_ body: () throws -> Void) -> CommitRejection? {
        do { try body() } catch { return error as? CommitRejection }
        return nil
    }

    @Test func aSuppliedTileTakesItsImage() throws {
        var t = try tree()
        try supply(&t, 7, TileKey(level: 0, column: 2, row: 3))
        #expect(t.images[7] == nil, "the image became the tile; its number is free")
        #expect(t.tiles.count == 1 && t.tiles.bytes == 64)
        #expect(t.tiles.layers[tiled]?.entries[TileKey(level: 0, column: 2, row: 3)] != nil)
        // The number can be used again, and a tile supplied twice is replaced.
        try supply(&t, 7, TileKey(level: 0, column: 2, row: 3))
        #expect(t.tiles.count == 1 && t.tiles.bytes == 64)
        try t.apply([.dropTiles(tiled)])
        #expect(t.tiles.count == 0 && t.tiles.bytes == 0)
    }

    @Test func badTilesAreRefusedNamingWhatIsWrong() throws {
        var t = try tree()
        let size = rejection { try supply(&t, 1, side: 5, TileKey(level: 0, column: 0, row: 0)) }
        #expect(size?.code == .invalidImage)
        #expect(size?.message.contains("5×5") == true && size?.message.contains("tileSize is 4×4") == true)
        let level = rejection { try supply(&t, 1, TileKey(level: 3, column: 0, row: 0)) }
        #expect(level?.message.contains("levels are 0 to 2") == true)
        let place = rejection { try supply(&t, 1, TileKey(level: 1, column: 8, row: 0)) }
        #expect(place?.message.contains("8 × 8 tiles") == true, "\(place?.message ?? "")")
        #expect(rejection { try t.apply([.supplyTile(tiled, level: 0, column: 0, row: 0, image: 99)]) }?.code == .unknownImage)
        #expect(rejection { try t.apply([.supplyTile(LayerID(9), level: 0, column: 0, row: 0, image: 1)]) }?.code == .unknownLayer)
        #expect(rejection { try t.apply([.dropTiles(.root)]) }?.message.contains("not a tiled layer") == true)
        // A refused commit leaves the image and the cache as they were.
        #expect(t.images.isEmpty && t.tiles.count == 0)
        var limits = ClientLimits()
        limits.tiles.maxBytes = 32
        #expect(rejection { try supply(&t, 1, TileKey(level: 0, column: 0, row: 0), limits: limits) }?.message.contains("max_tile_bytes") == true)
    }

    @Test func theBudgetEvictsTheLeastRecentlySeen() throws {
        var t = try tree()
        var limits = ClientLimits()
        limits.tiles.maxBytes = 3 * 64
        let a = TileKey(level: 0, column: 0, row: 0), b = TileKey(level: 0, column: 1, row: 0)
        let c = TileKey(level: 0, column: 2, row: 0), d = TileKey(level: 0, column: 3, row: 0)
        try supply(&t, 1, a, limits: limits)
        try supply(&t, 1, b, limits: limits)
        try supply(&t, 1, c, limits: limits)
        // A frame sees a and c: b is the least recently seen.
        var views = TileViews()
        views.views = [TileViews.View(layer: tiled, seen: [a, c], wanted: [a, c], grid: TileGrid(t[tiled]!.properties))]
        _ = t.noteTileViews(views, time: 1, limit: 10)
        try supply(&t, 1, d, limits: limits)
        let held = Set(t.tiles.layers[tiled]!.entries.keys)
        #expect(held == [a, c, d])
        #expect(t.tiles.bytes <= limits.tiles.maxBytes && t.tiles.evictions == 1)
        #expect(t.tiles.layers[tiled]!.entries[a]!.firstShown == 1)
    }

    @Test func aTileIsAskedForOnceUntilSuppliedOrOutOfView() throws {
        var t = try tree()
        let grid = TileGrid(t[tiled]!.properties)
        let a = TileKey(level: 0, column: 0, row: 0), b = TileKey(level: 0, column: 1, row: 0)
        func frame(_ wanted: [TileKey], limit: Int = 10) -> [TileKey] {
            var views = TileViews()
            views.views = [TileViews.View(layer: tiled, seen: [], wanted: wanted, grid: grid)]
            return t.noteTileViews(views, time: 0, limit: limit).flatMap { m in
                m.tiles.map { TileKey(level: Int(m.level), column: Int($0.column), row: Int($0.row)) }
            }
        }
        #expect(frame([a, b], limit: 1) == [a], "bounded per frame")
        #expect(frame([a, b]) == [b])
        #expect(frame([a, b]) == [])
        #expect(frame([b]) == [], "a left the view")
        #expect(frame([a, b]) == [a], "a came back, so it is asked for again")
        try supply(&t, 1, a)
        #expect(frame([a, b]) == [])
        // The layer gone: its tiles go too.
        try t.apply([.destroy(tiled)])
        _ = t.noteTileViews(TileViews(), time: 0, limit: 10)
        #expect(t.tiles.count == 0 && t.tiles.layers.isEmpty)
    }
}
