import LaminaCore
import LaminaProtocol

/// What a commit replaced on layers that a transition now animates (`CATransition`), kept as
/// values: the client's model tree and animation state from before the commit, and each such
/// layer's presentation values and local time then. The commit walks nothing; the frame step
/// draws the old renderings from it (`TransitionSnapshots.draw`) before its next frame.
///
/// The trees are copy-on-write values: holding them costs the copy the commit's first change
/// made, and one is held only until the next frame.
public struct ReplacedRendering: Sendable {
    public struct Layer: Sendable {
        public var properties: LayerProperties
        public var localTime: Double
    }

    public let entry: EntrySerial
    /// The client's model tree before the commit.
    let tree: ClientTree
    /// Its animation state before the commit (the render tree holds the departing layers).
    let state: AnimationState
    /// The layers whose old rendering a transition shows.
    public internal(set) var layers: [LayerID: Layer]

    init(entry: EntrySerial, tree: ClientTree, state: AnimationState, layers: [LayerID: Layer]) {
        self.entry = entry
        self.tree = tree
        self.state = state
        self.layers = layers
    }
}

/// The old renderings that transitions in progress show (`CATransition`), by client entry and
/// layer, in the layer's own coordinates: drawn by the frame step from what the commit that
/// added the transition replaced (`draw(_:rasters:)`), and kept until the transition ends (the
/// frame step lets them go, `keepOnly(where:)`, once their transition has ended).
public struct TransitionSnapshots: Sendable {
    struct Key: Hashable {
        let entry: EntrySerial
        let layer: LayerID
    }

    private var kept: [Key: [DrawCommand]] = [:]

    public init() {}

    /// No transition is in flight.
    public var isEmpty: Bool { kept.isEmpty }

    public var count: Int { kept.count }

    /// The old rendering of layer `layer` of entry `entry` (its serial).
    public subscript(entry entry: EntrySerial, layer layer: LayerID) -> [DrawCommand]? {
        get { kept.isEmpty ? nil : kept[Key(entry: entry, layer: layer)] }
        set {
            if newValue == nil, kept.isEmpty { return }
            kept[Key(entry: entry, layer: layer)] = newValue
        }
    }

    /// Keeps the snapshots whose layer still has a transition (`inProgress`); costs nothing
    /// while none is kept.
    public mutating func keepOnly(where inProgress: (_ entry: EntrySerial, _ layer: LayerID) -> Bool) {
        guard !kept.isEmpty else { return }
        kept = kept.filter { inProgress($0.key.entry, $0.key.layer) }
    }

    /// Draws the old rendering of each layer `replaced` holds and keeps it: the layer and its
    /// subtree as the tree and presentation before the commit showed them, in the layer's own
    /// coordinates (its transform to the display taken as the identity) and at full opacity
    /// above it. A shape or text layer in it draws its raster from `rasters`.
    public mutating func draw(_ replaced: ReplacedRendering, rasters: (any LayerRasterizing)?) {
        let shown = ClientPresentation(state: replaced.state, evaluates: true)
        let tree = replaced.state.renderTree ?? replaced.tree
        for (id, old) in replaced.layers {
            guard let layer = tree[id] else { continue }
            var commands: [DrawCommand] = []
            var walk = RenderWalk(tree: tree, serial: replaced.entry, presentation: shown, transitions: nil,
                                  rasters: rasters, outputRoots: [:])
            walk.draw(id, layer, old.properties, localTime: old.localTime, toDisplay: .identity, parentOpacity: 1,
                      tint: nil, into: &commands)
            kept[Key(entry: replaced.entry, layer: id)] = commands
        }
    }

    /// Forgets an entry's snapshots (its client went).
    public mutating func removeAll(entry: EntrySerial) {
        guard kept.keys.contains(where: { $0.entry == entry }) else { return }
        kept = kept.filter { $0.key.entry != entry }
    }
}

/// A transition being drawn on a layer: how far it has got, and the layer's old rendering.
public struct ActiveTransition: Sendable {
    public var state: TransitionState
    /// The layer and its subtree as they were drawn when the transition was added, in the
    /// layer's own coordinates (`TransitionSnapshots.draw`).
    public var snapshot: [DrawCommand]

    public init(state: TransitionState, snapshot: [DrawCommand]) {
        self.state = state
        self.snapshot = snapshot
    }
}

extension RenderWalk {
    /// The transition in progress on layer `id`, if any: its state from the presentation, its
    /// old rendering from the kept snapshots.
    func transition(of id: LayerID) -> ActiveTransition? {
        guard let transitions, let state = presentation.transition(id),
              let snapshot = transitions[entry: serial, layer: id] else { return nil }
        return ActiveTransition(state: state, snapshot: snapshot)
    }

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
