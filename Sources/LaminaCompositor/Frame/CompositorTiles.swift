import LaminaCore
import LaminaProtocol

extension Compositor {
    /// After a frame: each client's tile cache learns what its tiled layers showed (fades
    /// start, tiles seen are stamped for eviction order, stale tiles go), and the owning client
    /// is asked for the tiles in view it has not supplied (tiles-wanted, at most
    /// `[limits] max_tile_requests_per_frame` a frame, each tile once until supplied or out of view).
    func noteTiles(_ list: DrawList, time: Double) {
        tilesFading = list.tilesFading
        let limit = configuration.limits.tiles.requestsPerFrame
        for i in model.entries.indices {
            let views = list.tileViews[model.entries[i].serial]
            guard views != nil || !model.entries[i].tree.tiles.layers.isEmpty else { continue }
            // Only a connected 1.7 client is asked (a kept session's tiles wait for its next client).
            let client = model.entries[i].client.flatMap { (sessionMinor($0) ?? 0) >= 7 ? $0 : nil }
            let asks = model.entries[i].tree.noteTileViews(views ?? TileViews(), time: time, limit: client == nil ? 0 : limit)
            guard !asks.isEmpty, let client else { continue }
            for ask in asks {
                stats.tilesRequested += UInt64(ask.tiles.count)
                var start = 0
                while start < ask.tiles.count {
                    let end = Swift.min(start + TilesWanted.maximumTiles, ask.tiles.count)
                    reply(client, .tilesWanted(TilesWanted(layer: ask.layer, level: ask.level, tiles: Array(ask.tiles[start..<end]))))
                    start = end
                }
            }
        }
    }
}
