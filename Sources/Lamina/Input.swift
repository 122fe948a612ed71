import LaminaCore
import LaminaProtocol

/// An input event laminad delivered to this client, with its layer resolved to the `Layer`.
///
/// Touches and the pointer go to the layer they hit on screen (laminad hit-tests its
/// presentation tree, so a moving layer is hit where it is drawn), and stay with it until the
/// touch or the last button is released (the implicit grab). Keys and focus changes go to the
/// client with the keyboard focus; their `layer` is the root layer.
@MainActor
public struct LayerInputEvent {
    /// The event as laminad sent it.
    public let event: InputEvent
    /// The layer it concerns; nil when this client no longer has that layer.
    public let layer: Layer?

    public var kind: InputEvent.Kind { event.kind }
    /// The point in `layer`'s own coordinates.
    public var location: Point { event.location }
    /// The point in display points.
    public var screenLocation: Point { event.screen }
    /// The touch's number (touch events), the evdev button code (buttons) or key code (keys).
    public var id: Int32 { event.id }
    /// laminad's clock when it routed the event (`Connection.currentMediaTime`'s clock).
    public var time: Double { event.time }
    /// Whether a tool injected it (`laminactl input`) rather than a device.
    public var isInjected: Bool { event.injected }
    /// Keys: the text the key types (key presses; may be empty) and its keysym name.
    public var text: String { event.text }
    public var keyName: String { event.keyName }
    /// Scrolling: the distance in points.
    public var scrollDelta: Point { event.delta }
}

extension Connection {
    /// A stream of every input event delivered to this client, from now on. Each call makes a
    /// new stream; the stream ends when the connection is closed.
    public func inputEvents() -> AsyncStream<LayerInputEvent> {
        let (stream, continuation) = AsyncStream<LayerInputEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = nextInputStream
        nextInputStream += 1
        inputStreams[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.inputStreams[id] = nil }
        }
        return stream
    }

    /// Takes the keyboard focus: key events come to this client until another client takes
    /// it or receives a touch or click (laminad gives the keyboard to the last client pressed).
    public func takeKeyboardFocus() async throws {
        Transaction.flush()
        try await connected()
        guard case .done = try await channel.request(.takeKeyboardFocus) else { throw unexpected("keyboard focus") }
    }

    /// Feeds an input event through laminad's routing as if a device had sent it (privileged:
    /// `laminactl input`). Coordinates are display points. The receiver sees it marked
    /// injected. Returns once laminad has routed it, so events it caused were sent before.
    public func injectInput(_ injection: InputInjection) async throws {
        Transaction.flush()
        try await connected()
        guard case .done = try await channel.request(.injectInput(injection)) else { throw unexpected("input injection") }
    }

    /// Streams the input events laminad delivers to the layers of session `session` to
    /// `onWatchEvent`, one JSON line each (`laminactl events`). Allowed to the session's owner.
    public func listen(toSession session: String) async throws {
        try await connected()
        guard case .watching = try await channel.request(.listen(session: session)) else { throw unexpected("listen") }
    }

    /// An `input` message: resolved, then given to the streams and to the layer's handlers.
    func receivedInput(_ event: InputEvent) {
        let layer = event.layer == .root ? rootLayer : layer(withID: event.layer)
        let e = LayerInputEvent(event: event, layer: layer)
        for c in inputStreams.values { c.yield(e) }
        if event.kind == .touchCancel || event.kind == .pointerCancel {
            // A cancel may name a layer this client no longer has, or one taken out of its tree:
            // every recogniser hears it (each follows only its own touch or button), so none
            // is left waiting for an end that will not come.
            for weak in layersWithRecognizers() { for r in weak.gestureRecognizers { r.handle(e) } }
        }
        // The hit layer's handler, or the nearest superlayer's that has one (a responder chain).
        var at = layer
        while let l = at {
            if !l.gestureRecognizers.isEmpty, e.kind != .touchCancel, e.kind != .pointerCancel {
                for r in l.gestureRecognizers { r.handle(e) }
            }
            if let handler = l.onInput {
                handler(e)
                break
            }
            if !l.gestureRecognizers.isEmpty { break }
            at = l.superlayer
        }
    }
}

// MARK: - Hit testing and conversion on the client

/// The client's model tree, as `HitTester` walks it: model values, as `CALayer.hitTest(_:)`
/// on a model layer.
@MainActor
struct ModelTree: @MainActor HitTestTree {
    func values(of node: Layer, parentTime: Double) -> (properties: HitGeometry, time: Double, sublayers: [Layer])? {
        (HitGeometry(node.model), parentTime, node.sublayers)
    }
}

extension Layer {
    /// `CALayer.hitTest(_:)`: the farthest descendant of this layer (or itself) that contains
    /// `point`, given in this layer's superlayer's coordinates; nil if none. The same rules as
    /// laminad's (`HitTester`), with the model values.
    public func hitTest(_ point: Point) -> Layer? {
        var tester = HitTester(tree: ModelTree())
        return tester.hitTest(point, root: self, superlayerSpace: superlayer?.model.sublayerSpace ?? .identity)?.node
    }

    /// `CALayer.contains(_:)`: whether `point`, in this layer's coordinates, is inside its bounds.
    public func contains(_ point: Point) -> Bool { model.bounds.containsHalfOpen(point) }

    /// `convert(_:from:)`: `point` in `layer`'s coordinates, in this layer's. A nil `layer`
    /// means the display (the root of the tree). NaN where the point does not map (a layer
    /// seen edge-on). With laminad's separate output layout (`--layout separate`), a layer
    /// under an output's root converts to that output's coordinates, not the desktop's that
    /// `LayerInputEvent.screenLocation` gives: the client does not know where outputs are.
    public func convert(_ point: Point, from layer: Layer?) -> Point {
        let display: Point?
        if let layer { display = layer.toDisplay()?.project(point) } else { display = point }
        return display.flatMap { toDisplay()?.unproject($0) } ?? Point(x: .nan, y: .nan)
    }

    /// `convert(_:to:)`: `point` in this layer's coordinates, in `layer`'s (nil: the display).
    public func convert(_ point: Point, to layer: Layer?) -> Point {
        guard let display = toDisplay()?.project(point) else { return Point(x: .nan, y: .nan) }
        guard let layer else { return display }
        return layer.toDisplay()?.unproject(display) ?? Point(x: .nan, y: .nan)
    }

    /// `convert(_:from:)` for a rectangle: the bounding box of its converted corners.
    public func convert(_ rect: Rect, from layer: Layer?) -> Rect {
        Rect(bounding: rect.corners.map { convert($0, from: layer) }) ?? Rect(x: .nan, y: .nan, width: .nan, height: .nan)
    }

    /// `convert(_:to:)` for a rectangle: the bounding box of its converted corners.
    public func convert(_ rect: Rect, to layer: Layer?) -> Rect {
        Rect(bounding: rect.corners.map { convert($0, to: layer) }) ?? Rect(x: .nan, y: .nan, width: .nan, height: .nan)
    }

    /// This layer's coordinates to its tree's root's superlayer space (the display for a layer
    /// under `rootLayer`), placed as laminad draws it.
    func toDisplay() -> Transform3D? {
        var path: [Layer] = [self]
        var at = self
        while let up = at.superlayer, path.count <= HitTester<ModelTree>.maximumDepth {
            path.append(up)
            at = up
        }
        return HitTester(tree: ModelTree()).toDisplay(path: path.reversed(), isSame: ===)
    }
}
