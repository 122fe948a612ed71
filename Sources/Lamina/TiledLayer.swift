import LaminaCore
import LaminaProtocol

/// Supplies a tiled layer's tiles as laminad asks for them.
@MainActor
public protocol TiledLayerDelegate: AnyObject {
    /// The image for tile `tile` of `level` (0 full resolution, 1 half, −1 twice, …): exactly
    /// `layer.tileSize` pixels, showing `layer.rect(forTile:level:)` of the layer's bounds at
    /// `contentsScale × 2⁻ˡᵉᵛᵉˡ` pixels per point. Return nil to supply it later
    /// (`supplyTile(_:column:row:level:)`), say once it is drawn on another thread.
    func tiledLayer(_ layer: TiledLayer, imageForTileAt tile: TileIndex, level: Int) -> Image?
}

/// A tile's column and row in its level's grid, counted from the bounds' top-left corner.
public struct TileIndex: Hashable, Sendable {
    public var column: Int
    public var row: Int
    public init(column: Int, row: Int) { self.column = column; self.row = row }
}

/// `CATiledLayer`: a picture too large to hold at once (a map, a scanned page, a 20,000 × 20,000
/// photograph), drawn from tiles. laminad works out which tiles of which level of detail are in
/// view at the scale the layer is shown, asks this layer's `tileProvider` for those it does not
/// hold (each once until supplied or out of view), keeps the supplied tiles within its tile
/// budget (the least recently seen go first), shows the nearest coarser tile scaled while a
/// finer one is on its way, and fades each new tile in over `fadeDuration`.
///
/// Levels: level 0 holds the picture at `contentsScale` pixels per point, each of the
/// `levelsOfDetail − 1` later levels half the one before, and the `levelsOfDetailBias`
/// magnified levels −1, −2, … twice, four times. Every tile is `tileSize` pixels.
public final class TiledLayer: Layer {
    public override init() { super.init(kind: .tiled) }

    /// Each tile's size in pixels; 256 × 256 by default.
    public var tileSize: Size {
        get { model.tiled.tileSize }
        set { setValue(.size(newValue), forKey: .tileSize) }
    }
    /// The number of levels at and below full resolution; 1 by default.
    public var levelsOfDetail: Int {
        get { model.tiled.levelsOfDetail }
        set { setValue(.number(Double(newValue)), forKey: .levelsOfDetail) }
    }
    /// The number of magnified levels; 0 by default.
    public var levelsOfDetailBias: Int {
        get { model.tiled.levelsOfDetailBias }
        set { setValue(.number(Double(newValue)), forKey: .levelsOfDetailBias) }
    }
    /// Seconds a new tile takes to fade in (Core Animation's class `fadeDuration`, here per
    /// layer); 0.25 by default.
    public var fadeDuration: Double {
        get { model.tiled.tileFadeDuration }
        set { setValue(.number(newValue), forKey: .tileFadeDuration) }
    }

    /// Draws the tiles laminad asks for.
    public weak var tileProvider: (any TiledLayerDelegate)?

    /// Called with each tiles-wanted message for this layer, after the tile provider was asked.
    public var onTilesWanted: ((TilesWanted) -> Void)?

    /// The tiling of the layer as it is now.
    public var grid: TileGrid { TileGrid(model) }

    /// The part of the bounds tile `tile` of `level` shows (an edge tile may reach past them).
    public func rect(forTile tile: TileIndex, level: Int) -> Rect {
        grid.rect(of: TileKey(level: level, column: tile.column, row: tile.row))
    }

    /// Supplies `image` as tile `column`, `row` of `level`, with the next commit. The image
    /// becomes the tile: laminad takes its pixels, and the image is used up (destroyed here).
    /// Throws for a level or tile outside the grid, or an image not `tileSize` pixels.
    public func supplyTile(_ image: Image, column: Int, row: Int, level: Int) throws {
        let g = grid
        let key = TileKey(level: level, column: column, row: row)
        guard g.contains(key) else {
            throw LaminaError.invalidArgument("\(key) is outside the layer's tiles (levels \(g.finestLevel) to \(g.coarsestLevel))")
        }
        guard Double(image.width) == g.tileSize.width, Double(image.height) == g.tileSize.height else {
            throw LaminaError.invalidArgument("a tile is \(Int(g.tileSize.width))×\(Int(g.tileSize.height)) pixels (tileSize), the image is \(image.width)×\(image.height)")
        }
        guard !image.isDestroyed else { throw LaminaError.invalidArgument("image \(image.number) was destroyed") }
        guard let connection, let id = serverID else {
            throw LaminaError.invalidArgument("the tiled layer is not in a connection's layer tree yet")
        }
        guard image.connection === connection else {
            throw LaminaError.invalidArgument("image \(image.number) belongs to another connection")
        }
        image.consumedByTile()
        connection.noteTileOperation(.supplyTile(id, level: Int32(level), column: UInt32(column), row: UInt32(row), image: image.number))
    }

    /// `setNeedsDisplay`: drops every tile laminad holds for this layer, so it asks again for
    /// those in view.
    public override func setNeedsDisplay() {
        guard let connection, let id = serverID else { return }
        connection.noteTileOperation(.dropTiles(id))
    }

    func received(_ m: TilesWanted) {
        if let provider = tileProvider {
            for t in m.tiles {
                let index = TileIndex(column: Int(t.column), row: Int(t.row))
                guard let image = provider.tiledLayer(self, imageForTileAt: index, level: Int(m.level)) else { continue }
                do {
                    try supplyTile(image, column: index.column, row: index.row, level: Int(m.level))
                } catch {
                    image.destroy()
                }
            }
        }
        onTilesWanted?(m)
    }
}

extension Connection {
    /// A tile supplied or dropped, sent with the next commit after the layer and image
    /// operations.
    func noteTileOperation(_ op: Operation) {
        tileOperations.append(op)
        Transaction.noteChange(on: self)
    }

    func receivedTilesWanted(_ m: TilesWanted) {
        (layer(withID: m.layer) as? TiledLayer)?.received(m)
    }
}

extension Image {
    /// The image became a tile in laminad: its number is free there, and no destroy is sent.
    func consumedByTile() {
        markUsedUp()
        connection?.liveImages[number] = nil
    }
}
