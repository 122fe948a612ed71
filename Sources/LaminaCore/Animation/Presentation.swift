/// Something that happened to an animation, for the client's `CAAnimationDelegate`.
public struct AnimationEvent: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of event.
    public enum Kind: Sendable, Hashable {
        /// `animationDidStart:`: the layer's time reached the animation's beginTime.
        case didStart
        /// `animationDidStop:finished:`: `finished` is true when the active span ended, false when
        /// the animation was removed (or replaced) before it ended.
        case didStop(finished: Bool)
    }

    /// The identifier `LayerAnimations.add` returned.
    public var id: UInt64
    /// The key it was added under, if any.
    public var key: String?
    /// What happened.
    public var kind: Kind

    /// An event about the animation `id` under `key`.
    public init(id: UInt64, key: String?, kind: Kind) {
        self.id = id
        self.key = key
        self.kind = kind
    }

    public var description: String {
        let name = key.map { "'\($0)'" } ?? "#\(id)"
        switch kind {
        case .didStart: return "\(name) did start"
        case .didStop(let finished): return "\(name) did stop (finished: \(finished))"
        }
    }
}

/// A layer's presentation at one time: its properties with every animation applied, and the
/// transition in progress, if any.
public struct PresentationState: Sendable, Hashable {
    /// The presentation values of the layer's properties.
    public var properties: LayerProperties
    /// The transition in progress (the last one added wins), if any.
    public var transition: TransitionState?

    /// A presentation state.
    public init(properties: LayerProperties, transition: TransitionState? = nil) {
        self.properties = properties
        self.transition = transition
    }
}

/// The animations attached to one layer, in the order they were added, and the evaluation that
/// turns the layer's model values into its presentation values. Mirrors the animation half of
/// `CALayer`: `addAnimation:forKey:`, `removeAnimationForKey:`, `removeAllAnimations`,
/// `animationForKey:`, `animationKeys`, and the render server's per-frame evaluation.
///
/// How the server uses it:
/// - **Adding** at layer-local time `t`: `add(animation, forKey:, layerTime: t,
///   transactionDuration:, previous: oldPresentation, events: &events)`. A beginTime of 0 becomes
///   `t`, a duration of 0 the transaction's; an animation already under the same key is removed
///   (with `didStop(finished: false)` if it had not finished) and the new one goes last.
/// - **Each frame**: `evaluate(model:, time: layerLocalTime, events: &events)`. Animations apply
///   in the order added: a non-additive one replaces the value below it, an additive one adds to
///   it. `didStart` is reported once when the layer's time first reaches an animation's beginTime,
///   `didStop(finished: true)` once when its active span ends; at that point an animation that is
///   removed on completion is dropped (and no longer applies), one that is not keeps applying its
///   fill mode. Cost is proportional to the number of animations; nothing is allocated once
///   `events` has capacity.
/// - **Removing**: `remove(forKey:events:)` and `removeAll(events:)` report `didStop(finished:
///   false)` for animations that had not yet finished.
public struct LayerAnimations: Sendable {
    /// One attached animation.
    public struct Entry: Sendable {
        /// The identifier events carry.
        public let id: UInt64
        /// The key it was added under; nil for an unkeyed animation, which no later add replaces.
        public let key: String?
        /// The animation as added, with beginTime and duration resolved.
        public var animation: Animation { prepared.source }
        /// The animation as added, with the presentation value it started from made explicit
        /// (`fromValue`) where it had no from, to or by value: what adding it again needs to run
        /// the same.
        public var standaloneAnimation: Animation { prepared.standalone }
        /// Whether `didStart` has been reported.
        public fileprivate(set) var hasStarted = false
        /// Whether `didStop` has been reported (the active span ended).
        public fileprivate(set) var hasFinished = false
        // Small on purpose: the per-frame loop walks these entries for every layer.
        let prepared: PreparedAnimation
        let isRemovedOnCompletion: Bool
    }

    /// The animations in the order they apply.
    public private(set) var entries: [Entry] = []
    private var nextID: UInt64 = 1

    /// A layer with no animations.
    public init() {}

    /// True when no animation is attached.
    public var isEmpty: Bool { entries.isEmpty }
    /// `animationKeys`: the keys of the keyed animations, in order.
    public var keys: [String] { entries.compactMap(\.key) }
    /// `animationForKey:`: the animation under `key`, with its defaults resolved.
    public func animation(forKey key: String) -> Animation? { entries.first { $0.key == key }?.animation }

    /// `addAnimation:forKey:`. Validates and compiles the animation and attaches it after the
    /// others.
    ///
    /// - Parameters:
    ///   - layerTime: the layer's local time now; a beginTime of 0 resolves to it.
    ///   - transactionDuration: the duration a duration of 0 resolves to.
    ///   - previous: the layer's presentation before the change that caused this animation; basic
    ///     animations with no from, to or by value run from its value to the current one.
    ///   - id: the identifier for events; by default a number unique within this list.
    ///   - events: receives `didStop(finished: false)` for an animation this one replaces.
    /// - Returns: the identifier events about this animation will carry.
    /// - Throws: the first problem `Animation.validate()` finds; nothing is attached then.
    @discardableResult
    public mutating func add(_ animation: Animation, forKey key: String?, layerTime: Double,
                             transactionDuration: Double = MediaTiming.defaultAnimationDuration,
                             previous: LayerProperties? = nil, id: UInt64? = nil,
                             events: inout [AnimationEvent]) throws(AnimationError) -> UInt64 {
        let resolved = animation.resolvingDefaults(addedAt: layerTime, transactionDuration: transactionDuration)
        let prepared = try PreparedAnimation(resolved, previous: previous)
        if let key { remove(forKey: key, events: &events) }
        let assigned = id ?? nextID
        nextID = Swift.max(nextID, assigned) &+ 1
        entries.append(Entry(id: assigned, key: key, prepared: prepared, isRemovedOnCompletion: resolved.isRemovedOnCompletion))
        return assigned
    }

    /// `removeAnimationForKey:`. Reports `didStop(finished: false)` unless it had finished.
    public mutating func remove(forKey key: String, events: inout [AnimationEvent]) {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return }
        let e = entries.remove(at: i)
        if !e.hasFinished { events.append(AnimationEvent(id: e.id, key: e.key, kind: .didStop(finished: false))) }
    }

    /// `removeAllAnimations`. Reports `didStop(finished: false)` for each that had not finished.
    public mutating func removeAll(events: inout [AnimationEvent]) {
        for e in entries where !e.hasFinished {
            events.append(AnimationEvent(id: e.id, key: e.key, kind: .didStop(finished: false)))
        }
        entries.removeAll(keepingCapacity: true)
    }

    /// The layer's presentation at layer-local `time`: `model` with every animation in effect
    /// applied in order. Appends start and stop events to `events` and drops animations that
    /// finished and are removed on completion.
    public mutating func evaluate(model: LayerProperties, time: Double,
                                  events: inout [AnimationEvent]) -> PresentationState {
        var result = PresentationState(properties: model)
        applyAnimations(at: time, to: &result, events: &events)
        return result
    }

    /// `evaluate(model:time:events:)` into storage the caller keeps from frame to frame, which
    /// saves copying the properties once more per layer.
    public mutating func evaluate(model: LayerProperties, time: Double, into result: inout PresentationState,
                                  events: inout [AnimationEvent]) {
        result.properties = model
        result.transition = nil
        applyAnimations(at: time, to: &result, events: &events)
    }

    private mutating func applyAnimations(at time: Double, to result: inout PresentationState,
                                          events: inout [AnimationEvent]) {
        var i = 0
        while i < entries.count {
            let state = entries[i].prepared.timing.state(atParentTime: time)
            if state.phase != .before, !entries[i].hasStarted {
                entries[i].hasStarted = true
                events.append(AnimationEvent(id: entries[i].id, key: entries[i].key, kind: .didStart))
            }
            if state.phase == .after, !entries[i].hasFinished {
                entries[i].hasFinished = true
                events.append(AnimationEvent(id: entries[i].id, key: entries[i].key, kind: .didStop(finished: true)))
            }
            if state.phase == .after, entries[i].isRemovedOnCompletion {
                // Removed as it completes: the frame shows what lies beneath, as in Core Animation.
                entries.remove(at: i)
                continue
            }
            if state.isInEffect { entries[i].prepared.apply(state, to: &result.properties, transition: &result.transition) }
            i += 1
        }
    }

    /// `evaluate(model:time:events:)` returning the events it reports.
    public mutating func evaluate(model: LayerProperties, time: Double) -> (PresentationState, [AnimationEvent]) {
        var events: [AnimationEvent] = []
        let p = evaluate(model: model, time: time, events: &events)
        return (p, events)
    }
}
