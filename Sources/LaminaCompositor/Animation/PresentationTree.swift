import LaminaCore
import LaminaProtocol

/// The presentation tree as the render walk reads it: a value handed to the walk, not callbacks
/// into the compositor. For each client (by entry serial) its `AnimationState`: the presentation
/// values the frame's tick left on its animated layers, the transitions in progress, and the
/// render tree with its departing layers put back; every other layer shows its model values.
public struct PresentationTree: Sendable {
    /// By `ModelTree.Entry.serial`.
    var clients: [EntrySerial: AnimationState]
    /// Evaluate each animated layer's animations at its local time (a snapshot taken between
    /// frames) instead of using the values the last tick left.
    var evaluates: Bool

    /// The model tree: nothing animated.
    public static let model = PresentationTree(clients: [:], evaluates: false)

    /// The frame's presentation tree, as the compositor's tick left it.
    public init(ticked clients: [EntrySerial: AnimationState]) {
        self.init(clients: clients, evaluates: false)
    }

    /// The presentation tree evaluated at each layer's local time (for a snapshot between frames).
    public init(evaluating clients: [EntrySerial: AnimationState]) {
        self.init(clients: clients, evaluates: true)
    }

    init(clients: [EntrySerial: AnimationState], evaluates: Bool) {
        self.clients = clients
        self.evaluates = evaluates
    }

    /// What one walk of entry `serial`'s tree reads.
    func client(_ serial: EntrySerial) -> ClientPresentation {
        ClientPresentation(state: clients[serial] ?? AnimationState(), evaluates: evaluates)
    }
}

/// One client's presentation, as one render walk reads it.
struct ClientPresentation {
    let state: AnimationState
    let evaluates: Bool

    /// Layer `id`, whose model values are `model`, at `localTime`; `delayed` for a replicator
    /// copy shown at an earlier time than the frame's (evaluated, without events).
    func properties(_ id: LayerID, model: LayerProperties, localTime: Double, delayed: Bool) -> LayerProperties {
        guard !state.animated.isEmpty, let a = state.animated[id] else { return model }
        guard delayed || evaluates else { return a.presentation }
        var animations = a.animations
        var ignored: [AnimationEvent] = []
        return animations.evaluate(model: model, time: localTime, events: &ignored).properties
    }

    /// The state of the transition in progress on layer `id`, if any.
    func transition(_ id: LayerID) -> TransitionState? {
        guard !state.animated.isEmpty else { return nil }
        return state.animated[id]?.transition
    }
}
