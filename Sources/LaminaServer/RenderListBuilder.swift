import LaminaCore
import LaminaProtocol

/// Where the render list gets each layer's values: the presentation tree.
///
/// Called once per visible layer per frame with the layer's model values and its local time
/// (the display time mapped down the layer-time hierarchy: `t = (tp − beginTime) · speed + timeOffset`
/// at each layer). Returns the values to draw.
public typealias PresentationLookup = (_ entry: Int, _ layer: LayerID, _ model: LayerProperties, _ localTime: Double) -> LayerProperties

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

/// Where the render list finds the transition in progress on a layer, if any.
public typealias TransitionLookup = (_ entry: Int, _ layer: LayerID) -> ActiveTransition?

extension DisplayTree {
    /// The frame at display time `time`, with presentation values from `present` (the model
    /// values when nothing animates).
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
    /// A layer with a transition in progress (`transitions`) draws its old rendering and its
    /// current one, placed and faded as the transition's type, direction and progress say.
    public func drawList(at time: Double = 0, present: PresentationLookup = { _, _, model, _ in model },
                         transitions: TransitionLookup? = nil) -> DrawList {
        var list = DrawList(width: width, height: height, background: background)
        list.commands.reserveCapacity(layerCount + layerCount / 2)
        withoutActuallyEscaping(present) { present in
            for (i, entry) in entries.enumerated() {
                // renderTree: departing layers (onOrderOut) put back where they were.
                var walk = RenderWalk(tree: entry.renderTree ?? entry.tree, entry: i, present: present, transitions: transitions,
                                      outputRoots: outputRoots)
                walk.visitRoot(time: time, into: &list.commands)
            }
        }
        return list
    }

    /// The commands that draw layer `id` of entry `i` and its subtree, with presentation
    /// values `p` at its local time `localTime`, in the layer's own coordinates (its transform
    /// to the display taken as the identity) and at full opacity above it: what a transition
    /// keeps of the layer's old appearance.
    public func snapshot(entry i: Int, layer id: LayerID, properties p: LayerProperties, localTime: Double,
                         present: PresentationLookup) -> [DrawCommand] {
        let entry = entries[i]
        let tree = entry.renderTree ?? entry.tree
        guard let layer = tree[id] else { return [] }
        var commands: [DrawCommand] = []
        withoutActuallyEscaping(present) { present in
            var walk = RenderWalk(tree: tree, entry: i, present: present, transitions: nil, outputRoots: [:])
            walk.draw(layer, p, localTime: localTime, toDisplay: .identity, parentOpacity: 1, into: &commands)
        }
        return commands
    }
}

/// One client tree's walk for one frame.
private struct RenderWalk {
    let tree: ClientTree
    let entry: Int
    let present: PresentationLookup
    let transitions: TransitionLookup?
    /// `DisplayTree.outputRoots`: the root's sublayers named after an output are moved to it.
    let outputRoots: [String: Rect]

    func properties(of id: LayerID, _ layer: ServerLayer, parentTime: Double) -> (LayerProperties, Double) {
        let m = layer.properties
        let local = (parentTime - m.beginTime) * m.speed + m.timeOffset
        return (present(entry, id, m, local), local)
    }

    mutating func visitRoot(time: Double, into commands: inout [DrawCommand]) {
        guard let root = tree[.root] else { return }
        let (p, local) = properties(of: .root, root, parentTime: time)
        visit(.root, root, p, localTime: local, superlayerSpace: .identity, superlayerToDisplay: .identity,
              parentOpacity: 1, into: &commands)
    }

    /// Lists the commands of a layer whose presentation values `p` (at its local time) are known.
    ///
    /// - Parameters:
    ///   - superlayerSpace: the superlayer's geometry flip and `sublayerTransform` about its
    ///     anchor: what takes the layer into the superlayer's 3D space.
    ///   - superlayerToDisplay: the superlayer's plane to the display, z already flattened.
    ///   - parentOpacity: the opacity accumulated since the enclosing offscreen group (or the
    ///     display).
    mutating func visit(_ id: LayerID, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                        superlayerSpace: Transform3D, superlayerToDisplay: Transform3D,
                        parentOpacity: Double, into commands: inout [DrawCommand]) {
        guard !p.isHidden, parentOpacity * p.opacity > 0 else { return }
        let inSuperlayer = superlayerSpace.isIdentity
            ? p.transformToSuperlayer : p.transformToSuperlayer.concatenating(superlayerSpace)
        // Facing is decided in the superlayer's 3D space, where Core Animation flattens the layer.
        if !p.isDoubleSided, !inSuperlayer.facesViewer { return }
        let toDisplay = superlayerToDisplay.isIdentity ? inSuperlayer : inSuperlayer.concatenating(superlayerToDisplay)
        if let transition = transitions?(entry, id) {
            drawTransition(transition, layer, p, localTime: localTime, toDisplay: toDisplay,
                           parentOpacity: parentOpacity, into: &commands)
        } else {
            draw(layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: parentOpacity, into: &commands)
        }
    }

    /// Lists the commands of a layer placed by `toDisplay`: its shadow, background, sublayers
    /// and border, in a group when its opacity or shadow needs one.
    mutating func draw(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double, toDisplay: Transform3D,
                       parentOpacity: Double, into commands: inout [DrawCommand]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        // `!(x > 0)` also skips NaN.
        guard opacity > 0 else { return }

        let bounds = p.bounds
        let hasArea = bounds.size.width > 0 && bounds.size.height > 0
        let hasSublayers = !layer.sublayers.isEmpty
        let radii = hasArea && p.cornerRadius > 0
            ? CornerRadii(radius: p.cornerRadius, mask: p.maskedCorners, size: bounds.size) : .zero
        let fillVisible = hasArea && p.backgroundColor.alpha > 0
        let borderVisible = hasArea && p.borderWidth > 0 && p.borderColor.alpha > 0

        // Core Animation clips a layer's own shadow with masksToBounds, which leaves nothing
        // outside the bounds to see: no shadow then.
        var shadow: DrawShadow?
        if p.shadowOpacity > 0, p.shadowColor.alpha > 0, !p.masksToBounds {
            shadow = DrawShadow(color: p.shadowColor, opacity: p.shadowOpacity, offset: p.shadowOffset, radius: p.shadowRadius)
        }
        // The fast path: a layer that is only a rounded rectangle of one alpha casts the
        // analytically blurred rectangle. The alpha is uniform unless a border sits over a
        // translucent fill (the ring is then more opaque than the inside).
        var shapeShadow: DrawShadow?
        if var s = shadow, !hasSublayers, fillVisible, !borderVisible || p.backgroundColor.alpha == 1 {
            s.opacity *= p.backgroundColor.alpha
            shapeShadow = s
            shadow = nil
        }
        let needsGroup = shadow != nil || (hasSublayers && p.allowsGroupOpacity && p.opacity < 1)
        // Inside a group the layer draws at full opacity; the group is composited with it.
        let inner = needsGroup ? 1 : opacity

        if let shapeShadow {
            commands.append(DrawCommand(kind: .shadow, transform: toDisplay, bounds: bounds, opacity: opacity,
                                        cornerRadii: radii, shadow: shapeShadow))
        }
        let groupStart = commands.count
        if needsGroup {
            commands.append(DrawCommand(kind: .beginGroup, transform: toDisplay, bounds: bounds, opacity: opacity, shadow: shadow))
        }
        let borderAbove = hasSublayers && borderVisible
        if fillVisible || (borderVisible && !borderAbove) {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds,
                                        color: fillVisible ? p.backgroundColor : .clear, opacity: inner,
                                        cornerRadii: radii, borderWidth: borderVisible && !borderAbove ? p.borderWidth : 0,
                                        borderColor: p.borderColor))
        }
        if hasSublayers, hasArea || !p.masksToBounds {
            let clipStart = commands.count
            if p.masksToBounds {
                commands.append(DrawCommand(kind: .pushClip, transform: toDisplay, bounds: bounds, cornerRadii: radii))
            }
            visitSublayers(of: layer, p, localTime: localTime, toDisplay: toDisplay, opacity: inner, into: &commands)
            if p.masksToBounds {
                if commands.count == clipStart + 1 { commands.removeLast() } else { commands.append(DrawCommand(kind: .popClip)) }
            }
        }
        if borderAbove {
            commands.append(DrawCommand(kind: .layer, transform: toDisplay, bounds: bounds, opacity: inner,
                                        cornerRadii: radii, borderWidth: p.borderWidth, borderColor: p.borderColor))
        }
        if needsGroup {
            if commands.count == groupStart + 1 {
                commands.removeLast()
            } else if shadow == nil, commands.count == groupStart + 2, commands[groupStart + 1].kind == .layer {
                // One draw in a group is the same draw with the group's opacity: no offscreen pass.
                var only = commands.removeLast()
                commands.removeLast()
                only.opacity *= opacity
                commands.append(only)
            } else {
                commands.append(DrawCommand(kind: .endGroup))
            }
        }
    }

    private mutating func visitSublayers(of layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                         toDisplay: Transform3D, opacity: Double, into commands: inout [DrawCommand]) {
        var space = p.sublayerTransformAboutAnchor
        if p.isGeometryFlipped {
            // y' = minY + maxY − y: the sublayers' y axis runs up from the bottom of the bounds.
            let flip = Transform3D.scale(x: 1, y: -1).concatenating(.translation(x: 0, y: p.bounds.minY + p.bounds.maxY))
            space = space.isIdentity ? flip : flip.concatenating(space)
        }
        let plane = toDisplay.flatteningZ
        // Each child's presentation is computed once; zPosition may be animated, so siblings are
        // ordered by presentation values (stable: array order among equals).
        var children: [(id: LayerID, layer: ServerLayer, props: LayerProperties, time: Double)] = []
        children.reserveCapacity(layer.sublayers.count)
        var anyZ = false
        for id in layer.sublayers {
            guard let c = tree[id] else { continue }
            let (cp, ct) = properties(of: id, c, parentTime: localTime)
            anyZ = anyZ || cp.zPosition != 0
            children.append((id, c, cp, ct))
        }
        if anyZ {
            children = children.enumerated().sorted { a, b in
                a.element.props.zPosition != b.element.props.zPosition
                    ? a.element.props.zPosition < b.element.props.zPosition : a.offset < b.offset
            }.map(\.element)
        }
        // The separate layout: a root's sublayer named after an output is that output's root.
        let perOutput = layer.superlayer == nil && !outputRoots.isEmpty
        for c in children {
            var toPlane = plane
            if perOutput, let output = outputRoots[c.props.name] {
                toPlane = plane.concatenating(.translation(x: output.minX, y: output.minY))
            }
            visit(c.id, c.layer, c.props, localTime: c.time, superlayerSpace: space, superlayerToDisplay: toPlane,
                  parentOpacity: opacity, into: &commands)
        }
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
    mutating func drawTransition(_ t: ActiveTransition, _ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                                 toDisplay: Transform3D, parentOpacity: Double, into commands: inout [DrawCommand]) {
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
                draw(layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: 1, into: &commands)
                commands.append(DrawCommand(kind: .endGroup))
            }
            commands.append(DrawCommand(kind: .endGroup))
        case .moveIn:
            old(toDisplay, opacity: parentOpacity, into: &commands)
            draw(layer, p, localTime: localTime, toDisplay: shift(progress - 1), parentOpacity: parentOpacity, into: &commands)
        case .push:
            old(shift(progress), opacity: parentOpacity, into: &commands)
            draw(layer, p, localTime: localTime, toDisplay: shift(progress - 1), parentOpacity: parentOpacity, into: &commands)
        case .reveal:
            draw(layer, p, localTime: localTime, toDisplay: toDisplay, parentOpacity: parentOpacity, into: &commands)
            old(shift(progress), opacity: parentOpacity, into: &commands)
        }
    }
}

extension Transform3D {
    /// `F · self`, where F drops z: points of a plane rendered into this layer keep their x, y
    /// and w and lose their depth, as Core Animation flattens a layer's sublayers into it.
    var flatteningZ: Transform3D {
        var t = self
        t.m31 = 0; t.m32 = 0; t.m33 = 0; t.m34 = 0
        return t
    }

    /// Whether a layer mapped by this transform shows its front: the z of its normal (0, 0, 1)
    /// carried by the inverse transpose is positive, i.e. the inverse's m33 > 0 (as CSS decides
    /// `backface-visibility`). A mirror in x or y is not a back face; a half turn about y is.
    /// A singular transform shows nothing, so counts as facing away.
    var facesViewer: Bool {
        // m33 of the inverse is the (3,3) cofactor over the determinant; only signs matter.
        let cofactor33 = m11 * (m22 * m44 - m24 * m42) - m12 * (m21 * m44 - m24 * m41) + m14 * (m21 * m42 - m22 * m41)
        // The determinant by Laplace expansion along 2×2 minors of the first two rows.
        let s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14
        let s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14
        let c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33
        let c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
        guard det != 0, det.isFinite else { return false }
        return cofactor33 / det > 0
    }
}
