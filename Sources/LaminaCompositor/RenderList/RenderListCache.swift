import LaminaCore

/// The draw commands of static top-level subtrees, kept from frame to frame: the retained part
/// of the render list. A sublayer of a client's root whose subtree has no animation (nor a
/// departing layer, nor a transition; and a client with videos is not served) draws exactly what it drew last frame while the client's
/// tree and render tree are unchanged (`Version`) and it is placed the same; the walk then
/// copies its commands instead of visiting its layers again. On a mostly still dashboard that is
/// every panel, so a frame walks only the layers that move.
///
/// Bounded: one entry per top-level layer drawn in the last frame (the rest go at `endFrame`),
/// holding what that frame's list held anyway. Cleared when what a raster shows can change
/// without the tree changing (a font registered).
public final class RenderListCache {
    struct Key: Hashable {
        let entry: EntrySerial
        let layer: LayerID
    }

    /// Which state of a client's trees kept commands were drawn from: the model tree's
    /// `ModelTree.Entry.changeCount` and the render tree's `AnimationState.renderTreeChanges`
    /// (departing layers come and go without the model changing). Both only grow while the
    /// entry lives, so an equal version is an unchanged tree.
    struct Version: Equatable {
        var tree: UInt64
        var renderTree: UInt64
    }

    struct Kept {
        let version: Version
        let place: Transform3D
        let space: Transform3D
        let opacity: Double
        let commands: [DrawCommand]
        let visits: Int
        /// Shape and text layers in the subtree, whose rasters must stay.
        let rasterLayers: [LayerID]
        var frame: Int
    }

    var kept: [Key: Kept] = [:]
    /// Emitter layers' birth values (`ParticleMemo`) and the frame that last used each: one
    /// per emitter layer drawn in the last frame, each bounded by its particle budget.
    var particleMemos: [Key: (memo: ParticleMemo, frame: Int)] = [:]
    /// Off, every frame makes every particle's birth values again (tests compare the two).
    public var memoizesParticles = true
    private var frame = 0
    /// Turned off, every frame walks every layer (tests compare the two).
    public var isEnabled = true
    public private(set) var hits = 0
    public private(set) var misses = 0

    public init() {}

    var currentFrame: Int { frame }

    /// Forgets everything kept.
    public func removeAll() {
        kept.removeAll()
        particleMemos.removeAll()
    }

    /// The frame's list is built: subtrees and emitter layers not drawn in it go.
    public func endFrame() {
        if kept.values.contains(where: { $0.frame != frame }) { kept = kept.filter { $0.value.frame == frame } }
        if particleMemos.values.contains(where: { $0.frame != frame }) { particleMemos = particleMemos.filter { $0.value.frame == frame } }
        frame += 1
    }

    /// The birth values kept for an emitter layer (taken out, so the walk changes them in
    /// place), or a fresh memo for `emitter`.
    func take(_ entry: EntrySerial, _ layer: LayerID, emitter: EmitterProperties) -> ParticleMemo {
        particleMemos.removeValue(forKey: Key(entry: entry, layer: layer))?.memo ?? ParticleMemo(emitter: emitter)
    }

    /// Keeps an emitter layer's birth values for the next frame.
    func put(_ entry: EntrySerial, _ layer: LayerID, _ memo: ParticleMemo) {
        particleMemos[Key(entry: entry, layer: layer)] = (memo, frame)
    }

    func hit() { hits += 1 }
    func miss() { misses += 1 }

    /// `renderCache.entries`, `.commands`, `.hits`, `.misses` for `stats`.
    public var statistics: [(name: String, value: Double)] {
        [("renderCache.entries", Double(kept.count)), ("renderCache.commands", Double(kept.values.reduce(0) { $0 + $1.commands.count })),
         ("renderCache.hits", Double(hits)), ("renderCache.misses", Double(misses))]
    }
}

extension RenderListCache {
    /// The sublayers of the root of `tree` (a client's render tree) whose subtrees hold a layer
    /// `state` animates or has departing, or nil when the root itself animates (then nothing in
    /// the tree is static).
    static func dynamicTops(in tree: ClientTree, _ state: AnimationState) -> Set<LayerID>? {
        // A video's frames change what its layers show without the tree changing: a client with
        // videos is walked whole every frame.
        guard tree.videos.isEmpty else { return nil }
        var tops: Set<LayerID> = []
        /// Adds the top of `id`'s branch; false when nothing in the tree can count as static.
        func climb(from id: LayerID) -> Bool {
            var cursor = id
            var steps = 0
            while true {
                if cursor == .root { return false }
                // A layer the walk cannot place: nothing in this tree counts as static.
                guard let layer = tree[cursor], steps <= 1024 else { return false }
                let up = layer.superlayer ?? layer.maskOf ?? state.departing[cursor]?.superlayer
                if up == .root {
                    tops.insert(cursor)
                    return true
                }
                guard let next = up else { return true }
                cursor = next
                steps += 1
            }
        }
        // (Both dictionaries' keys walked in place: no array built per frame.)
        for id in state.animated.keys where !climb(from: id) { return nil }
        for id in state.departing.keys where !climb(from: id) { return nil }
        return tops
    }
}
