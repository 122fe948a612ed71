import Testing
@testable import LaminaCore

/// `CATiledLayer`'s tiling: levels, the level for a scale, the tiles in view, and the values
/// laminad refuses.
@Suite struct TileGridTests {
    static func picture(levels: Int = 8, bias: Int = 1, side: Double = 20_000) -> LayerProperties {
        var p = LayerProperties(kind: .tiled)
        p.bounds = Rect(x: 0, y: 0, width: side, height: side)
        p.tiled.levelsOfDetail = levels
        p.tiled.levelsOfDetailBias = bias
        return p
    }

    @Test func defaultsAreCoreAnimations() {
        let p = LayerProperties(kind: .tiled)
        #expect(p.tiled.tileSize == Size(width: 256, height: 256))
        #expect(p.tiled.levelsOfDetail == 1)
        #expect(p.tiled.levelsOfDetailBias == 0)
        #expect(p.tiled.tileFadeDuration == 0.25)
        #expect(p[.tileFadeDuration] == .number(0.25))
        #expect(PropertyKey(name: "levelsOfDetailBias") == .levelsOfDetailBias)
        #expect(PropertyKey.tileSize.rawValue == 78 && PropertyKey.levelsOfDetail.rawValue == 79)
        #expect(PropertyKey.levelsOfDetailBias.rawValue == 95 && PropertyKey.tileFadeDuration.rawValue == 96)
        #expect(LayerKind.tiled.rawValue == 8 && LayerKind(name: "tiled") == .tiled && LayerKind.tiled.minorVersion == 7)
    }

    @Test func levelsAndTheirTiles() {
        let g = TileGrid(Self.picture())
        #expect(g.finestLevel == -1 && g.coarsestLevel == 7)
        // Level 0: 256-point tiles, 79 × 79 of them; level 3 (⅛): 2048 points; level −1: 128.
        #expect(g.counts(level: 0) == (79, 79))
        #expect(g.tilePoints(level: 3) == Size(width: 2048, height: 2048))
        #expect(g.counts(level: 3) == (10, 10))
        #expect(g.tilePoints(level: -1) == Size(width: 128, height: 128))
        #expect(g.rect(of: TileKey(level: 0, column: 4, row: 12)) == Rect(x: 1024, y: 3072, width: 256, height: 256))
        #expect(g.contains(TileKey(level: 0, column: 78, row: 78)))
        #expect(!g.contains(TileKey(level: 0, column: 79, row: 0)))
        #expect(!g.contains(TileKey(level: 8, column: 0, row: 0)))
        #expect(!g.contains(TileKey(level: -2, column: 0, row: 0)))
    }

    @Test func coarsestLevelKeepsAPixel() {
        // A 1000-point picture: level 9 would be under 2 pixels, level 10 under one.
        let g = TileGrid(Self.picture(levels: 30, bias: 0, side: 1000))
        #expect(g.coarsestLevel == 9)
    }

    @Test func levelForScale() {
        let g = TileGrid(Self.picture())
        #expect(g.level(forScale: 1) == 0)
        #expect(g.level(forScale: 0.6) == 0)
        #expect(g.level(forScale: 0.5) == 1)
        #expect(g.level(forScale: 0.1) == 3)
        #expect(g.level(forScale: 2) == -1)
        #expect(g.level(forScale: 8) == -1)  // no finer level than the bias allows
        #expect(g.level(forScale: 0.0001) == 7)
        #expect(g.level(forScale: .nan) == 7)
    }

    @Test func tilesInView() throws {
        let g = TileGrid(Self.picture())
        let keys = try #require(g.tiles(level: 0, in: Rect(x: 1000, y: 3000, width: 320, height: 240), limit: 100))
        #expect(keys.map { [$0.column, $0.row] } == [[3, 11], [4, 11], [5, 11], [3, 12], [4, 12], [5, 12]])
        // Clipped to the bounds, and refused past the limit.
        #expect(g.tiles(level: 0, in: Rect(x: -500, y: -500, width: 600, height: 600), limit: 100)?.count == 1)
        #expect(g.tiles(level: 0, in: Rect(x: 0, y: 0, width: 20_000, height: 20_000), limit: 1024) == nil)
        #expect(g.tiles(level: 0, in: Rect(x: 30_000, y: 0, width: 10, height: 10), limit: 10) == [])
    }

    @Test func ancestorsCoverTheirPart() {
        let g = TileGrid(Self.picture())
        let (parent, unit) = g.ancestor(of: TileKey(level: 0, column: 4, row: 12), level: 3)
        #expect(parent == TileKey(level: 3, column: 0, row: 1))
        #expect(unit == Rect(x: 0.5, y: 0.5, width: 0.125, height: 0.125))
    }

    @Test func badValuesAreRefused() {
        var p = LayerProperties(kind: .tiled)
        #expect(throws: PropertyError.self) { try p.set(.tileSize, .size(Size(width: 0, height: 256))) }
        #expect(throws: PropertyError.self) { try p.set(.tileSize, .size(Size(width: 100.5, height: 256))) }
        #expect(throws: PropertyError.self) { try p.set(.tileSize, .size(Size(width: 8192, height: 256))) }
        #expect(throws: PropertyError.self) { try p.set(.levelsOfDetail, .number(0)) }
        #expect(throws: PropertyError.self) { try p.set(.levelsOfDetail, .number(2.5)) }
        #expect(throws: PropertyError.self) { try p.set(.levelsOfDetailBias, .number(-1)) }
        #expect(throws: PropertyError.self) { try p.set(.tileFadeDuration, .number(-0.1)) }
        do {
            try p.set(.tileSize, .size(Size(width: 0, height: 5)))
        } catch {
            #expect("\(error)".contains("tileSize") && "\(error)".contains("4096"))
        }
        try? p.set(.levelsOfDetail, .number(4))
        #expect(p.tiled.levelsOfDetail == 4)
    }
}
