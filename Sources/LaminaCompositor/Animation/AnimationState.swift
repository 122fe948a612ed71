import LaminaCore
import LaminaProtocol

/// One client's animation state: the presentation side of its tree, kept by the compositor's
/// animation side (`Compositor.animationStates`, by entry serial) apart from the model
/// (`ModelTree.Entry`). It lives as long as the client's entry.
public struct AnimationState: Sendable {
    /// The render tree's animations, by layer.
    public internal(set) var animated: [LayerID: AnimatedLayer] = [:]
    /// Layers that left the model tree but stay on screen until their onOrderOut animation ends.
    public internal(set) var departing: [LayerID: Departure] = [:]
    /// What to draw when it differs from the model tree: the departing layers put back in
    /// place (`rebuildRenderTree`); nil when none are departing.
    public private(set) var renderTree: ClientTree? { didSet { renderTreeChanges &+= 1 } }
    /// Counts changes to `renderTree`: with `ModelTree.Entry.changeCount`, what the
    /// render-list cache checks its kept commands against.
    public private(set) var renderTreeChanges: UInt64 = 0

    public init() {}

    /// Whether nothing is animated and nothing is on its way out.
    public var isEmpty: Bool { animated.isEmpty && departing.isEmpty }

    /// Puts the departing layers back where they were in a copy of `model`, for drawing.
    mutating func rebuildRenderTree(from model: ClientTree) {
        guard !departing.isEmpty else {
            renderTree = nil
            return
        }
        var tree = model
        for (id, d) in departing.sorted(by: { $0.value.index < $1.value.index }) {
            tree.restore(id, ghost: d.ghost, into: d.superlayer, at: d.index)
        }
        renderTree = tree
    }

    /// The render tree's root follows a new display size, as the model's does.
    mutating func fitRoot(width: Double, height: Double) {
        renderTree?.fitRoot(width: width, height: height)
    }
}

/// One layer's animations and its presentation values at the last frame.
public struct AnimatedLayer: Sendable {
    public var animations = LayerAnimations()
    public var presentation: LayerProperties
    /// The transition in progress at the last frame, if any (its old rendering is the render
    /// side's: `TransitionSnapshots`).
    public var transition: TransitionState?
}

/// A layer on its way out: where it was, and (if it was destroyed) what it was.
public struct Departure: Sendable {
    public var superlayer: LayerID
    public var index: Int
    /// The layer's last value, when the client destroyed it.
    public var ghost: ServerLayer?
    /// The onOrderOut animation; the layer goes when it stops.
    public var animationID: UInt64
}

extension ClientTree {
    /// Puts a departing layer back under `parent` at `index` for drawing (a copy of the tree,
    /// never the model). A destroyed layer comes back as its ghost.
    mutating func restore(_ id: LayerID, ghost: ServerLayer?, into parent: LayerID, at index: Int) {
        guard layers[parent] != nil else { return }
        if layers[id] == nil, var g = ghost {
            g.superlayer = nil
            layers[id] = g
        }
        guard layers[id] != nil, layers[id]!.superlayer == nil else { return }
        layers[parent]!.sublayers.insert(id, at: index)
        layers[id]!.superlayer = parent
    }
}
