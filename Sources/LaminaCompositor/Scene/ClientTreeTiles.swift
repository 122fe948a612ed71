import LaminaCore
import LaminaProtocol

// Tiled layers' tiles (`CATiledLayer`, protocol 1.7): the supply-tile and drop-tiles operations,
// the per-client tile cache with its budget (least recently seen out first), and what a frame
// tells it (`TileViews`: which tiles were in view, and which it must ask the client for).

/// One supplied tile: its pixels, when it was first shown (its fade starts then; nil until a
/// frame shows it), and the frame that last showed it (for least-recently-seen eviction).
public struct TileEntry: Sendable {
    public let source: ImageSource
    public var firstShown: Double?
    public var lastSeen: UInt64
    var bytes: Int { source.width * source.height * 4 }
}

/// A tiled layer's tiles, and the ones asked for and not yet supplied (asked once each until
/// supplied or out of view).
public struct LayerTiles: Sendable {
    public internal(set) var entries: [TileKey: TileEntry] = [:]
    public internal(set) var requested: Set<TileKey> = []
    public init() {}
}

/// A client's tile cache: every tiled layer's tiles, and their pixel bytes.
public struct TileCache: Sendable {
    public internal(set) var layers: [LayerID: LayerTiles] = [:]
    public internal(set) var bytes = 0
    public internal(set) var count = 0
    /// Tiles evicted to stay within the budget, since the cache began (for `stats`).
    public internal(set) var evictions = 0
    public init() {}

    /// Puts `source` in as `key` of `layer` (replacing a tile there), stamped `seen` (the
    /// commit's place in the count frames stamp seen tiles with: newer than all of them).
    mutating func insert(_ source: ImageSource, key: TileKey, layer: LayerID, seen: UInt64) {
        if let old = layers[layer]?.entries.removeValue(forKey: key) { forget(old) }
        let entry = TileEntry(source: source, firstShown: nil, lastSeen: seen)
        layers[layer, default: LayerTiles()].entries[key] = entry
        layers[layer]!.requested.remove(key)
        bytes += entry.bytes
        count += 1
    }

    /// Evicts the least recently seen tiles (unseen ones first; the newest last) until the cache
    /// is within `maxBytes` and `maxTiles`: one sort for a whole commit's tiles.
    mutating func evict(maxBytes: Int, maxTiles: Int) {
        guard bytes > maxBytes || count > maxTiles else { return }
        var order: [(seen: UInt64, layer: LayerID, key: TileKey)] = []
        order.reserveCapacity(count)
        for (id, l) in layers {
            for (k, e) in l.entries { order.append((e.lastSeen, id, k)) }
        }
        order.sort { ($0.seen, $0.layer.rawValue, $0.key) < ($1.seen, $1.layer.rawValue, $1.key) }
        for victim in order {
            guard bytes > maxBytes || count > maxTiles else { break }
            drop(victim.key, of: victim.layer, evicted: true)
        }
    }

    /// Removes one tile; an evicted tile still in view is marked asked for, so it is not asked
    /// for again until it leaves the view (no request storm under a tight budget).
    mutating func drop(_ key: TileKey, of layer: LayerID, evicted: Bool) {
        guard let e = layers[layer]?.entries.removeValue(forKey: key) else { return }
        forget(e)
        if evicted {
            evictions += 1
            layers[layer]!.requested.insert(key)
        }
    }

    /// Removes every tile of `layer`.
    mutating func dropAll(of layer: LayerID) {
        guard let l = layers.removeValue(forKey: layer) else { return }
        for e in l.entries.values { forget(e) }
    }

    private mutating func forget(_ e: TileEntry) {
        bytes -= e.bytes
        count -= 1
        e.source.destroy()
    }

    /// Frees every tile's pixels (the session ended).
    mutating func destroyAll() {
        for id in Array(layers.keys) { dropAll(of: id) }
    }
}

/// What a frame's walk saw of one client's tiled layers.
public struct TileViews: Sendable, Equatable {
    /// One tiled layer in view.
    public struct View: Sendable, Equatable {
        public var layer: LayerID
        /// The tiles drawn (the level shown and the coarser ones filling in).
        public var seen: [TileKey]
        /// The tiles of the level shown that are in view, held or not.
        public var wanted: [TileKey]
        /// The grid, to name the wanted tiles' rectangles.
        public var grid: TileGrid
    }
    public var views: [View] = []
    /// A tile was fading in: the picture changes with time alone.
    public var fading = false
    public init() {}
}

/// The tile budgets (`[limits]`): bytes and tiles one client's tile caches may hold, and tiles
/// asked for per client per frame.
public struct TileLimits: Sendable, Equatable {
    public var maxBytes = 128 << 20
    public var maxTiles = 16_384
    public var requestsPerFrame = 256
    public init() {}
}

extension ClientTree {
    /// Applies a supply-tile or drop-tiles operation (number `i` of its commit); the tiles go
    /// into the cache when the commit stands (`finishTiles`).
    mutating func applyTile(_ op: Operation, index i: Int, limits: ClientLimits, journal: inout Journal) throws(CommitRejection) -> Bool {
        func fail(_ code: ErrorCode, _ message: String) -> CommitRejection {
            CommitRejection(code: code, operationIndex: i, message: message)
        }
        switch op {
        case let .supplyTile(id, level, column, row, n):
            guard let layer = layers[id] else { throw fail(.unknownLayer, "supply-tile: layer \(id) does not exist") }
            let p = layer.properties
            guard p.kind == .tiled else {
                throw fail(.invalidRequest, "supply-tile: layer \(id) is a \(p.kind) layer, not a tiled layer")
            }
            guard let source = images[n] else {
                throw fail(.unknownImage, videos[n] == nil ? "supply-tile: image \(n) does not exist" : "supply-tile: image \(n) is a video's pictures, not an image")
            }
            let grid = TileGrid(p)
            let key = TileKey(level: Int(level), column: Int(column), row: Int(row))
            let what = "layer \(id)'s \(key)"
            guard grid.contains(level: key.level) else {
                throw fail(.invalidImage, "supply-tile: \(what): the layer's levels are \(grid.finestLevel) to \(grid.coarsestLevel) (levelsOfDetail \(p.tiled.levelsOfDetail), levelsOfDetailBias \(p.tiled.levelsOfDetailBias))")
            }
            guard grid.contains(key) else {
                let c = grid.counts(level: key.level)
                throw fail(.invalidImage, "supply-tile: \(what) is outside the level's grid of \(c.columns) × \(c.rows) tiles (columns 0–\(c.columns - 1), rows 0–\(c.rows - 1))")
            }
            guard Double(source.width) == grid.tileSize.width, Double(source.height) == grid.tileSize.height else {
                throw fail(.invalidImage, "supply-tile: \(what): image \(n) is \(source.width)×\(source.height) pixels, but the layer's tileSize is \(Int(grid.tileSize.width))×\(Int(grid.tileSize.height))")
            }
            let bytes = source.width * source.height * 4
            guard bytes <= limits.tiles.maxBytes else {
                throw fail(.limitExceeded, "supply-tile: \(what): a tile of \(bytes) bytes is more than the tile budget (max_tile_bytes) of \(limits.tiles.maxBytes)")
            }
            guard journal.tileChanges.count < limits.tiles.maxTiles else {
                throw fail(.limitExceeded, "supply-tile: a commit may supply at most \(limits.tiles.maxTiles) tiles (max_tiles_per_client)")
            }
            // The image becomes the tile: its number is free again.
            if journal.savedImages[n] == nil { journal.savedImages[n] = .some(source) }
            images[n] = nil
            journal.tileChanges.append(.supply(id, key, source))
            return true
        case .dropTiles(let id):
            guard let layer = layers[id] else { throw fail(.unknownLayer, "drop-tiles: layer \(id) does not exist") }
            guard layer.properties.kind == .tiled else {
                throw fail(.invalidRequest, "drop-tiles: layer \(id) is a \(layer.properties.kind) layer, not a tiled layer")
            }
            journal.tileChanges.append(.drop(id))
            return true
        default:
            return false
        }
    }

    /// A standing commit's tile changes, in order, into the cache.
    mutating func finishTiles(_ changes: [TileChange], limits: ClientLimits) {
        guard !changes.isEmpty else { return }
        // Frames and commits share one count: a tile supplied now is newer than every tile seen so far.
        tileFrame &+= 1
        for change in changes {
            switch change {
            case let .supply(id, key, source):
                tiles.insert(source, key: key, layer: id, seen: tileFrame)
            case .drop(let id):
                tiles.dropAll(of: id)
            }
        }
        tiles.evict(maxBytes: limits.tiles.maxBytes, maxTiles: limits.tiles.maxTiles)
    }

    /// What a frame's walk saw, at clock time `time`: tiles shown for the first time start
    /// fading in, seen tiles are stamped, tiles of layers gone (or whose tiling changed) are
    /// dropped, and the wanted tiles neither held nor asked for are returned (at most `limit`),
    /// to ask the client for.
    mutating func noteTileViews(_ seen: TileViews, time: Double, limit: Int) -> [TilesWanted] {
        tileFrame += 1
        let frame = tileFrame
        // Layers gone, no longer tiled, or retiled: their tiles no longer fit.
        for (id, l) in tiles.layers {
            guard let p = layers[id]?.properties, p.kind == .tiled else { tiles.dropAll(of: id); continue }
            let grid = TileGrid(p)
            for (k, e) in l.entries where !grid.contains(k) || Double(e.source.width) != grid.tileSize.width
                || Double(e.source.height) != grid.tileSize.height {
                tiles.drop(k, of: id, evicted: false)
            }
        }
        var inView: [LayerID: Set<TileKey>] = [:]
        var asks: [TilesWanted] = []
        var left = limit
        for v in seen.views where layers[v.layer] != nil {
            for k in v.seen {
                guard var e = tiles.layers[v.layer]?.entries[k] else { continue }
                e.lastSeen = frame
                if e.firstShown == nil { e.firstShown = time }
                tiles.layers[v.layer]!.entries[k] = e
            }
            inView[v.layer, default: []].formUnion(v.wanted)
            var byLevel: [Int: [TilesWanted.Tile]] = [:]
            for k in v.wanted where left > 0 {
                let l = tiles.layers[v.layer]
                guard l?.entries[k] == nil, l?.requested.contains(k) != true else { continue }
                tiles.layers[v.layer, default: LayerTiles()].requested.insert(k)
                byLevel[k.level, default: []].append(TilesWanted.Tile(column: UInt32(k.column), row: UInt32(k.row), rect: v.grid.rect(of: k)))
                left -= 1
            }
            for level in byLevel.keys.sorted() {
                asks.append(TilesWanted(layer: v.layer, level: Int32(level), tiles: byLevel[level]!))
            }
        }
        // A tile asked for that left the view may be asked for again when it comes back.
        for id in Array(tiles.layers.keys) where !(tiles.layers[id]!.requested.isEmpty) {
            let view = inView[id] ?? []
            tiles.layers[id]!.requested.formIntersection(view)
        }
        return asks
    }
}

/// A tile operation of a commit, kept until the commit stands.
enum TileChange {
    case supply(LayerID, TileKey, ImageSource)
    case drop(LayerID)
}
