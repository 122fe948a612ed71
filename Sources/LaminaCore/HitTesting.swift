/// A layer tree as hit testing and point conversion see it. laminad tests its presentation
/// tree (what is on screen, mid-animation); the client library tests its model tree, as
/// `CALayer.hitTest(_:)` does when called on a model layer.
public protocol HitTestTree {
    associatedtype Node
    /// The values to test a layer with, its local time (which its sublayers' values are taken
    /// at), given its superlayer's local time, and its sublayers back to front in array order;
    /// nil when the layer does not exist.
    func values(of node: Node, parentTime: Double) -> (properties: HitGeometry, time: Double, sublayers: [Node])?
    /// An extra translation of a sublayer's plane in its superlayer's (laminad's per-output
    /// roots); nil for none.
    func planeOffset(of sublayer: Node, _ properties: HitGeometry, under superlayer: Node) -> Point?
}

extension HitTestTree {
    @inlinable public func planeOffset(of sublayer: Node, _ properties: HitGeometry, under superlayer: Node) -> Point? { nil }
}

/// A layer found under a point.
public struct Hit<Node> {
    public var node: Node
    @inlinable init(node: Node, location: Point, toDisplay: Transform3D) {
        self.node = node
        self.location = location
        self.toDisplay = toDisplay
    }
    /// The point in the layer's own (bounds) coordinates.
    public var location: Point
    /// The layer's bounds coordinates to the tested space (the display for laminad), as drawn.
    public var toDisplay: Transform3D
}

/// Core Animation's `hitTest(_:)`, with the same geometry as the renderer.
///
/// - The point goes through each layer's whole transform chain: anchor point, `transform`,
///   position, the superlayer's geometry flip and `sublayerTransform` (m34 perspective
///   included), each ordinary layer flattening its sublayers into its plane.
/// - A hidden layer, a layer with `isUserInteractionEnabled` false, and a layer with
///   `isDoubleSided` false that faces away are skipped with their subtrees.
/// - A layer with `masksToBounds` hits nothing of its subtree outside its bounds.
/// - A layer is hit where `contains(_:)` holds: its bounds, half-open ([minX, maxX)).
/// - Sublayers are tested before their superlayer, the front-most first: higher zPosition,
///   then later in the array.
/// - As in Core Animation, opacity does not matter (a layer at opacity 0 is hit; hide it, or
///   turn off `isUserInteractionEnabled`), a `mask` does not clip hits, and corner radii do not
///   round the bounds.
/// - A replicator's copies are pictures, not layers: only its sublayers themselves (copy 0)
///   are hit.
/// - A transform layer is never hit itself (it has no plane). Its sublayers share its 3D
///   space; where several are hit, the one drawn in front wins: the nearer centre, as the
///   renderer orders them.
public struct HitTester<Tree: HitTestTree> {
    public let tree: Tree
    @usableFromInline var visits = 0
    /// Layers tested per call (per tree: laminad tests each client's tree with its own tester)
    /// at most; client trees are bounded anyway by their layer budgets.
    @inlinable public static var maximumVisits: Int { 200_000 }
    /// How deep the walk goes (trees are shallower: laminad's depth budget is far below this).
    @inlinable public static var maximumDepth: Int { 4096 }

    @inlinable public init(tree: Tree) { self.tree = tree }

    /// The front-most layer under `point` among `root` and its subtree, with `point` in the
    /// root's superlayer space (laminad: display points). `rootIsTarget` false makes `root`
    /// itself transparent (laminad's per-client root layers), its subtree still tested.
    /// `superlayerSpace`: the root's superlayer's geometry flip and sublayer transform
    /// (`LayerProperties.sublayerSpace`), when the root has a superlayer.
    @inlinable public mutating func hitTest(_ point: Point, root: Tree.Node, time: Double = 0, rootIsTarget: Bool = true,
                                 superlayerSpace: Transform3D = .identity) -> Hit<Tree.Node>? {
        visits = 0
        guard let (p, local, subs) = tree.values(of: root, parentTime: time) else { return nil }
        return visit(root, p, time: local, sublayers: subs, point: point, superlayerSpace: superlayerSpace, superlayerToDisplay: .identity,
                     depth: 0, targetable: rootIsTarget)
    }

    @inlinable mutating func visit(_ node: Tree.Node, _ p: HitGeometry, time: Double, sublayers: [Tree.Node], point: Point,
                                superlayerSpace: Transform3D, superlayerToDisplay: Transform3D,
                                depth: Int, targetable: Bool = true) -> Hit<Tree.Node>? {
        guard !p.isHidden, p.isUserInteractionEnabled, depth < Self.maximumDepth else { return nil }
        visits += 1
        guard visits <= Self.maximumVisits else { return nil }
        let inSuperlayer = superlayerSpace.isIdentity
            ? p.transformToSuperlayer : p.transformToSuperlayer.concatenating(superlayerSpace)
        if !p.isDoubleSided, !inSuperlayer.facesViewer { return nil }
        if p.kind == .transform {
            return hitTransformLayer(node, p, time: time, sublayers: sublayers, point: point, inSuperlayer: inSuperlayer,
                                     superlayerToDisplay: superlayerToDisplay, depth: depth).map(\.hit)
        }
        let toDisplay = superlayerToDisplay.isIdentity ? inSuperlayer : inSuperlayer.concatenating(superlayerToDisplay)
        let local = toDisplay.unproject(point)
        let inside = local.map { p.bounds.containsHalfOpen($0) } ?? false
        if p.masksToBounds, !inside { return nil }
        let space = p.sublayerSpace
        let plane = toDisplay.flatteningZ
        for (child, cp, ct, cs) in frontToBack(sublayers, time: time) {
            var toPlane = plane
            if let offset = tree.planeOffset(of: child, cp, under: node) {
                toPlane = plane.concatenating(.translation(x: offset.x, y: offset.y))
            }
            if let hit = visit(child, cp, time: ct, sublayers: cs, point: point, superlayerSpace: space, superlayerToDisplay: toPlane,
                               depth: depth + 1) {
                return hit
            }
            if visits > Self.maximumVisits { return nil }
        }
        guard targetable, inside, let local else { return nil }
        return Hit(node: node, location: local, toDisplay: toDisplay)
    }

    /// The sublayers front-most first: zPosition descending, then later in the array first.
    @inlinable func frontToBack(_ sublayers: [Tree.Node], time: Double) -> [(Tree.Node, HitGeometry, Double, [Tree.Node])] {
        var children: [(Tree.Node, HitGeometry, Double, [Tree.Node])] = []
        children.reserveCapacity(sublayers.count)
        var anyZ = false
        for c in sublayers {
            guard let (cp, ct, cs) = tree.values(of: c, parentTime: time) else { continue }
            anyZ = anyZ || cp.zPosition != 0
            children.append((c, cp, ct, cs))
        }
        guard anyZ else { return children.reversed() }
        return children.enumerated().sorted { a, b in
            a.element.1.zPosition != b.element.1.zPosition ? a.element.1.zPosition > b.element.1.zPosition : a.offset > b.offset
        }.map(\.element)
    }

    /// A transform layer's sublayers in its 3D space (and those of transform layers inside it):
    /// the hit drawn in front, by the depth of each plane's centre as the renderer sorts them.
    @inlinable mutating func hitTransformLayer(_ node: Tree.Node, _ p: HitGeometry, time: Double, sublayers: [Tree.Node], point: Point,
                                            inSuperlayer: Transform3D, superlayerToDisplay: Transform3D,
                                            depth: Int) -> (hit: Hit<Tree.Node>, depth: Double)? {
        let space = p.sublayerSpace
        let childSpace = space.isIdentity ? inSuperlayer : space.concatenating(inSuperlayer)
        var best: (hit: Hit<Tree.Node>, depth: Double)?
        // Back to front, so that among equal depths the later one (drawn on top) wins.
        for (child, cp, ct, cs) in frontToBack(sublayers, time: time).reversed() {
            if visits > Self.maximumVisits || depth + 1 >= Self.maximumDepth { break }
            let candidate: (hit: Hit<Tree.Node>, depth: Double)?
            if cp.kind == .transform {
                guard !cp.isHidden, cp.isUserInteractionEnabled else { continue }
                let nested = cp.transformToSuperlayer.concatenating(childSpace)
                if !cp.isDoubleSided, !nested.facesViewer { continue }
                visits += 1
                candidate = hitTransformLayer(child, cp, time: ct, sublayers: cs, point: point, inSuperlayer: nested,
                                              superlayerToDisplay: superlayerToDisplay, depth: depth + 1)
            } else if let hit = visit(child, cp, time: ct, sublayers: cs, point: point, superlayerSpace: childSpace,
                                      superlayerToDisplay: superlayerToDisplay, depth: depth + 1) {
                let t = cp.transformToSuperlayer.concatenating(childSpace)
                let centre = Point(x: cp.bounds.midX, y: cp.bounds.midY)
                let z = centre.x * t.m13 + centre.y * t.m23 + t.m43
                let w = centre.x * t.m14 + centre.y * t.m24 + t.m44
                candidate = (hit, w > 0 ? z / w : -.infinity)
            } else {
                candidate = nil
            }
            if let candidate, best == nil || candidate.depth >= best!.depth { best = candidate }
        }
        return best
    }

    /// A layer's bounds coordinates to the root's superlayer space, as the renderer places it:
    /// `path` runs from the root down to the layer. Nil when a layer on the path is gone or is
    /// not a sublayer of the one before it.
    @inlinable public func toDisplay(path: [Tree.Node], time: Double = 0, isSame: (Tree.Node, Tree.Node) -> Bool) -> Transform3D? {
        guard let first = path.first, path.count <= Self.maximumDepth,
              var (p, t, subs) = tree.values(of: first, parentTime: time) else { return nil }
        var inSuperlayer = p.transformToSuperlayer
        var superlayerToDisplay = Transform3D.identity
        var parent = first
        for node in path.dropFirst() {
            guard subs.contains(where: { isSame($0, node) }),
                  let (cp, ct, cs) = tree.values(of: node, parentTime: t) else { return nil }
            let space = p.sublayerSpace
            if p.kind == .transform {
                // The transform layer's sublayers share its superlayer's plane.
                inSuperlayer = cp.transformToSuperlayer.concatenating(space.concatenating(inSuperlayer))
            } else {
                var plane = inSuperlayer.concatenating(superlayerToDisplay).flatteningZ
                if let offset = tree.planeOffset(of: node, cp, under: parent) {
                    plane = plane.concatenating(.translation(x: offset.x, y: offset.y))
                }
                superlayerToDisplay = plane
                inSuperlayer = space.isIdentity ? cp.transformToSuperlayer : cp.transformToSuperlayer.concatenating(space)
            }
            (p, t, subs, parent) = (cp, ct, cs, node)
        }
        return inSuperlayer.concatenating(superlayerToDisplay)
    }
}

extension Rect {
    /// `CGRectContainsPoint`: min edges in, max edges out.
    @inlinable public func containsHalfOpen(_ p: Point) -> Bool {
        p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }
}

extension Transform3D {
    /// The point of the plane z = 0 that this transform maps onto `p` (dividing by w), or nil
    /// where no point in front of the eye does (the plane is seen edge-on, or `p` lies beyond
    /// its horizon).
    @inlinable public func unproject(_ p: Point) -> Point? {
        // X/W = p.x and Y/W = p.y for (x, y, 0, 1) · M: two linear equations in x and y.
        let a = m11 - p.x * m14, b = m21 - p.x * m24, e = p.x * m44 - m41
        let c = m12 - p.y * m14, d = m22 - p.y * m24, f = p.y * m44 - m42
        let det = a * d - b * c
        // A plane seen (within rounding) edge-on covers no area: cos(π/2) is 6e-17, not 0.
        guard abs(det) > 1e-12, det.isFinite else { return nil }
        let x = (e * d - b * f) / det, y = (a * f - e * c) / det
        guard x.isFinite, y.isFinite, x * m14 + y * m24 + m44 > 0 else { return nil }
        return Point(x: x, y: y)
    }

    /// Where the plane's point `p` (z = 0) lands, dividing by w; nil behind the eye.
    @inlinable public func project(_ p: Point) -> Point? {
        apply(to: p).map { Point(x: $0.x, y: $0.y) }
    }
}
