import LaminaCore

// Drawn contents, as Core Animation has them: a layer marked by `setNeedsDisplay()` is
// displayed before the transaction commits (after layout). `display()` asks the delegate's
// `display(_:)`, whose default records what `draw(in:)` (or the delegate's `draw(_:in:)`) does
// with a `DrawingContext` and sets it as the layer's `drawing`: commands, not pixels. laminad
// rasterises them at the scale the layer is shown.

extension LayerDelegate {
    /// Records the layer's drawing with `Layer.draw(in:)` (which asks `draw(_:in:)`).
    @MainActor public func display(_ layer: Layer) { layer.recordDrawing() }
    /// Draws nothing by default.
    @MainActor public func draw(_ layer: Layer, in context: DrawingContext) {}
}

extension Layer {
    /// The drawn contents: the commands `draw(in:)` last recorded; empty draws nothing. Setting
    /// it sends a drawing made elsewhere (a `DrawingContext`'s `drawing`).
    public var drawing: Drawing {
        get { model.drawing }
        set { setValue(.drawing(newValue), forKey: .drawing) }
    }

    /// Whether the layer is marked to display before the next commit.
    public var needsDisplay: Bool { needsDisplayFlag }

    /// Marks the layer to be displayed by the next commit (`Layer.setNeedsDisplay()`, in the
    /// class so a tiled layer can take it as "drop the tiles").
    func markNeedsDisplay() {
        guard !needsDisplayFlag else { return }
        needsDisplayFlag = true
        connection?.noteNeedsDisplay(self)
    }

    /// Marks the layer to display; the whole layer is drawn again (a drawing is recorded whole),
    /// so `rect` only says what changed.
    public func setNeedsDisplay(in rect: Rect) { setNeedsDisplay() }

    /// Displays the layer now if it is marked.
    public func displayIfNeeded() {
        guard needsDisplayFlag else { return }
        needsDisplayFlag = false
        display()
    }

    /// `display`: gives the layer its contents. With a delegate, its `display(_:)`; without,
    /// records `draw(in:)`. Called before a commit for a marked layer; call it to draw now.
    public func display() {
        if let delegate { delegate.display(self) } else { recordDrawing() }
    }

    /// `drawInContext:`: draws the layer's contents; the default asks the delegate's
    /// `draw(_:in:)`. Coordinates are the bounds', y down.
    public func draw(in context: DrawingContext) { delegate?.draw(self, in: context) }

    /// Records `draw(in:)` into a new context and sets the result as `drawing`.
    public func recordDrawing() {
        let context = DrawingContext(bounds: bounds)
        draw(in: context)
        drawingImages = context.images
        drawing = context.drawing
    }
}
