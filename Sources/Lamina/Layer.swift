import LaminaCore
import LaminaProtocol

/// A layer, as `CALayer` is one: a rectangle in a tree, with a position, bounds, a transform,
/// an opacity and a background colour, drawn by laminad.
///
/// Setting a property records the change in the current transaction; nothing is sent until the
/// transaction commits (at the latest, after the current stretch of main-actor code). A layer
/// is shown once it is in the tree under a connection's `rootLayer`.
@MainActor
public class Layer {
    /// The model values: what was last set, with Core Animation's defaults.
    public private(set) var model = LayerProperties()

    public private(set) weak var superlayer: Layer?
    /// The sublayers, back to front. Setting it is `CALayer.sublayers =`: the current sublayers
    /// are removed, then each new one is added in order (leaving its old superlayer first).
    public var sublayers: [Layer] {
        get { children }
        set {
            for s in children where !newValue.contains(where: { $0 === s }) { s.removeFromSuperlayer() }
            for (i, s) in newValue.enumerated() { insertSublayer(s, at: i) }
        }
    }
    private var children: [Layer] = []

    // Bookkeeping for the connection this layer lives on.
    weak var connection: Connection?
    var serverID: LayerID?
    var needsCreate = false
    var structureChanged = false
    /// The sublayers the server has, as of the last commit.
    var serverSublayers: [LayerID] = []
    /// Explicit animations, actions and their bookkeeping (Layer+Animation.swift).
    var animationState = LayerAnimationState()
    /// Asked first for the action of a changed property (`CALayerDelegate`'s `actionForLayer:forKey:`).
    public weak var delegate: (any LayerDelegate)?
    /// Called with the input events laminad delivers to this layer, and to its sublayers that
    /// have no handler (or recognisers) of their own: the event goes up the superlayers to the
    /// first layer that handles it.
    public var onInput: ((LayerInputEvent) -> Void)?
    /// Gesture recognisers (Gestures.swift); they see the events that reach this layer before
    /// `onInput` does.
    public private(set) var gestureRecognizers: [GestureRecognizer] = []

    /// Adds a recogniser that sees this layer's input events.
    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard !gestureRecognizers.contains(where: { $0 === recognizer }) else { return }
        recognizer.layer?.removeGestureRecognizer(recognizer)
        recognizer.layer = self
        gestureRecognizers.append(recognizer)
    }
    /// Removes a recogniser.
    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        gestureRecognizers.removeAll { $0 === recognizer }
        if recognizer.layer === self { recognizer.layer = nil }
    }

    /// The image named by `contents`, kept alive while the layer shows it.
    var contentsImage: Image?
    /// The images the drawing draws (`DrawingContext.draw(_:in:)`), kept alive while it is shown.
    var drawingImages: [Image] = []
    /// The video named by `contents` (`Layer.video`), kept alive while the layer shows it.
    var contentsVideo: VideoSource?

    /// Values set that the model cannot hold, sent to laminad as they are (it refuses them).
    private var unrepresentable: [PropertyKey: PropertyValue] = [:]

    // MARK: Layout (Layer+Layout.swift)

    /// `needsLayout`, kept here because the extension cannot hold storage.
    var needsLayoutFlag = false
    /// `needsDisplay` (Layer+Display.swift).
    var needsDisplayFlag = false
    /// `needsDisplayOnBoundsChange`: a change of bounds size marks the layer as needing display.
    public var needsDisplayOnBoundsChange = false

    /// `layoutSublayers`: lays out the sublayers; runs before a commit when the layer is marked
    /// (`setNeedsLayout()`, a change of bounds size, a sublayer added or removed). The default
    /// asks the delegate (`LayerDelegate.layoutSublayers(of:)`); `autoresizingMask` and
    /// `constraints` need nothing here, laminad applies them.
    public func layoutSublayers() { delegate?.layoutSublayers(of: self) }

    /// `preferredFrameSize`: the size the layer would like in its superlayer; by default its
    /// bounds size.
    public func preferredFrameSize() -> Size { bounds.size }

    /// A plain layer (`CALayer`).
    public init() {}

    /// A layer of `kind`; the subclasses (`GradientLayer`, `ShapeLayer`, …) call this.
    init(kind: LayerKind) {
        model = LayerProperties(kind: kind)
    }

    /// A new layer object of the class for `kind` (`GradientLayer` for `.gradient`, …).
    public static func make(kind: LayerKind) -> Layer {
        switch kind {
        case .layer: Layer()
        case .gradient: GradientLayer()
        case .shape: ShapeLayer()
        case .text: TextLayer()
        case .replicator: ReplicatorLayer()
        case .transform: TransformLayer()
        case .emitter: EmitterLayer()
        case .scroll: ScrollLayer()
        case .tiled: TiledLayer()
        }
    }

    /// The layer's class.
    public var kind: LayerKind { model.kind }

    init(root id: LayerID, connection: Connection, properties: LayerProperties) {
        serverID = id
        self.connection = connection
        model = properties
    }

    isolated deinit {
        if let connection, let serverID, serverID != .root {
            connection.layerWasReleased(serverID)
        }
    }

    // MARK: Properties

    /// Sets any property by key; the typed properties below call this.
    public func setValue(_ value: PropertyValue, forKey key: PropertyKey) {
        precondition(value.type == key.valueType, "property '\(key)' takes a \(key.valueType), not a \(value.type)")
        // The model keeps what the client set; laminad validates and answers with an error
        // naming the key if the value is not acceptable (NaN, a negative size, an unknown name).
        // A value the model cannot hold (a gravity name it does not know) is sent as it is.
        let oldSize = model.bounds.size
        if model.store(key, value) { unrepresentable[key] = nil } else { unrepresentable[key] = value }
        propertyDidChange(key)
        // Core Animation marks a layer whose bounds change size as needing layout.
        if key == .bounds, model.bounds.size != oldSize {
            setNeedsLayout()
            if needsDisplayOnBoundsChange { setNeedsDisplay() }
        }
    }

    /// laminad scrolled the layer (`scrollsOnTouch`): its origin as laminad holds it, taken into
    /// the model without being sent back.
    func takeScrolledOrigin(_ origin: Point) { model.bounds.origin = origin }
    /// The root's bounds and position as laminad fitted them to a resized display (not sent
    /// back); a client that lays out its root's sublayers does so again.
    func takeFittedRoot(displayWidth: Double, displayHeight: Double) {
        let sizeChanged = model.bounds.size != Size(width: displayWidth, height: displayHeight)
        model.fitRoot(displayWidth: displayWidth, displayHeight: displayHeight)
        if sizeChanged { setNeedsLayout() }
    }

    /// Marks the layer to display (`display()`) before the transaction commits (Layer+Display.swift).
    /// A tiled layer drops its tiles instead (`TiledLayer`).
    public func setNeedsDisplay() { markNeedsDisplay() }

    /// The value laminad is sent for `key`.
    func wireValue(_ key: PropertyKey) -> PropertyValue { unrepresentable[key] ?? model[key] }

    /// The keys a newly created layer sends: those that differ from its kind's defaults.
    var keysToCreate: [PropertyKey] {
        let changed = model.changedKeys(from: LayerProperties(kind: model.kind))
        return changed + unrepresentable.keys.filter { !changed.contains($0) }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The model value of any property.
    public func value(forKey key: PropertyKey) -> PropertyValue { model[key] }

    public var bounds: Rect {
        get { model.bounds }
        set { setValue(.rect(newValue), forKey: .bounds) }
    }
    /// The anchor point's place in the superlayer's coordinates.
    public var position: Point {
        get { model.position }
        set { setValue(.point(newValue), forKey: .position) }
    }
    /// In unit coordinates of the bounds; (0.5, 0.5), the centre, by default.
    public var anchorPoint: Point {
        get { model.anchorPoint }
        set { setValue(.point(newValue), forKey: .anchorPoint) }
    }
    public var anchorPointZ: Double {
        get { model.anchorPointZ }
        set { setValue(.number(newValue), forKey: .anchorPointZ) }
    }
    /// Orders siblings before their array order, and moves the layer in z.
    public var zPosition: Double {
        get { model.zPosition }
        set { setValue(.number(newValue), forKey: .zPosition) }
    }
    /// Applied about the anchor point.
    public var transform: Transform3D {
        get { model.transform }
        set { setValue(.transform(newValue), forKey: .transform) }
    }
    /// Applied to the sublayers, about the anchor point; carries perspective through m34.
    public var sublayerTransform: Transform3D {
        get { model.sublayerTransform }
        set { setValue(.transform(newValue), forKey: .sublayerTransform) }
    }
    public var opacity: Double {
        get { model.opacity }
        set { setValue(.number(newValue), forKey: .opacity) }
    }
    public var isHidden: Bool {
        get { model.isHidden }
        set { setValue(.bool(newValue), forKey: .isHidden) }
    }
    /// nil (the default) draws nothing, like a clear colour.
    public var backgroundColor: Color? {
        get { model.backgroundColor == .clear ? nil : model.backgroundColor }
        set { setValue(.color(newValue ?? .clear), forKey: .backgroundColor) }
    }
    /// A name for finding the layer again (scene files match layers by name).
    public var name: String? {
        get { model.name.isEmpty ? nil : model.name }
        set { setValue(.string(newValue ?? ""), forKey: .name) }
    }
    public var cornerRadius: Double {
        get { model.cornerRadius }
        set { setValue(.number(newValue), forKey: .cornerRadius) }
    }
    public var borderWidth: Double {
        get { model.borderWidth }
        set { setValue(.number(newValue), forKey: .borderWidth) }
    }
    public var borderColor: Color {
        get { model.borderColor }
        set { setValue(.color(newValue), forKey: .borderColor) }
    }
    /// The corners `cornerRadius` rounds; all four by default.
    public var maskedCorners: CornerMask {
        get { model.maskedCorners }
        set { setValue(.number(Double(newValue.rawValue)), forKey: .maskedCorners) }
    }
    /// The shape of the rounded corners (`CALayer.cornerCurve`): `.circular` (the default), or
    /// `.continuous`, Apple's smoother corner, for the background, border, shadow and
    /// `masksToBounds` clip alike. Switches without animating. A new key in protocol 1.7: an
    /// older laminad refuses it.
    public var cornerCurve: CornerCurve {
        get { model.cornerCurve }
        set { setValue(.string(newValue.rawValue), forKey: .cornerCurve) }
    }
    /// How the layer, drawn with its sublayers as one group, blends with what lies behind it
    /// (`CALayer.compositingFilter`, Core Image's blend modes by name: `.multiply` is
    /// "multiplyBlendMode"); nil (the default) composites it normally. Switches without
    /// animating. A new key in protocol 1.7: an older laminad refuses it.
    public var compositingFilter: BlendMode? {
        get { model.compositingFilter }
        set { setValue(.string(newValue?.rawValue ?? ""), forKey: .compositingFilter) }
    }
    /// Clips the sublayers to the bounds, rounded by `cornerRadius`.
    public var masksToBounds: Bool {
        get { model.masksToBounds }
        set { setValue(.bool(newValue), forKey: .masksToBounds) }
    }
    public var shadowColor: Color {
        get { model.shadowColor }
        set { setValue(.color(newValue), forKey: .shadowColor) }
    }
    /// 0 (the default) draws no shadow.
    public var shadowOpacity: Double {
        get { model.shadowOpacity }
        set { setValue(.number(newValue), forKey: .shadowOpacity) }
    }
    public var shadowOffset: Size {
        get { model.shadowOffset }
        set { setValue(.size(newValue), forKey: .shadowOffset) }
    }
    /// The blur radius; the Gaussian's standard deviation is half of it, as in Core Animation.
    public var shadowRadius: Double {
        get { model.shadowRadius }
        set { setValue(.number(newValue), forKey: .shadowRadius) }
    }
    /// When false the layer, with its sublayers, is not drawn while it faces away from the viewer.
    public var isDoubleSided: Bool {
        get { model.isDoubleSided }
        set { setValue(.bool(newValue), forKey: .isDoubleSided) }
    }
    /// UIKit's `isUserInteractionEnabled`: false makes touches and the pointer pass through the
    /// layer and its sublayers to whatever is behind them. True by default. A new key in
    /// protocol 1.4: an older laminad refuses it.
    public var isUserInteractionEnabled: Bool {
        get { model.isUserInteractionEnabled }
        set { setValue(.bool(newValue), forKey: .isUserInteractionEnabled) }
    }
    /// Whether a translucent layer with sublayers is composited as one group (true by default).
    public var allowsGroupOpacity: Bool {
        get { model.allowsGroupOpacity }
        set { setValue(.bool(newValue), forKey: .allowsGroupOpacity) }
    }
    /// Flips the sublayers' coordinate system vertically (y up from the bottom of the bounds).
    public var isGeometryFlipped: Bool {
        get { model.isGeometryFlipped }
        set { setValue(.bool(newValue), forKey: .isGeometryFlipped) }
    }

    /// Derived from position, anchorPoint and bounds, as in Core Animation. Setting it sets the
    /// bounds size and the position.
    public var frame: Rect {
        get { model.frame }
        set {
            var m = model
            m.frame = newValue
            setValue(.rect(Rect(origin: bounds.origin, size: m.bounds.size)), forKey: .bounds)
            setValue(.point(m.position), forKey: .position)
        }
    }

    // MARK: Mask

    /// The layer held as `mask`; the wire value is its number.
    private(set) var maskLayer: Layer?

    /// `CALayer.mask`: a layer whose composited alpha masks this layer and its whole subtree.
    /// It is placed in this layer's bounds coordinates like a sublayer (its own position,
    /// bounds and transform count) but is not one: a mask layer has no superlayer, and masks one
    /// layer at most. Setting it sends the mask layer (and its sublayers) to laminad first.
    public var mask: Layer? {
        get { maskLayer }
        set {
            if let m = newValue {
                precondition(m !== self, "a layer cannot be its own mask")
                precondition(m.superlayer == nil, "a mask layer has no superlayer; remove it from its superlayer first")
                if let c = m.connection, let mine = connection, c !== mine {
                    preconditionFailure("a layer that belongs to one connection cannot mask a layer of another")
                }
            }
            maskLayer = newValue
            if let m = newValue, let c = connection { c.attach(m) }
            setValue(.layer(newValue?.serverID?.rawValue ?? 0), forKey: .mask)
        }
    }

    /// Puts the mask layer's number in the model once the connection has given it one.
    func refreshMaskNumber() {
        guard let id = maskLayer?.serverID?.rawValue, model.mask != id else { return }
        model.store(.mask, .layer(id))
    }

    /// Sets the mask from a restored session without sending anything.
    func restoreMask(_ layer: Layer?) { maskLayer = layer }

    // MARK: The tree

    /// Appends `layer` to the sublayers, removing it from its current superlayer first.
    public func addSublayer(_ layer: Layer) {
        insertSublayer(layer, at: sublayers.count)
    }

    /// Inserts `layer` at `index` (clamped to the sublayer count).
    public func insertSublayer(_ layer: Layer, at index: Int) {
        precondition(layer !== self, "a layer cannot be its own sublayer")
        var a: Layer? = self
        while let x = a {
            precondition(x !== layer, "cannot add a layer below itself: it is an ancestor of the new superlayer")
            a = x.superlayer
        }
        if let c = layer.connection, let mine = connection, c !== mine {
            preconditionFailure("a layer that belongs to one connection cannot move to another")
        }
        var at = index
        if let old = layer.superlayer {
            if old === self, let i = sublayers.firstIndex(where: { $0 === layer }), i < at { at -= 1 }
            old.detach(layer)
        }
        at = max(0, min(at, sublayers.count))
        children.insert(layer, at: at)
        layer.superlayer = self
        structureChanged = true
        if let c = connection {
            c.attach(layer)
            c.noteChanged(self)
        }
        setNeedsLayout()
    }

    /// Inserts `layer` just below `sibling` (or at the bottom when `sibling` is not a sublayer).
    public func insertSublayer(_ layer: Layer, below sibling: Layer?) {
        insertSublayer(layer, at: sibling.flatMap { s in sublayers.firstIndex { $0 === s } } ?? 0)
    }

    /// Inserts `layer` just above `sibling` (or at the top when `sibling` is not a sublayer).
    public func insertSublayer(_ layer: Layer, above sibling: Layer?) {
        insertSublayer(layer, at: sibling.flatMap { s in sublayers.firstIndex { $0 === s }.map { $0 + 1 } } ?? sublayers.count)
    }

    /// Replaces `old` with `new` at the same index.
    public func replaceSublayer(_ old: Layer, with new: Layer) {
        guard let i = sublayers.firstIndex(where: { $0 === old }) else { return }
        old.removeFromSuperlayer()
        insertSublayer(new, at: i)
    }

    /// Removes the layer from its superlayer. It keeps its properties and can be added again.
    public func removeFromSuperlayer() {
        superlayer?.detach(self)
    }

    private func detach(_ layer: Layer) {
        children.removeAll { $0 === layer }
        layer.superlayer = nil
        structureChanged = true
        connection?.noteChanged(self)
        setNeedsLayout()
    }

    /// The first layer in this subtree (this layer included) with the given name.
    public func sublayer(named name: String) -> Layer? {
        if model.name == name { return self }
        for s in sublayers { if let hit = s.sublayer(named: name) { return hit } }
        return nil
    }
}
