import LaminaCore
import LaminaProtocol

/// Where the render list gets each layer's values: the presentation tree.
///
/// Called once per visible layer per frame with the layer's model values and its local time
/// (the display time mapped down the layer-time hierarchy: `t = (tp − beginTime) · speed + timeOffset`
/// at each layer). Returns the values to draw.
public typealias PresentationLookup = (_ entry: Int, _ layer: LayerID, _ model: LayerProperties, _ localTime: Double) -> LayerProperties

extension DisplayTree {
    /// The frame at display time `time`, with presentation values from `present` (the model
    /// values when nothing animates).
    ///
    /// Walks the tree and lists the quads to draw, back to front. Each layer's transform to the
    /// display is its `transformToSuperlayer`, then its superlayer's `sublayerTransform` about
    /// the superlayer's anchor point, then the superlayer's own transform to the display.
    /// Opacity multiplies down the tree; a hidden layer hides its subtree. Siblings draw in
    /// zPosition order, then array order.
    public func drawList(at time: Double = 0, present: PresentationLookup = { _, _, model, _ in model }) -> DrawList {
        var list = DrawList(width: width, height: height, background: background)
        list.quads.reserveCapacity(layerCount)
        withoutActuallyEscaping(present) { present in
            for (i, entry) in entries.enumerated() {
                var walk = RenderWalk(tree: entry.tree, entry: i, present: present)
                walk.visitRoot(time: time, into: &list.quads)
            }
        }
        return list
    }
}

/// One client tree's walk for one frame.
private struct RenderWalk {
    let tree: ClientTree
    let entry: Int
    let present: PresentationLookup

    func properties(of id: LayerID, _ layer: ServerLayer, parentTime: Double) -> (LayerProperties, Double) {
        let m = layer.properties
        let local = (parentTime - m.beginTime) * m.speed + m.timeOffset
        return (present(entry, id, m, local), local)
    }

    mutating func visitRoot(time: Double, into quads: inout [DrawQuad]) {
        guard let root = tree[.root] else { return }
        let (p, local) = properties(of: .root, root, parentTime: time)
        visit(root, p, localTime: local, parentTransform: .identity, parentOpacity: 1, into: &quads)
    }

    /// Draws a layer whose presentation values `p` (at its local time) are already known.
    mutating func visit(_ layer: ServerLayer, _ p: LayerProperties, localTime: Double,
                        parentTransform: Transform3D, parentOpacity: Double, into quads: inout [DrawQuad]) {
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        guard opacity > 0 else { return }
        let toDisplay = p.transformToSuperlayer.concatenating(parentTransform)
        if p.backgroundColor.alpha > 0, p.bounds.size.width > 0, p.bounds.size.height > 0 {
            quads.append(DrawQuad(transform: toDisplay, bounds: p.bounds, color: p.backgroundColor, opacity: opacity))
        }
        guard !layer.sublayers.isEmpty else { return }
        let sublayerTransform = p.sublayerTransformAboutAnchor
        let childParent = sublayerTransform.isIdentity ? toDisplay : sublayerTransform.concatenating(toDisplay)
        // Each child's presentation is computed once; zPosition may be animated, so siblings are
        // ordered by presentation values (stable: array order among equals).
        var children: [(layer: ServerLayer, props: LayerProperties, time: Double)] = []
        children.reserveCapacity(layer.sublayers.count)
        var anyZ = false
        for id in layer.sublayers {
            guard let c = tree[id] else { continue }
            let (cp, ct) = properties(of: id, c, parentTime: localTime)
            anyZ = anyZ || cp.zPosition != 0
            children.append((c, cp, ct))
        }
        if anyZ {
            children = children.enumerated().sorted { a, b in
                a.element.props.zPosition != b.element.props.zPosition
                    ? a.element.props.zPosition < b.element.props.zPosition : a.offset < b.offset
            }.map(\.element)
        }
        for c in children {
            visit(c.layer, c.props, localTime: c.time, parentTransform: childParent, parentOpacity: opacity, into: &quads)
        }
    }
}
