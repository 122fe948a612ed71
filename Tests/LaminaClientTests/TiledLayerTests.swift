import Lamina
import LaminaCore
import LaminaProtocol
import Testing

/// `CATiledLayer` on the client: its properties and what it puts on the wire; a supplied tile's
/// image is used up (created, then named by supply-tile, never destroyed); the client's checks.
@Suite("tiled layers")
@MainActor
struct TiledLayerTests {
    @Test func aTiledLayerOnTheWire() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let tiled = TiledLayer()
        #expect(tiled.tileSize == Size(width: 256, height: 256) && tiled.levelsOfDetail == 1
                && tiled.levelsOfDetailBias == 0 && tiled.fadeDuration == 0.25)
        tiled.bounds = Rect(x: 0, y: 0, width: 1000, height: 1000)
        tiled.tileSize = Size(width: 4, height: 4)
        tiled.levelsOfDetail = 3
        tiled.levelsOfDetailBias = 1
        tiled.fadeDuration = 0
        // Not in a tree yet: no layer number to name.
        let early = try Image(width: 4, height: 4, pixels: [UInt8](repeating: 0, count: 64), connection: c)
        #expect(throws: LaminaError.self) { try tiled.supplyTile(early, column: 0, row: 0, level: 0) }
        c.rootLayer.addSublayer(tiled)
        Transaction.flush()
        let ops = try server.nextCommit()
        #expect(ops.contains(.create(LayerID(1), kind: .tiled)))
        #expect(ops.contains(.set(LayerID(1), .tileSize, .size(Size(width: 4, height: 4)))))
        #expect(ops.contains(.set(LayerID(1), .levelsOfDetail, .number(3))))
        #expect(ops.contains(.set(LayerID(1), .levelsOfDetailBias, .number(1))))
        #expect(ops.contains(.set(LayerID(1), .tileFadeDuration, .number(0))))
        #expect(Layer.make(kind: .tiled) is TiledLayer)
        #expect(tiled.rect(forTile: TileIndex(column: 2, row: 1), level: -1) == Rect(x: 4, y: 2, width: 2, height: 2))

        let image = try Image(width: 4, height: 4, pixels: [UInt8](repeating: 255, count: 64), connection: c)
        try tiled.supplyTile(image, column: 2, row: 1, level: -1)
        #expect(image.isDestroyed, "the image is used up")
        image.destroy()  // does nothing more
        tiled.setNeedsDisplay()
        Transaction.flush()
        let supplied = try server.nextCommit()
        let create = supplied.firstIndex { if case .createImage(image.number, _) = $0 { true } else { false } }
        let supply = supplied.firstIndex(of: .supplyTile(LayerID(1), level: -1, column: 2, row: 1, image: image.number))
        #expect(create != nil && supply != nil && create! < supply!, "\(supplied)")
        #expect(supplied.last == .dropTiles(LayerID(1)))
        #expect(!supplied.contains(.destroyImage(image: image.number)))

        // The client's own checks: size, level, place.
        let big = try Image(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 256), connection: c)
        #expect { try tiled.supplyTile(big, column: 0, row: 0, level: 0) } throws: { "\($0)".contains("tileSize") }
        #expect { try tiled.supplyTile(early, column: 0, row: 0, level: 3) } throws: { "\($0)".contains("level 3") }
        #expect { try tiled.supplyTile(early, column: 250, row: 0, level: 0) } throws: { "\($0)".contains("(250, 0)") }
    }
}
