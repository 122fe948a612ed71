import LaminaCore
import LaminaProtocol

/// A layer under a display point: whose it is, which, and where in it.
public struct DisplayHit: Hashable, Sendable {
    /// The entry's serial (`ModelTree.Entry.serial`): it stays with the entry while it lives.
    public var serial: EntrySerial
    public var layer: LayerID
    /// The point in the layer's bounds coordinates.
    public var location: Point
}

/// One client tree, with the values on screen, as hit testing walks it.
struct PresentedTree: HitTestTree {
    let tree: ClientTree
    let entry: Int
    /// The layer's presentation values when it is animated (nil: its model values are shown).
    let animated: (_ entry: Int, _ layer: LayerID) -> HitGeometry?
    let outputRoots: [String: Rect]

    func values(of node: LayerID, parentTime: Double) -> (properties: HitGeometry, time: Double, sublayers: [LayerID])? {
        // One lookup, and the layer read in place rather than copied (it is over 1 KB).
        guard let i = tree.layers.index(forKey: node) else { return nil }
        let local = tree.layers.values[i].properties.localTime(fromParent: parentTime)
        let geometry = animated(entry, node) ?? HitGeometry(tree.layers.values[i].properties)
        return (geometry, local, tree.layers.values[i].sublayers.array)
    }

    func planeOffset(of sublayer: LayerID, _ properties: HitGeometry, under superlayer: LayerID) -> Point? {
        // The separate layout: a root's sublayer named after an output is that output's root.
        guard superlayer == .root, !outputRoots.isEmpty, let frame = outputRoots[properties.name] else { return nil }
        return Point(x: frame.minX, y: frame.minY)
    }
}

extension ModelTree {
    /// The front-most layer under display point `point` in the frame at `time`, with the
    /// presentation values of animated layers from `animated` (`HitTester` has the rules). Later clients are in front of earlier ones.
    /// Each client's root layer is transparent: a point where no layer of the client is goes
    /// through to the clients behind. Layers on their way out (onOrderOut) are not hit.
    public func hitTest(_ point: Point, at time: Double, animated: (_ entry: Int, _ layer: LayerID) -> HitGeometry?) -> DisplayHit? {
        withoutActuallyEscaping(animated) { animated in
            for i in entries.indices.reversed() {
                var tester = HitTester(tree: PresentedTree(tree: entries[i].tree, entry: i, animated: animated, outputRoots: outputRoots))
                if let hit = tester.hitTest(point, root: .root, time: time, rootIsTarget: false) {
                    return DisplayHit(serial: entries[i].serial, layer: hit.node, location: hit.location)
                }
            }
            return nil
        }
    }

    /// Display point `point` in the bounds coordinates of layer `id` of the entry with
    /// `serial`, as drawn at `time`; nil when the layer is gone, detached, or `point` does not
    /// lie on its plane (seen edge-on, beyond its horizon).
    public func locate(_ point: Point, in id: LayerID, serial: EntrySerial, at time: Double,
                       animated: (_ entry: Int, _ layer: LayerID) -> HitGeometry?) -> Point? {
        guard let i = entries.firstIndex(where: { $0.serial == serial }) else { return nil }
        let tree = entries[i].tree
        var path: [LayerID] = [id]
        var at = id
        while at != .root {
            guard let up = tree[at]?.superlayer, path.count <= HitTester<PresentedTree>.maximumDepth else { return nil }
            path.append(up)
            at = up
        }
        return withoutActuallyEscaping(animated) { animated in
            let tester = HitTester(tree: PresentedTree(tree: tree, entry: i, animated: animated, outputRoots: outputRoots))
            return tester.toDisplay(path: path.reversed(), time: time, isSame: ==)?.unproject(point)
        }
    }
}
