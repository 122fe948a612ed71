import LaminaCore

// Layout, as Core Animation has it on the client: layers marked as needing layout are laid out
// before the transaction commits, top-down, by `layoutSublayers()` (or the delegate's
// `layoutSublayers(of:)`). The declarative layouts, `autoresizingMask` and `constraints`, are
// properties laminad applies itself whenever a superlayer's bounds change, the display's
// included, so a tree laid out by them follows the screen with no client running.

extension LayerDelegate {
    /// `layoutSublayersOfLayer:`: lays out `layer`'s sublayers instead of the layer's own
    /// `layoutSublayers()` (which calls it). Does nothing by default.
    @MainActor public func layoutSublayers(of layer: Layer) {}

    /// No action of its own by default: the search goes on.
    @MainActor public func action(for layer: Layer, forKey key: String) -> Action? { nil }
}

extension Layer {
    /// How the frame follows the superlayer's bounds size (`CALayer.autoresizingMask`), applied
    /// by laminad whenever the superlayer's bounds change (the display's too). None by default.
    public var autoresizingMask: AutoresizingMask {
        get { model.autoresizingMask }
        set { setValue(.number(Double(newValue.rawValue)), forKey: .autoresizingMask) }
    }

    /// The frame's relations to the superlayer's bounds and to siblings, by `name`
    /// (`CAConstraint`s, solved as `CAConstraintLayoutManager` does), applied by laminad whenever
    /// the superlayer lays out: its bounds change, a sibling moves, a sublayer comes or goes.
    /// A cycle or a name that is no sibling's makes laminad refuse the commit.
    public var constraints: [LayoutConstraint] {
        get { model.constraints }
        set { setValue(.constraints(newValue), forKey: .constraints) }
    }

    /// `addConstraint:`.
    public func addConstraint(_ constraint: LayoutConstraint) { constraints.append(constraint) }

    /// Whether the layer is marked to lay out its sublayers before the next commit.
    public var needsLayout: Bool { needsLayoutFlag }

    /// Marks the layer to lay out its sublayers (`layoutSublayers()`) before the transaction
    /// commits. A change of `bounds` size, and a sublayer added or removed, mark it too.
    public func setNeedsLayout() {
        guard !needsLayoutFlag else { return }
        needsLayoutFlag = true
        connection?.noteNeedsLayout(self)
    }

    /// Lays out now whatever needs it at and above this layer: from the highest superlayer in
    /// the unbroken run of marked ones, down through the whole subtree, each marked layer's
    /// `layoutSublayers()` runs before its sublayers are visited.
    public func layoutIfNeeded() {
        var top: Layer = self
        while let up = top.superlayer, up.needsLayoutFlag { top = up }
        // An explicit stack: a layer's own layout may add or remove its sublayers first.
        var stack: [Layer] = [top]
        while let layer = stack.popLast() {
            if layer.needsLayoutFlag {
                layer.needsLayoutFlag = false
                layer.layoutSublayers()
            }
            stack.append(contentsOf: layer.sublayers.reversed())
        }
    }
}
