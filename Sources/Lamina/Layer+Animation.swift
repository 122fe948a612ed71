import LaminaCore
import LaminaProtocol

/// Answers the action search for a layer first (`CALayerDelegate`'s `actionForLayer:forKey:`).
public protocol LayerDelegate: AnyObject {
    /// The action for a change of `key`: nil to go on searching (the layer's actions, its
    /// style, the default, on laminad), `.noAnimation` for no animation, or an animation to run
    /// (its key path defaults to `key`).
    @MainActor func action(for layer: Layer, forKey key: String) -> Action?
    /// `layoutSublayersOfLayer:`: lays out `layer`'s sublayers (Layer+Layout.swift); a
    /// requirement, so a delegate's own implementation is the one `layoutSublayers()` calls.
    @MainActor func layoutSublayers(of layer: Layer)
    /// `displayLayer:`: gives `layer` its contents (Layer+Display.swift); the default records
    /// a drawing with `draw(_:in:)`.
    @MainActor func display(_ layer: Layer)
    /// `drawLayer:inContext:`: draws `layer`'s contents into `context`, in its bounds
    /// coordinates. Draws nothing by default.
    @MainActor func draw(_ layer: Layer, in context: DrawingContext)
}

/// Hears when an explicit animation starts and stops (`CAAnimationDelegate`).
public protocol AnimationDelegate: AnyObject {
    /// `animationDidStart:`.
    @MainActor func animationDidStart(_ animation: Animation, on layer: Layer)
    /// `animationDidStop:finished:`: `finished` is false when it was removed before its end.
    @MainActor func animationDidStop(_ animation: Animation, on layer: Layer, finished: Bool)
}

extension AnimationDelegate {
    public func animationDidStart(_ animation: Animation, on layer: Layer) {}
    public func animationDidStop(_ animation: Animation, on layer: Layer, finished: Bool) {}
}

/// A layer's explicit animations and action dictionaries, as the client knows them.
struct LayerAnimationState {
    struct Attached {
        var key: String?
        var animation: Animation
        var tag: UInt32
        var delegate: (any AnimationDelegate)?
        /// Sent to laminad (false while the layer is on no connection yet).
        var sent: Bool
        /// The begin time in the layer's time as laminad resolved it when sent (a beginTime of
        /// 0 means "now"), for a replay after a reconnection.
        var resolvedBegin: Double?
    }
    var attached: [Attached] = []
    var actions: [String: Action] = [:]
    var styleActions: [String: Action] = [:]
}

extension Layer {
    /// Records a changed property for the transaction, asking the delegate for its action first.
    func propertyDidChange(_ key: PropertyKey) {
        guard let connection else { return }
        if key.isAnimatable, let action = delegate?.action(for: self, forKey: key.name) {
            // The delegate answered: laminad must not search again for this change.
            connection.noteSet(self, key, disableActions: true)
            if case .animation(let a) = action { add(a.withDefaultKeyPath(key.name), forKey: key.name) }
        } else {
            connection.noteSet(self, key)
        }
    }

    // MARK: Explicit animations

    /// `addAnimation:forKey:`: laminad runs `animation` on this layer's presentation, with no
    /// further work from the client. An animation already under `key` is replaced. Model
    /// values do not change. `delegate` hears its start and stop.
    public func add(_ animation: Animation, forKey key: String?, delegate: (any AnimationDelegate)? = nil) {
        if let key { animationState.attached.removeAll { $0.key == key } }
        var entry = LayerAnimationState.Attached(key: key, animation: animation, tag: 0, delegate: delegate, sent: false)
        if let connection {
            entry.tag = connection.makeTag()
            entry.sent = true
            entry.resolvedBegin = animation.timing.beginTime == 0 ? convertTime(connection.currentMediaTime, from: nil) : animation.timing.beginTime
            connection.animationTags[entry.tag] = (WeakLayer(self), delegate)
            let tag = entry.tag
            connection.noteOperation(self) { .addAnimation($0, key: key ?? "", tag: tag, animation) }
        }
        animationState.attached.append(entry)
    }

    /// Sends the animations added while the layer was on no connection.
    func sendPendingAnimations() {
        guard let connection else { return }
        for i in animationState.attached.indices where !animationState.attached[i].sent {
            let e = animationState.attached[i]
            let tag = connection.makeTag()
            animationState.attached[i].tag = tag
            animationState.attached[i].sent = true
            animationState.attached[i].resolvedBegin = e.animation.timing.beginTime == 0
                ? convertTime(connection.currentMediaTime, from: nil) : e.animation.timing.beginTime
            connection.animationTags[tag] = (WeakLayer(self), e.delegate)
            connection.noteOperation(self) { .addAnimation($0, key: e.key ?? "", tag: tag, e.animation) }
        }
        for (key, action) in animationState.actions { connection.noteOperation(self) { .setAction($0, dictionary: .actions, key: key, action) } }
        for (key, action) in animationState.styleActions { connection.noteOperation(self) { .setAction($0, dictionary: .style, key: key, action) } }
    }

    /// `removeAnimationForKey:`.
    public func removeAnimation(forKey key: String) {
        guard animationState.attached.contains(where: { $0.key == key }) else { return }
        animationState.attached.removeAll { $0.key == key }
        connection?.noteOperation(self) { .removeAnimation($0, key: key) }
    }

    /// `removeAllAnimations`.
    public func removeAllAnimations() {
        animationState.attached.removeAll()
        connection?.noteOperation(self) { .removeAllAnimations($0) }
    }

    /// `animationForKey:`: the animation attached under `key`, until it is removed (on
    /// completion, for most animations).
    public func animation(forKey key: String) -> Animation? {
        animationState.attached.last { $0.key == key }?.animation
    }

    /// `animationKeys`, in the order the animations were added.
    public func animationKeys() -> [String] { animationState.attached.compactMap(\.key) }

    /// An event laminad reported for one of this layer's animations.
    func animationEvent(tag: UInt32, started: Bool, finished: Bool, delegate: (any AnimationDelegate)?) {
        guard let i = animationState.attached.firstIndex(where: { $0.tag == tag }) else {
            // Already replaced or removed here: the delegate still hears how it ended.
            return
        }
        let a = animationState.attached[i]
        if started {
            delegate?.animationDidStart(a.animation, on: self)
        } else {
            if a.animation.isRemovedOnCompletion || !finished { animationState.attached.remove(at: i) }
            delegate?.animationDidStop(a.animation, on: self, finished: finished)
        }
    }

    // MARK: Actions

    /// `actions`: animations (or `.noAnimation`) to run when a key changes, searched before the style
    /// and the default. Keys are property names and `onOrderIn`, `onOrderOut`.
    public var actions: [String: Action] {
        get { animationState.actions }
        set {
            let old = animationState.actions
            animationState.actions = newValue.filter { $0.value != .inherit }
            noteActionChanges(from: old, to: animationState.actions, in: .actions)
        }
    }

    /// `style["actions"]`: searched after `actions`.
    public var styleActions: [String: Action] {
        get { animationState.styleActions }
        set {
            let old = animationState.styleActions
            animationState.styleActions = newValue.filter { $0.value != .inherit }
            noteActionChanges(from: old, to: animationState.styleActions, in: .style)
        }
    }

    private func noteActionChanges(from old: [String: Action], to new: [String: Action], in dictionary: ActionDictionary) {
        guard let connection else { return }
        for key in Set(old.keys).union(new.keys).sorted() where old[key] != new[key] {
            let action = new[key] ?? .inherit
            connection.noteOperation(self) { .setAction($0, dictionary: dictionary, key: key, action) }
        }
    }

    /// Restores an action from a resumed session's snapshot (nothing to send).
    func restoreAction(_ action: Action, forKey key: String, in dictionary: ActionDictionary) {
        switch dictionary {
        case .actions: animationState.actions[key] = action
        case .style: animationState.styleActions[key] = action
        }
    }

    // MARK: Presentation

    /// `presentationLayer`: the values laminad shows for this layer now, animations applied.
    /// Commits the open implicit transaction first. A layer on no connection has only its model.
    public func presentation() async throws -> LayerProperties {
        guard let connection else { return model }
        return try await connection.presentation(of: self)
    }
}

// MARK: - Layer time

extension Layer {
    /// The path from the top of this layer's tree down to it.
    private var ancestry: [Layer] {
        var path: [Layer] = [self]
        while let s = path.last?.superlayer { path.append(s) }
        return path.reversed()
    }

    private static func timings(_ path: [Layer]) -> [MediaTiming] {
        path.map { MediaTiming(beginTime: $0.model.beginTime, speed: $0.model.speed, timeOffset: $0.model.timeOffset) }
    }

    /// `convertTime:fromLayer:`: `t` in `layer`'s local time (nil: media time, as
    /// `CACurrentMediaTime()`) converted to this layer's local time, from the model timing of
    /// the layers on the way.
    public func convertTime(_ t: Double, from layer: Layer?) -> Double {
        let mine = ancestry
        guard let layer else { return LayerTime.localTime(fromMedia: t, chain: Self.timings(mine)) }
        let theirs = layer.ancestry
        let shared = LayerTime.sharedPrefixCount(mine.map(ObjectIdentifier.init), theirs.map(ObjectIdentifier.init))
        return LayerTime.convert(t, from: Self.timings(theirs), to: Self.timings(mine), sharedAncestors: shared)
    }

    /// `convertTime:toLayer:`: `t` in this layer's local time converted to `layer`'s (nil: media time).
    public func convertTime(_ t: Double, to layer: Layer?) -> Double {
        guard let layer else { return LayerTime.mediaTime(fromLocal: t, chain: Self.timings(ancestry)) }
        return layer.convertTime(t, from: self)
    }
}

// MARK: - Layer timing (CAMediaTiming on layers)

extension Layer {
    /// The layer's time runs this fast relative to its superlayer's; 0 pauses the subtree.
    public var speed: Double {
        get { model.speed }
        set { setValue(.number(newValue), forKey: .speed) }
    }
    /// Added to the layer's local time (`t = (tp − beginTime) · speed + timeOffset`).
    public var timeOffset: Double {
        get { model.timeOffset }
        set { setValue(.number(newValue), forKey: .timeOffset) }
    }
    /// When the layer's time starts, in its superlayer's time.
    public var beginTime: Double {
        get { model.beginTime }
        set { setValue(.number(newValue), forKey: .beginTime) }
    }
}
