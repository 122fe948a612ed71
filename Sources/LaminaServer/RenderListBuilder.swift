import LaminaCore
import LaminaProtocol

/// The presentation tree as the render walk reads it: a value handed to the walk, not callbacks
/// into the compositor. For each client tree, its animated layers (`DisplayTree.AnimatedLayer`:
/// the presentation values the frame's tick left, the animation list, the transition in progress
/// and the old rendering it shows); every other layer shows its model values.
public struct PresentationTree: Sendable {
    /// Per entry of `DisplayTree.entries`, in order.
    var animated: [[LayerID: DisplayTree.AnimatedLayer]]
    /// Evaluate each animated layer's animations at its local time (a snapshot taken between
    /// frames) instead of using the values the last tick left.
    var evaluates: Bool
    /// Draw transitions in progress.
    var drawsTransitions: Bool

    /// The model tree: nothing animated.
    public static let model = PresentationTree(animated: [], evaluates: false, drawsTransitions: false)

    /// The frame's presentation tree, as the compositor's tick left it.
    public init(ticked animated: [[LayerID: DisplayTree.AnimatedLayer]], transitions: Bool) {
        self.init(animated: animated, evaluates: false, drawsTransitions: transitions)
    }

    /// The presentation tree evaluated at each layer's local time (for a snapshot between frames).
    public init(evaluating animated: [[LayerID: DisplayTree.AnimatedLayer]]) {
        self.init(animated: animated, evaluates: true, drawsTransitions: false)
    }

    init(animated: [[LayerID: DisplayTree.AnimatedLayer]], evaluates: Bool, drawsTransitions: Bool) {
        self.animated = animated
        self.evaluates = evaluates
        self.drawsTransitions = drawsTransitions
    }

    /// Layer `id` of entry `entry`, whose model values are `model`, at `localTime`; `delayed`
    /// for a replicator copy shown at an earlier time than the frame's (evaluated, without events).
    func properties(entry: Int, _ id: LayerID, model: LayerProperties, localTime: Double, delayed: Bool) -> LayerProperties {
        guard entry < animated.count, let a = animated[entry][id] else { return model }
        guard delayed || evaluates else { return a.presentation }
        var animations = a.animations
        var ignored: [AnimationEvent] = []
        return animations.evaluate(model: model, time: localTime, events: &ignored).properties
    }

    /// The transition in progress on layer `id` of entry `entry`, if any.
    func transition(entry: Int, _ id: LayerID) -> ActiveTransition? {
        guard drawsTransitions, entry < animated.count, let a = animated[entry][id], let state = a.transition,
              let snapshot = a.transitionSnapshot else { return nil }
        return ActiveTransition(state: state, snapshot: snapshot)
    }
}

/// A transition being drawn on a layer: how far it has got, and the layer's old rendering.
public struct ActiveTransition: Sendable {
    public var state: TransitionState
    /// The layer and its subtree as they were drawn when the transition was added, in the
    /// layer's own coordinates (`DisplayTree.snapshot`).
    public var snapshot: [DrawCommand]

    public init(state: TransitionState, snapshot: [DrawCommand]) {
        self.state = state
        self.snapshot = snapshot
    }
}

extension DisplayTree {
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
    public func drawList(at time: Double = 0, presentation: PresentationTree = .model,
                         rasters: (any LayerRasterizing)? = nil, cache: RenderListCache? = nil) -> DrawList {
        var list = DrawList(width: width, height: height, background: background)
        list.commands.reserveCapacity(layerCount + layerCount / 2)
        for (i, entry) in entries.enumerated() {
            // renderTree: departing layers (onOrderOut) put back where they were.
            let tree = entry.renderTree ?? entry.tree
            var walk = RenderWalk(tree: tree, entry: i, serial: entry.serial, presentation: presentation,
                                  rasters: rasters, outputRoots: outputRoots)
            if let cache, cache.isEnabled, let dynamic = entry.dynamicTops(in: tree) {
                walk.cache = cache
                walk.dynamicTops = dynamic
                walk.changeCount = entry.changeCount
            }
            walk.visitRoot(time: time, into: &list.commands)
            if walk.visits > RenderWalk.maximumVisits { list.truncated.append(entry.serial) }
        }
        return list
    }

    /// The commands that draw layer `id` of entry `i` and its subtree, with presentation
    /// values `p` at its local time `localTime`, in the layer's own coordinates (its transform
    /// to the display taken as the identity) and at full opacity above it: what a transition
    /// keeps of the layer's old appearance.
    /// A shape or text layer in the snapshot draws its current raster from `rasters`.
    public func snapshot(entry i: Int, layer id: LayerID, properties p: LayerProperties, localTime: Double,
                         rasters: (any LayerRasterizing)? = nil, presentation: PresentationTree) -> [DrawCommand] {
        let entry = entries[i]
        let tree = entry.renderTree ?? entry.tree
        guard let layer = tree[id] else { return [] }
        var commands: [DrawCommand] = []
        var walk = RenderWalk(tree: tree, entry: i, serial: entry.serial, presentation: presentation, rasters: rasters, outputRoots: [:])
        walk.draw(id, layer, p, localTime: localTime, toDisplay: .identity, parentOpacity: 1, tint: nil, into: &commands)
        return commands
    }
}

/// The per-frame draw budget, for messages and `stats`.
public enum RenderWalkBudget {
    public static var maximumVisits: Int { RenderWalk.maximumVisits }
}

/// One client tree's walk for one frame.
private struct RenderWalk {
    let tree: ClientTree
    let entry: Int
    let serial: UInt32
    let presentation: PresentationTree
    /// Where static top-level subtrees' commands are kept (nil: walk everything).
    var cache: RenderListCache?
    /// The root's sublayers whose subtrees animate.
    var dynamicTops: Set<LayerID> = []
    /// The entry's `changeCount`, which kept commands must match.
    var changeCount: UInt64 = 0
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

    /// How deep masks may nest (a mask's sublayer with a mask of its own, …).
    static let maximumMaskDepth = 8
    /// `DisplayTree.outputRoots`: the root's sublayers named after an output are moved to it.
    let outputRoots: [String: Rect]

    func properties(of id: LayerID, _ layer: ServerLayer, parentTime: Double) -> (LayerProperties, Double) {
        let m = layer.properties
        let local = (parentTime - m.beginTime) * m.speed + m.timeOffset
        return (presentation.properties(entry: entry, id, model: m, localTime: local, delayed: delayed), local)
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
        if let transition = presentation.transition(entry: entry, id) {
            drawTransition(transition, id, layer, p, localTime: localTime, toDisplay: toDisplay,
                           parentOpacity: parentOpacity, tint: tint, into: &commands)
        } else {
            draw(id, layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: parentOpacity, tint: tint, into: &commands)
        }
    }

    /// Lists the commands of a layer placed by `toDisplay`: its shadows, background, gradient,
    /// contents, sublayers and border, in a group when its opacity, shadow or mask needs one.
    mutating func draw(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double, toDisplay: Transform3D,
                       parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }

        let bounds = p.bounds
        let hasArea = bounds.size.width > 0 && bounds.size.height > 0
        let hasSublayers = !layer.sublayers.isEmpty
        let radii = hasArea && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: bounds.size) : .zero
        let background = p.backgroundColor.tinted(by: tint)
        let borderColor = p.borderColor.tinted(by: tint)
        let fillVisible = hasArea && background.alpha > 0
        let borderVisible = hasArea && p.borderWidth > 0 && borderColor.alpha > 0
        var gradient = p.kind == .gradient && hasArea ? DrawGradient(p, bounds: bounds) : nil
        if let t = tint, var g = gradient {
            g.colors = g.colors.map { $0.tinted(by: t) }
            gradient = g
        }
        if let g = gradient, !g.colors.contains(where: { $0.alpha > 0 }) { gradient = nil }
        if p.kind == .shape || p.kind == .text { rasterLayers?.append(id) }
        let contents = p.kind == .shape || p.kind == .text
            ? rasterDraw(id, p, toDisplay: toDisplay, radii: radii) : contentsDraw(p, radii: radii)

        // The mask: a layer of the same client outside the sublayer tree (validated when set).
        var maskLayer: (id: LayerID, layer: ServerLayer)?
        if p.mask != 0, !masksInUse.contains(p.mask), masksInUse.count < Self.maximumMaskDepth,
           let m = tree[LayerID(rawValue: p.mask)] {
            maskLayer = (LayerID(rawValue: p.mask), m)
        }
        // The fast path for the commonest mask, a plain rounded rectangle of one alpha with no
        // sublayers, over a layer that draws in one pass (no sublayers, no gradient): it masks
        // exactly like a clip to its rounded bounds times that alpha, so nothing is drawn
        // offscreen. (Over several draws, clipping each one would let the lower ones show
        // through the antialiased edge, so those take the offscreen mask.)
        var maskClip: DrawCommand?
        var maskAlpha = 1.0
        if let m = maskLayer, m.layer.sublayers.isEmpty, !hasSublayers, gradient == nil, contents == nil {
            let (mp, _) = properties(of: m.id, m.layer, parentTime: localTime)
            let uniform = mp.borderWidth <= 0 || mp.borderColor.alpha == 0 || mp.borderColor.alpha == mp.backgroundColor.alpha
            let shadowless = mp.shadowOpacity <= 0 || mp.shadowColor.alpha == 0 || mp.masksToBounds
            if mp.kind == .layer, mp.contents == 0, mp.mask == 0, uniform, shadowless {
                let inPlane = mp.transformToSuperlayer
                let faces = mp.isDoubleSided || inPlane.facesViewer
                let area = mp.bounds.size.width > 0 && mp.bounds.size.height > 0
                maskAlpha = mp.isHidden || !faces || !area ? 0 : Swift.max(0, mp.backgroundColor.alpha * mp.opacity)
                guard maskAlpha > 0 else { return }
                let r = mp.cornerRadius > 0 ? CornerRadii(radius: mp.cornerRadius, mask: mp.maskedCorners, size: mp.bounds.size) : .zero
                maskClip = DrawCommand(kind: .pushClip, transform: inPlane.concatenating(toDisplay.flatteningZ),
                                       bounds: mp.bounds, cornerRadii: r)
            }
        }

        // Core Animation clips a layer's own shadow with masksToBounds, which leaves nothing
        // outside the bounds to see: no shadow then.
        var shadow: DrawShadow?
        if p.shadowOpacity > 0, p.shadowColor.alpha > 0, !p.masksToBounds {
            shadow = DrawShadow(color: p.shadowColor.tinted(by: tint), opacity: p.shadowOpacity,
                                offset: p.shadowOffset, radius: p.shadowRadius)
        }
        // shadowPath: the shadow is the path's shape, whatever the layer draws.
        var pathShadow: DrawCommand?
        if let s = shadow, !p.shadowPath.elements.isEmpty {
            var c = DrawCommand(kind: .pathShadow, transform: toDisplay, bounds: bounds, opacity: opacity, shadow: s)
            c.polygons = p.shadowPath.fillPolygons()
            pathShadow = c.polygons.isEmpty ? nil : c
            shadow = nil
        }
        // The fast path: a layer that is only a rounded rectangle of one alpha casts the
        // analytically blurred rectangle. The alpha is uniform unless a border sits over a
        // translucent fill (the ring is then more opaque than the inside) or a gradient or a
        // mask changes it.
        var shapeShadow: DrawShadow?
        if var s = shadow, !hasSublayers, contents == nil, fillVisible, maskLayer == nil,
           !borderVisible && gradient == nil || background.alpha == 1 {
            s.opacity *= background.alpha
            shapeShadow = s
            shadow = nil
        }
        // A translucent gradient layer with a background or border composites its own content
        // as one, like any layer's pixels (two draws at the opacity would show through).
        let ownContentOverlaps = (gradient != nil || contents != nil) && (fillVisible || borderVisible) && opacity < 1
        let maskNeedsGroup = maskLayer != nil && (maskClip == nil || maskAlpha < 1)
        let needsGroup = shadow != nil || maskNeedsGroup || ownContentOverlaps
            || (hasSublayers && p.allowsGroupOpacity && p.opacity < 1)
        let groupOpacity = opacity * maskAlpha
        // A masked layer that also casts a shadow of its pixels: the shadow's group holds the
        // mask's group, so the shadow is cast by the masked pixels.
        let twoGroups = maskLayer != nil && maskClip == nil && shadow != nil
        // Inside a group the layer draws at full opacity; the group is composited with it.
        let inner = needsGroup ? 1 : opacity

        if let pathShadow { commands.append(pathShadow) }
        if let shapeShadow {
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: bounds, opacity: opacity,
                                        cornerRadii: radii, shadow: shapeShadow))
        }
        let groupStart = commands.count
        if needsGroup {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: bounds,
                                        opacity: twoGroups ? opacity : groupOpacity, shadow: shadow))
        }
        if twoGroups {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: bounds, opacity: 1))
        }
        let contentStart = commands.count
        if let maskClip { commands.append(maskClip) }
        // The border goes above the gradient, contents and sublayers.
        let borderAbove = (hasSublayers || gradient != nil || contents != nil) && borderVisible
        if fillVisible || (borderVisible && !borderAbove) {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds,
                                        color: fillVisible ? background : .clear, opacity: inner,
                                        cornerRadii: radii, borderWidth: borderVisible && !borderAbove ? p.borderWidth : 0,
                                        borderColor: borderColor))
        }
        if let gradient {
            commands.append(DrawCommand(kind: .gradient, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, gradient: gradient))
        }
        if let contents {
            commands.append(DrawCommand(kind: .contents, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, contents: contents))
        }
        if hasSublayers, hasArea || !p.masksToBounds {
            let clipStart = commands.count
            if p.masksToBounds {
                commands.append(DrawCommand(kind: .pushClip, transform: toDisplay, bounds: bounds, cornerRadii: radii))
            }
            visitSublayers(of: layer, p, localTime: localTime, toDisplay: toDisplay, opacity: inner, tint: tint, into: &commands)
            if p.masksToBounds {
                if commands.count == clipStart + 1 { commands.removeLast() } else { commands.append(DrawCommand(kind: .popClip)) }
            }
        }
        if borderAbove {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, borderWidth: p.borderWidth, borderColor: borderColor))
        }
        if maskClip != nil {
            if commands.count == contentStart + 1 {
                commands.removeSubrange(groupStart...)
                return
            }
            commands.append(DrawCommand(kind: .popClip))
        } else if let maskLayer {
            // Nothing drawn, or a mask that draws nothing (which hides everything): no group.
            guard commands.count > contentStart else {
                commands.removeSubrange(groupStart...)
                return
            }
            commands.append(DrawCommand(kind: .beginMask, transform: toDisplay, bounds: bounds))
            let maskStart = commands.count
            // The mask sits in the masked layer's bounds coordinates like a sublayer, but
            // without the sublayer transform; its own opacity counts, no replicator tint does.
            let (mp, mt) = properties(of: maskLayer.id, maskLayer.layer, parentTime: localTime)
            masksInUse.append(p.mask)
            visit(maskLayer.id, maskLayer.layer, mp, localTime: mt, superlayerSpace: .identity, superlayerToDisplay: toDisplay.flatteningZ,
                  parentOpacity: 1, tint: nil, into: &commands)
            masksInUse.removeLast()
            guard commands.count > maskStart else {
                commands.removeSubrange(groupStart...)
                return
            }
            commands.append(DrawCommand(kind: .endMask))
            if twoGroups { commands.append(DrawCommand(kind: .endGroup)) }
            return
        }
        if needsGroup {
            if commands.count == groupStart + 1 {
                commands.removeLast()
            } else if shadow == nil, commands.count == groupStart + 2,
                      [.layer, .gradient, .contents].contains(commands[groupStart + 1].kind) {
                // One draw in a group is the same draw with the group's opacity: no offscreen pass.
                var only = commands.removeLast()
                commands.removeLast()
                only.opacity *= groupOpacity
                commands.append(only)
            } else {
                commands.append(DrawCommand(kind: .endGroup))
            }
        }
    }

    /// The layer's `contents` as a textured draw: nil when it names no image, or an image the
    /// client has destroyed (a layer showing a destroyed image draws no contents), or when the
    /// image would land on nothing.
    private func contentsDraw(_ p: LayerProperties, radii: CornerRadii) -> DrawContents? {
        guard p.contents != 0, let source = tree.images[p.contents] ?? tree.videos[p.contents]?.image else { return nil }
        let g = DrawContents.layout(bounds: p.bounds, imageWidth: source.width, imageHeight: source.height,
                                    contentsRect: p.contentsRect, contentsCenter: p.contentsCenter,
                                    gravity: p.contentsGravity, scale: p.contentsScale)
        guard g.destination.width > 0, g.destination.height > 0, g.sourceRect.width != 0, g.sourceRect.height != 0 else { return nil }
        // Core Animation clips contents to the rounded bounds only with masksToBounds; the corner
        // radius alone rounds the background and border.
        let clip: (rect: Rect, radii: CornerRadii)? = p.masksToBounds ? (p.bounds, radii) : nil
        if let clip, !(clip.rect.width > 0 && clip.rect.height > 0) { return nil }
        return DrawContents(source: source, destination: g.destination, destinationInsets: g.destinationInsets,
                            sourceRect: g.sourceRect, sourceInsets: g.sourceInsets,
                            minificationFilter: p.minificationFilter, magnificationFilter: p.magnificationFilter,
                            isOpaque: p.isOpaque, clip: clip)
    }

    /// A shape or text layer's raster as a textured draw, clipped like contents.
    private func rasterDraw(_ id: LayerID, _ p: LayerProperties, toDisplay: Transform3D, radii: CornerRadii) -> DrawContents? {
        guard let rasters, var draw = rasters.contents(tree: serial, layer: id, p, toDisplay: toDisplay) else { return nil }
        if p.masksToBounds {
            guard p.bounds.width > 0, p.bounds.height > 0 else { return nil }
            draw = DrawContents(source: draw.source, destination: draw.destination, minificationFilter: draw.minificationFilter,
                                magnificationFilter: draw.magnificationFilter, clip: (p.bounds, radii))
        }
        return draw
    }


    /// The sublayers' presentation values at their superlayer's local time `time`, in drawing
    /// order (zPosition, then array order; zPosition may be animated, so presentation values).
    private func orderedSublayers(of layer: ServerLayer, time: Double) -> [(id: LayerID, layer: ServerLayer, props: LayerProperties, time: Double)] {
        var children: [(id: LayerID, layer: ServerLayer, props: LayerProperties, time: Double)] = []
        children.reserveCapacity(layer.sublayers.count)
        var anyZ = false
        for id in layer.sublayers {
            guard let c = tree[id] else { continue }
            let (cp, ct) = properties(of: id, c, parentTime: time)
            anyZ = anyZ || cp.zPosition != 0
            children.append((id, c, cp, ct))
        }
        if anyZ {
            children = children.enumerated().sorted { a, b in
                a.element.props.zPosition != b.element.props.zPosition
                    ? a.element.props.zPosition < b.element.props.zPosition : a.offset < b.offset
            }.map(\.element)
        }
        return children
    }

    private mutating func visitSublayers(of layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                         toDisplay: Transform3D, opacity: Double, tint: Color?,
                                         into commands: inout [DrawCommand]) {
        let space = p.sublayerSpace
        let plane = toDisplay.flatteningZ
        guard p.kind == .replicator else {
            // The separate layout: a root's sublayer named after an output is that output's root.
            let perOutput = layer.superlayer == nil && !outputRoots.isEmpty
            let atRoot = rootSublayersPending
            rootSublayersPending = false
            for c in orderedSublayers(of: layer, time: localTime) {
                guard visits <= Self.maximumVisits else { break }
                var toPlane = plane
                if perOutput, let output = outputRoots[c.props.name] {
                    toPlane = plane.concatenating(.translation(x: output.minX, y: output.minY))
                }
                if atRoot, tint == nil, let cache, !dynamicTops.contains(c.id) {
                    let key = RenderListCache.Key(entry: serial, layer: c.id)
                    if var k = cache.kept[key], k.changeCount == changeCount, k.place == toPlane, k.space == space, k.opacity == opacity {
                        // Unchanged since it was kept: its commands again, its rasters kept.
                        commands += k.commands
                        visits += k.visits
                        if !k.rasterLayers.isEmpty { rasters?.keep(tree: serial, layers: k.rasterLayers) }
                        k.frame = cache.currentFrame
                        cache.kept[key] = k
                        cache.hit()
                        continue
                    }
                    let start = commands.count, visitsBefore = visits
                    rasterLayers = []
                    visit(c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space, superlayerToDisplay: toPlane,
                          parentOpacity: opacity, tint: tint, into: &commands)
                    cache.kept[key] = RenderListCache.Kept(changeCount: changeCount, place: toPlane, space: space, opacity: opacity,
                                                           commands: Array(commands[start...]), visits: visits - visitsBefore,
                                                           rasterLayers: rasterLayers ?? [], frame: cache.currentFrame)
                    rasterLayers = nil
                    cache.miss()
                    continue
                }
                visit(c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space, superlayerToDisplay: toPlane,
                      parentOpacity: opacity, tint: tint, into: &commands)
            }
            return
        }
        // CAReplicatorLayer: copy k of the sublayers through instanceTransform^k about the
        // anchor point, tinted by instanceColor + k · offsets, k · instanceDelay behind.
        let count = Swift.max(0, Swift.min(p.instanceCount, LayerProperties.instanceLimit))
        let a = p.anchorInBounds
        let toAnchor = Transform3D.translation(x: -a.x, y: -a.y), fromAnchor = Transform3D.translation(x: a.x, y: a.y)
        var power = Transform3D.identity
        let wasDelayed = delayed
        for k in 0..<count {
            guard visits <= Self.maximumVisits else { break }
            let instance = k == 0 ? space : toAnchor.concatenating(power).concatenating(fromAnchor).concatenating(space)
            let kk = Double(k)
            let c = p.instanceColor
            let color = Color(red: c.red + kk * p.instanceRedOffset, green: c.green + kk * p.instanceGreenOffset,
                              blue: c.blue + kk * p.instanceBlueOffset, alpha: c.alpha + kk * p.instanceAlphaOffset)
            let copyTint = tint.map { color.tinted(by: $0) } ?? color
            let shift = kk * p.instanceDelay
            delayed = wasDelayed || shift != 0
            if copyTint.alpha > 0 {
                for child in orderedSublayers(of: layer, time: localTime - shift) {
                    visit(child.id, child.layer, child.props, localTime: child.time, superlayerSpace: instance, superlayerToDisplay: plane,
                          parentOpacity: opacity, tint: copyTint == .white ? nil : copyTint, into: &commands)
                }
            }
            power = power.concatenating(p.instanceTransform)
        }
        delayed = wasDelayed
    }

    /// A `CATransformLayer`: it draws nothing of its own; its sublayers (and those of transform
    /// layers inside it) are placed in one 3D space instead of being flattened into its plane,
    /// and drawn back to front by the depth of each one's centre. Each ordinary sublayer still
    /// flattens its own subtree. Planes that intersect are not split: the one whose centre is
    /// nearer wins everywhere.
    private mutating func visitTransformLayer(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                              inSuperlayer: Transform3D, superlayerToDisplay: Transform3D,
                                              opacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        var planes: [(depth: Double, commands: [DrawCommand])] = []
        collectPlanes(layer, p, localTime: localTime, inSuperlayer: inSuperlayer, superlayerToDisplay: superlayerToDisplay,
                      opacity: opacity, tint: tint, into: &planes)
        let sorted = planes.enumerated().sorted { x, y in
            x.element.depth != y.element.depth ? x.element.depth < y.element.depth : x.offset < y.offset
        }
        for plane in sorted { commands += plane.element.commands }
    }

    private mutating func collectPlanes(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                        inSuperlayer: Transform3D, superlayerToDisplay: Transform3D, opacity: Double,
                                        tint: Color?, into planes: inout [(depth: Double, commands: [DrawCommand])]) {
        let space = p.sublayerSpace
        let childSpace = space.isIdentity ? inSuperlayer : space.concatenating(inSuperlayer)
        for c in orderedSublayers(of: layer, time: localTime) {
            let cp = c.props
            if cp.kind == .transform {
                guard !cp.isHidden, opacity * cp.opacity > 0 else { continue }
                let nested = cp.transformToSuperlayer.concatenating(childSpace)
                if !cp.isDoubleSided, !nested.facesViewer { continue }
                collectPlanes(c.layer, cp, localTime: c.time, inSuperlayer: nested, superlayerToDisplay: superlayerToDisplay,
                              opacity: opacity * cp.opacity, tint: tint, into: &planes)
                continue
            }
            var drawn: [DrawCommand] = []
            visit(c.id, c.layer, cp, localTime: c.time, superlayerSpace: childSpace, superlayerToDisplay: superlayerToDisplay,
                  parentOpacity: opacity, tint: tint, into: &drawn)
            guard !drawn.isEmpty else { continue }
            let t = cp.transformToSuperlayer.concatenating(childSpace)
            let centre = Point(x: cp.bounds.midX, y: cp.bounds.midY)
            // Depth before any perspective of the plane below: z grows towards the viewer.
            let z = centre.x * t.m13 + centre.y * t.m23 + t.m43
            let w = centre.x * t.m14 + centre.y * t.m24 + t.m44
            planes.append((w > 0 ? z / w : -.infinity, drawn))
        }
    }
}

extension Color {
    /// This colour multiplied channel by channel by `tint` (a replicator's instance colour).
    func tinted(by tint: Color?) -> Color {
        guard let t = tint else { return self }
        return Color(red: red * t.red, green: green * t.green, blue: blue * t.blue, alpha: alpha * t.alpha)
    }
}

// MARK: - Transitions

extension RenderWalk {
    /// Draws a layer in transition (`CATransition`): its old rendering (the snapshot) and its
    /// current one. Fade cross-dissolves them (old × (1 − p) + new × p, in one group so the
    /// mix is composited over what lies below once); moveIn slides the new rendering in over
    /// the old; push slides both; reveal slides the old away over the new. Directions follow
    /// the subtype: `fromLeft` moves the content rightwards, `fromTop` downwards (y points
    /// down). The moving renderings are not clipped to the bounds, as in Core Animation.
    mutating func drawTransition(_ t: ActiveTransition, _ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                 toDisplay: Transform3D, parentOpacity: Double, tint: Color?, into commands: inout [DrawCommand]) {
        let progress = Swift.min(Swift.max(t.state.progress, 0), 1)
        let size = p.bounds.size
        // The unit vector the content moves along.
        let (ux, uy): (Double, Double) = switch t.state.subtype {
        case .fromLeft: (1, 0)
        case .fromRight: (-1, 0)
        case .fromTop: (0, 1)
        case .fromBottom: (0, -1)
        }
        func shift(_ k: Double) -> Transform3D {
            k == 0 ? toDisplay : Transform3D.translation(x: ux * size.width * k, y: uy * size.height * k, z: 0).concatenating(toDisplay)
        }
        func old(_ placed: Transform3D, opacity: Double, additive: Bool = false, into commands: inout [DrawCommand]) {
            guard opacity > 0, !t.snapshot.isEmpty else { return }
            let wrap = opacity < 1
            if wrap { commands.append(DrawCommand(kind: .beginGroup, transform: placed, bounds: p.bounds, opacity: opacity)) }
            for var c in t.snapshot {
                if c.kind != .endGroup, c.kind != .popClip { c.transform = c.transform.concatenating(placed) }
                commands.append(c)
            }
            if wrap { commands.append(DrawCommand(kind: .endGroup)) }
        }
        switch t.state.type {
        case .fade:
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: p.bounds, opacity: parentOpacity))
            old(toDisplay, opacity: 1 - progress, into: &commands)
            if progress > 0 {
                var begin = DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: p.bounds, opacity: progress)
                begin.compositesAdditively = true
                commands.append(begin)
                draw(id, layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: 1, tint: tint, into: &commands)
                commands.append(DrawCommand(kind: .endGroup))
            }
            commands.append(DrawCommand(kind: .endGroup))
        case .moveIn:
            old(toDisplay, opacity: parentOpacity, into: &commands)
            draw(id, layer, p, localTime: localTime, toDisplay: shift(progress - 1), parentOpacity: parentOpacity, tint: tint, into: &commands)
        case .push:
            old(shift(progress), opacity: parentOpacity, into: &commands)
            draw(id, layer, p, localTime: localTime, toDisplay: shift(progress - 1), parentOpacity: parentOpacity, tint: tint, into: &commands)
        case .reveal:
            draw(id, layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: parentOpacity, tint: tint, into: &commands)
            old(shift(progress), opacity: parentOpacity, into: &commands)
        }
    }
}

