import LaminaCore
import LaminaProtocol

// The render list: the display's trees, as the frame's presentation shows them, walked into
// draw commands in painter's order. This file holds the entry points and the walk's visit of
// one layer; RenderLayerCommands.swift lists a layer's own commands, RenderSublayers.swift
// orders and places its sublayers (replicators, transform layers, the retained cache at the
// root), and RenderTransitions.swift draws transitions from their kept snapshots.

extension ModelTree {
    /// The frame at display time `time`, showing `presentation` (the model values when nothing
    /// animates).
    ///
    /// Walks the tree and lists the draw commands, back to front. Each layer's transform to the
    /// display is its `transformToSuperlayer`, then its superlayer's `sublayerTransform` about
    /// the superlayer's anchor point (after the superlayer's geometry flip), then the
    /// superlayer's own transform to the display with z flattened: as in Core Animation an
    /// ordinary layer renders its sublayers into its own plane.
    ///
    /// Opacity multiplies down the tree, except that a translucent layer with sublayers (and
    /// `allowsGroupOpacity`) becomes an offscreen group composited once. A hidden layer hides its
    /// subtree, and so does a layer with `isDoubleSided` false that faces away. Siblings draw in
    /// zPosition order, then array order. Per layer, in order: its shadow, its background, its
    /// sublayers (clipped by `masksToBounds`), then its border, which Core Animation draws above
    /// the sublayers.
    ///
    /// Layer kinds: a gradient layer adds its gradient above its background; a replicator draws
    /// its sublayers `instanceCount` times, copy k through `instanceTransform`^k about its anchor
    /// point, tinted by `instanceColor` plus k colour offsets, at time t − k·`instanceDelay`
    /// (their animations evaluated at that time); a transform layer draws nothing itself and
    /// lets its sublayers share its 3D space, depth-sorted back to front. A layer with a `mask`
    /// becomes a group whose pixels are multiplied by the mask layer's composited alpha.
    ///
    /// A shape or text layer draws its CPU raster from `rasters` where the contents would go
    /// (none without a rasterizer); it ignores `contents`, as in Core Animation. A layer with a
    /// transition in progress draws its old rendering and its current one,
    /// placed and faded as the transition's type, direction and progress say.
    ///
    /// - Parameter cache: static top-level subtrees' commands kept from the last frame
    ///   (`RenderListCache`), reused where nothing in them changed.
    /// - Parameter transitions: the old renderings of transitions in progress, kept by the
    ///   render side since their commits (`TransitionSnapshots`); nil draws no transitions.
    ///
    /// An emitter layer lists its particles (ParticleField at its local time) above its
    /// contents, within `particleLimits`.
    public func drawList(at time: Double = 0, presentation: PresentationTree = .model, transitions: TransitionSnapshots? = nil,
                         rasters: (any LayerRasterizing)? = nil, cache: RenderListCache? = nil,
                         particleLimits: ParticleLimits = ParticleLimits(), displayScale: Double = 1,
                         apps: AppPortals? = nil) -> DrawList {
        var list = DrawList(width: width, height: height, background: background)
        list.commands.reserveCapacity(layerCount + layerCount / 2)
        // Most frames have no transition in flight: then the walk does not look for one.
        let transitions = transitions?.isEmpty == false ? transitions : nil
        for entry in entries {
            let shown = presentation.client(entry.serial)
            // The render tree: departing layers (onOrderOut) put back where they were.
            let tree = shown.state.renderTree ?? entry.tree
            var walk = RenderWalk(tree: tree, serial: entry.serial, presentation: shown, transitions: transitions,
                                  rasters: rasters, outputRoots: outputRoots)
            walk.particleLimits = particleLimits
            walk.particlesLeft = particleLimits.perClient
            walk.clockTime = time
            walk.displayScale = displayScale > 0 && displayScale.isFinite ? displayScale : 1
            walk.viewport = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
            // Clients managing apps show app windows in their layers (RenderAppSurfaces.swift).
            if let apps, apps.managers.contains(entry.serial) { walk.apps = apps }
            if let cache, cache.memoizesParticles { walk.particleMemos = cache }
            if let cache, cache.isEnabled, let dynamic = RenderListCache.dynamicTops(in: tree, shown.state) {
                walk.cache = cache
                walk.dynamicTops = dynamic
                walk.version = RenderListCache.Version(tree: entry.changeCount, renderTree: shown.state.renderTreeChanges)
            }
            walk.visitRoot(time: time, into: &list.commands)
            if walk.visits > RenderWalk.maximumVisits { list.truncated.append(entry.serial) }
            list.liveEmitters += walk.liveEmitters
            list.appWindowsShown.formUnion(walk.appSurfacesDrawn)
            if walk.tiledLayers > 0 {
                var views = TileViews()
                views.views = walk.tileViews
                views.fading = walk.tileViewsFading
                list.tileViews[entry.serial] = views
            }
        }
        return list
    }
}

/// The per-frame draw budget, for messages and `stats`.
public enum RenderWalkBudget {
    public static var maximumVisits: Int { RenderWalk.maximumVisits }
}

/// One client tree's walk for one frame.
struct RenderWalk {
    let tree: ClientTree
    let serial: EntrySerial
    /// The client's presentation: animated layers' values, transitions in progress.
    let presentation: ClientPresentation
    /// The old renderings of transitions in progress (nil: none in flight, or a walk that
    /// draws none, such as a snapshot's).
    let transitions: TransitionSnapshots?
    /// Where static top-level subtrees' commands are kept (nil: walk everything).
    var cache: RenderListCache?
    /// Where emitter layers keep their birth values between frames (`RenderListCache`), or nil.
    var particleMemos: RenderListCache?
    /// The root's sublayers whose subtrees animate.
    var dynamicTops: Set<LayerID> = []
    /// The entry's tree and render tree versions, which kept commands must match.
    var version = RenderListCache.Version(tree: 0, renderTree: 0)
    /// True until the root's own sublayers are visited (the only level the cache serves).
    var rootSublayersPending = false
    /// Shape and text layers that asked for a raster while a subtree was being kept.
    var rasterLayers: [LayerID]?
    let rasters: (any LayerRasterizing)?
    /// True while walking a replicator copy shown at a delayed time.
    var delayed = false
    /// Layers visited so far in this frame; replicator copies count once each.
    var visits = 0
    /// The most layer draws one client's tree makes in a frame: nested replicators multiply
    /// (10⁴ × 10⁴ copies from a 574-byte commit), so the walk stops here and the frame is drawn
    /// with what was listed (`DrawList.truncated`; logged and counted by the compositor).
    static let maximumVisits = 100_000
    /// The masks being drawn, outermost first: a mask met again is a cycle and is left out.
    var masksInUse: [UInt32] = []
    /// Particles the walk may still list for this client, and per emitter layer.
    var particleLimits = ParticleLimits()
    var particlesLeft = ParticleLimits().perClient
    /// Emitter layers visited whose cells shed (their subtrees are never kept by the cache).
    var liveEmitters = 0
    /// Tiled layers drawn (a subtree with one is walked every frame), what they showed and
    /// wanted, whether a tile was fading in, the clock the fades run on, and the display's
    /// rectangle (what is in view).
    var tiledLayers = 0
    var tileViews: [TileViews.View] = []
    var tileViewsFading = false
    var clockTime = 0.0
    var viewport = Rect.zero
    /// App windows that layers of this tree show (`appSurface`), and what draws them; a
    /// subtree showing one is walked every frame (the app's layers change on their own).
    var apps: AppPortals?
    var appSurfacesDrawn: Set<UInt32> = []
    /// Layers that drew an app window so far (each one counts: the cache must not keep any).
    var appSurfaceDraws = 0
    /// Pixels per display point on the densest output (tiles are chosen for it).
    var displayScale = 1.0
    /// Commands the walk may still sort against the clips around them (`ClipPartition`): each
    /// clip scans what it encloses, so nested clips would scan a subtree once per level;
    /// past this, clips are kept whole.
    var clipPartitionBudget = 4 * RenderWalk.maximumVisits

    /// How deep masks may nest (a mask's sublayer with a mask of its own, …).
    static let maximumMaskDepth = 8
    /// `ModelTree.outputRoots`: the root's sublayers named after an output are moved to it.
    let outputRoots: [String: Rect]

    func properties(of id: LayerID, _ layer: ServerLayer, parentTime: Double) -> (LayerProperties, Double) {
        let m = layer.properties
        let local = (parentTime - m.beginTime) * m.speed + m.timeOffset
        return (presentation.properties(id, model: m, localTime: local, delayed: delayed), local)
    }

    mutating func visitRoot(time: Double, into commands: inout [DrawCommand]) {
        guard let root = tree[.root] else { return }
        let (p, local) = properties(of: .root, root, parentTime: time)
        // The root's sublayers are visited by the root's own visitSublayers, first (its mask, if
        // any, comes after them); a transform or replicator root places them otherwise.
        rootSublayersPending = cache != nil && p.kind != .transform && p.kind != .replicator
        visit(.root, root, p, localTime: local, superlayerSpace: .identity, superlayerToDisplay: .identity,
              parentOpacity: 1, tint: nil, into: &commands)
    }

    /// Lists the commands of a layer whose presentation values `p` (at its local time) are known.
    ///
    /// - Parameters:
    ///   - superlayerSpace: the superlayer's geometry flip and `sublayerTransform` about its
    ///     anchor (and, in a replicator, the copy's instance transform; in a transform layer,
    ///     the transform layer's own transform): what takes the layer into the 3D space of the
    ///     plane it is flattened into.
    ///   - superlayerToDisplay: that plane to the display, z already flattened.
    ///   - parentOpacity: the opacity accumulated since the enclosing offscreen group (or the
    ///     display).
    ///   - tint: the replicator instance colour the layer's colours are multiplied by, if any.
    mutating func visit(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                        superlayerSpace: Transform3D, superlayerToDisplay: Transform3D,
                        parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        visits += 1
        guard visits <= Self.maximumVisits else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }
        let inSuperlayer = superlayerSpace.isIdentity
            ? p.transformToSuperlayer : p.transformToSuperlayer.concatenating(superlayerSpace)
        // Facing is decided in the superlayer's 3D space, where Core Animation flattens the layer.
        if !p.isDoubleSided, !inSuperlayer.facesViewer { return }
        if p.kind == .transform {
            visitTransformLayer(layer, p, localTime: localTime, inSuperlayer: inSuperlayer,
                                superlayerToDisplay: superlayerToDisplay, opacity: opacity, tint: tint, into: &commands)
            return
        }
        let toDisplay = superlayerToDisplay.isIdentity ? inSuperlayer : inSuperlayer.concatenating(superlayerToDisplay)
        if let transition = transition(of: id) {
            drawTransition(transition, id, layer, p, localTime: localTime, toDisplay: toDisplay,
                           parentOpacity: parentOpacity, tint: tint, into: &commands)
        } else {
            draw(id, layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: parentOpacity, tint: tint, into: &commands)
        }
    }
}
