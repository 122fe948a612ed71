import Foundation
import Testing
import Lamina
import LaminaCore

/// Tiled layers on a real laminad with a virtual clock: a 20,000 × 20,000 picture whose tiles a
/// Swift client draws when laminad asks, zoomed and panned by the layer's transform and
/// position. The requests are checked exactly, the pixels by screenshot at virtual times.
@Suite("laminad end to end: tiled layers", .serialized)
@MainActor
struct TiledEndToEndTests {
    /// Every tile one colour, from its level, column and row.
    nonisolated static func colour(_ k: TileKey) -> (r: Int, g: Int, b: Int) {
        ((k.column * 40 + 20) % 256, (k.row * 20 + 10) % 256, 60 + (k.level + 1) * 20)
    }

    /// The picture's tile provider: records what laminad asks for and, while `supplying`,
    /// draws it.
    final class Picture: TiledLayerDelegate {
        let connection: Connection
        var supplying = true
        var asked: [TileKey] = []
        /// What was asked since `frame` last took it.
        var fresh: [TileKey] = []
        init(_ c: Connection) { connection = c }

        func image(_ k: TileKey, side: Int = 256) throws -> Image {
            let (r, g, b) = TiledEndToEndTests.colour(k)
            var pixels = [UInt8](repeating: 255, count: side * side * 4)
            for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = UInt8(r); pixels[i + 1] = UInt8(g); pixels[i + 2] = UInt8(b) }
            return try Image(width: side, height: side, pixels: pixels, connection: connection)
        }

        func tiledLayer(_ layer: TiledLayer, imageForTileAt tile: TileIndex, level: Int) -> Image? {
            let k = TileKey(level: level, column: tile.column, row: tile.row)
            asked.append(k)
            fresh.append(k)
            return supplying ? try? image(k) : nil
        }
    }

    struct Fixture {
        let daemon: DaemonProcess
        let c: Connection
        let layer: TiledLayer
        let picture: Picture
    }

    /// The picture at `scale` with its top-left corner at `origin` on the display.
    static func place(_ f: Fixture, scale: Double, origin: Point) {
        Transaction.begin()
        Transaction.disableActions = true
        f.layer.position = origin
        f.layer.transform = .scale(x: scale, y: scale, z: 1)
        Transaction.commit()
    }

    static func open(config: String? = nil) throws -> Fixture {
        var extra: [String] = []
        if let config {
            let path = NSTemporaryDirectory() + "lamina-tiled-\(UUID().uuidString.prefix(8)).toml"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            extra = ["--config", path]
        }
        let daemon = try DaemonProcess(extra: extra)
        let c = try Connection.connect(to: daemon.socket, name: "tiles")
        let layer = TiledLayer()
        layer.anchorPoint = .zero
        layer.bounds = Rect(x: 0, y: 0, width: 20_000, height: 20_000)
        layer.levelsOfDetail = 8
        layer.levelsOfDetailBias = 1
        layer.fadeDuration = 0.5
        let picture = Picture(c)
        layer.tileProvider = picture
        return Fixture(daemon: daemon, c: c, layer: layer, picture: picture)
    }

    /// A frame drawn (by a screenshot), laminad's tiles-wanted handled by the provider, and its
    /// tiles committed; returns what was asked for since the last call (laminad may have drawn
    /// the frame that asked before the screenshot, right after the commit).
    static func frame(_ f: Fixture) async throws -> (shot: Bitmap, asked: Set<TileKey>) {
        let shot = try await f.c.screenshot()
        // The tiles-wanted message comes before the screenshot's reply; its handling is a task
        // on the main actor: a round trip and a yield let it run.
        for _ in 0..<4 {
            _ = try await f.c.stats()
            await Task.yield()
        }
        try await f.c.sync()
        defer { f.picture.fresh = [] }
        return (shot, Set(f.picture.fresh))
    }

    static func keys(_ level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>) -> Set<TileKey> {
        Set(rows.flatMap { r in columns.map { TileKey(level: level, column: $0, row: r) } })
    }

    /// Pixel (x, y) within 3 of `rgb`.
    static func near(_ shot: Bitmap, _ x: Int, _ y: Int, _ rgb: (r: Int, g: Int, b: Int), _ what: Comment) {
        let p = shot.pixel(x: x, y: y)
        let ok = abs(Int(p.r) - rgb.r) <= 3 && abs(Int(p.g) - rgb.g) <= 3 && abs(Int(p.b) - rgb.b) <= 3
        #expect(ok, "\(what): pixel (\(x), \(y)) is \(p), expected \(rgb)")
    }

    static func mix(_ a: (r: Int, g: Int, b: Int), _ b: (r: Int, g: Int, b: Int), _ t: Double) -> (r: Int, g: Int, b: Int) {
        func m(_ x: Int, _ y: Int) -> Int { Int((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return (m(a.r, b.r), m(a.g, b.g), m(a.b, b.b))
    }

    @Test("a 20,000² picture zoomed and panned: only the tiles in view asked for, coarser ones shown meanwhile, new ones fading in")
    func zoomAndPan() async throws {
        let f = try Self.open()
        defer { f.c.close() }
        // Zoomed out to 0.1: level 3 (⅛), 2048-point tiles; the 320 × 240 display shows
        // 3200 × 2400 points of it, tiles (0…1, 0…1).
        Self.place(f, scale: 0.1, origin: .zero)
        f.c.rootLayer.addSublayer(f.layer)
        try await f.c.sync()
        var (shot, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(3, columns: 0...1, rows: 0...1))
        // Supplied now, shown from this frame: transparent at first, then fading in over 0.5 s.
        (shot, asked) = try await Self.frame(f)
        #expect(asked.isEmpty, "nothing asked twice")
        let coarse = Self.colour(TileKey(level: 3, column: 0, row: 0))
        Self.near(shot, 100, 100, (0, 0, 0), "a tile's first frame")
        _ = try await f.c.advanceClock(by: 0.25)
        shot = try await f.c.screenshot()
        Self.near(shot, 100, 100, Self.mix((0, 0, 0), coarse, 0.5), "half way through the fade")
        _ = try await f.c.advanceClock(by: 0.25)
        shot = try await f.c.screenshot()
        Self.near(shot, 100, 100, coarse, "faded in")
        // Tile (1, 0) of level 3 starts at 2048 points: 204.8 on the display.
        Self.near(shot, 250, 100, Self.colour(TileKey(level: 3, column: 1, row: 0)), "the next tile")
        Self.near(shot, 100, 230, Self.colour(TileKey(level: 3, column: 0, row: 1)), "the tile below")

        // Zoomed in to 1 at (1000, 3000), with the provider holding back: level 0's six tiles
        // in view are asked for, and level 3's tile (0, 1) is shown scaled meanwhile.
        f.picture.supplying = false
        Self.place(f, scale: 1, origin: Point(x: -1000, y: -3000))
        try await f.c.sync()
        (shot, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(0, columns: 3...5, rows: 11...12))
        (shot, asked) = try await Self.frame(f)
        #expect(asked.isEmpty, "a tile asked for is not asked again while it stays in view")
        let under = Self.colour(TileKey(level: 3, column: 0, row: 1))
        Self.near(shot, 100, 100, under, "the coarser level while the finer tile is on its way")
        Self.near(shot, 300, 200, under, "the coarser level while the finer tile is on its way")

        // The client supplies them: each fades in over the coarser tile.
        for k in Self.keys(0, columns: 3...5, rows: 11...12) {
            try f.layer.supplyTile(try f.picture.image(k), column: k.column, row: k.row, level: k.level)
        }
        try await f.c.sync()
        (shot, _) = try await Self.frame(f)
        let fine = Self.colour(TileKey(level: 0, column: 4, row: 12))  // (1100, 3100)
        Self.near(shot, 100, 100, under, "a tile's first frame")
        _ = try await f.c.advanceClock(by: 0.25)
        shot = try await f.c.screenshot()
        Self.near(shot, 100, 100, Self.mix(under, fine, 0.5), "the finer tile half faded in over the coarser")
        _ = try await f.c.advanceClock(by: 0.25)
        shot = try await f.c.screenshot()
        Self.near(shot, 100, 100, fine, "the finer tile")
        Self.near(shot, 0, 0, Self.colour(TileKey(level: 0, column: 3, row: 11)), "the top-left tile")

        // Panned right by 300 points: x 1300…1620, columns 5…6: only column 6 is new.
        Self.place(f, scale: 1, origin: Point(x: -1300, y: -3000))
        try await f.c.sync()
        (_, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(0, columns: 6...6, rows: 11...12))
        // Magnified to 2: level −1 (128-point tiles), x 1300…1460, y 3000…3120.
        Self.place(f, scale: 2, origin: Point(x: -2600, y: -6000))
        try await f.c.sync()
        (_, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(-1, columns: 10...11, rows: 23...24))
        let stats = try await f.c.stats()
        #expect(stats.first { $0.name == "tilesRequested" }?.value == 16)
        #expect(stats.first { $0.name == "tiles" }?.value == 10)
    }

    @Test("inside a 160 × 120 scroll layer: only the tiles its clip shows are asked for, and scrolling its bounds origin asks for the new ones")
    func insideAScrollLayer() async throws {
        let f = try Self.open()
        defer { f.c.close() }
        f.layer.fadeDuration = 0
        let scroll = ScrollLayer()
        scroll.anchorPoint = .zero
        scroll.position = Point(x: 100, y: 60)
        scroll.bounds = Rect(x: 0, y: 0, width: 160, height: 120)
        scroll.masksToBounds = true
        Self.place(f, scale: 1, origin: .zero)
        scroll.addSublayer(f.layer)
        f.c.rootLayer.addSublayer(scroll)
        try await f.c.sync()
        // 0…160 × 0…120: tiles (0, 0) only, not the display's 2 × 1.
        var (shot, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(0, columns: 0...0, rows: 0...0))
        (shot, _) = try await Self.frame(f)
        Self.near(shot, 110, 70, Self.colour(TileKey(level: 0, column: 0, row: 0)), "the tile through the clip")
        Self.near(shot, 50, 30, (0, 0, 0), "outside the scroll layer")
        // Scrolled to (5000, 3000): 5000…5160 × 3000…3120, tiles (19…20, 11…12).
        Transaction.begin()
        Transaction.disableActions = true
        scroll.scroll(to: Point(x: 5000, y: 3000))
        Transaction.commit()
        try await f.c.sync()
        (_, asked) = try await Self.frame(f)
        #expect(asked == Self.keys(0, columns: 19...20, rows: 11...12))
        (shot, _) = try await Self.frame(f)
        Self.near(shot, 110, 70, Self.colour(TileKey(level: 0, column: 19, row: 11)), "the scrolled-to tile")
    }

    @Test("memory stays within max_tile_bytes while a pan runs across the picture: least recently seen tiles go first")
    func memoryBounded() async throws {
        // Twelve tiles' worth: the display needs six.
        let budget = 12 * 256 * 256 * 4
        let f = try Self.open(config: "[limits]\nmax_tile_bytes = \(budget)\n")
        defer { f.c.close() }
        f.layer.fadeDuration = 0
        Self.place(f, scale: 1, origin: .zero)
        f.c.rootLayer.addSublayer(f.layer)
        try await f.c.sync()
        var asked = Set<TileKey>()
        for step in 0..<10 {
            Self.place(f, scale: 1, origin: Point(x: -Double(step) * 256, y: -Double(step) * 100))
            try await f.c.sync()
            asked.formUnion(try await Self.frame(f).asked)
            try await f.c.sync()
            let stats = try await f.c.stats()
            let bytes = stats.first { $0.name == "tileBytes" }?.value ?? -1
            #expect(bytes <= Double(budget) && bytes > 0, "step \(step): \(bytes) bytes of tiles")
        }
        // The last view's tiles are all held and drawn.
        let shot = try await f.c.screenshot()
        let (x, y) = (9 * 256 + 10, 900 + 10)
        Self.near(shot, 10, 10, Self.colour(TileKey(level: 0, column: x / 256, row: y / 256)), "the last view")
        let stats = try await f.c.stats()
        #expect((stats.first { $0.name == "tileEvictions" }?.value ?? 0) > 0)
        #expect(asked.count > 12)
    }

    @Test("a tile of the wrong size, level or place is refused naming it; the layer's other tiles stay")
    func badTiles() async throws {
        let f = try Self.open()
        defer { f.c.close() }
        f.layer.fadeDuration = 0
        Self.place(f, scale: 1, origin: .zero)
        f.c.rootLayer.addSublayer(f.layer)
        try await f.c.sync()
        _ = try await Self.frame(f)
        // The client library checks first.
        let small = try f.picture.image(TileKey(level: 0, column: 0, row: 0), side: 128)
        #expect { try f.layer.supplyTile(small, column: 0, row: 0, level: 0) } throws: { "\($0)".contains("tileSize") }
        #expect { try f.layer.supplyTile(try f.picture.image(TileKey(level: 8, column: 0, row: 0)), column: 0, row: 0, level: 8) }
            throws: { "\($0)".contains("level 8") }
        #expect { try f.layer.supplyTile(try f.picture.image(TileKey(level: 0, column: 79, row: 0)), column: 79, row: 0, level: 0) }
            throws: { "\($0)".contains("(79, 0)") }
        try await f.c.sync()
        // laminad checks too: the tile size changed under a tile on its way.
        let tile = try f.picture.image(TileKey(level: 0, column: 0, row: 0))
        try f.layer.supplyTile(tile, column: 0, row: 0, level: 0)
        f.layer.tileSize = Size(width: 128, height: 128)
        await #expect { try await f.c.sync() } throws: { "\($0)".contains("256×256") && "\($0)".contains("tileSize is 128×128") }
        let shot = try await f.c.screenshot()
        Self.near(shot, 10, 10, Self.colour(TileKey(level: 0, column: 0, row: 0)), "the tiles supplied before")
        withExtendedLifetime(small) {}
    }
}
