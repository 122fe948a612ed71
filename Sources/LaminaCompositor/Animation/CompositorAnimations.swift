import LaminaCore
import LaminaProtocol

/// What laminad remembers about an animation it attached, to report its events.
struct AnimationRecord {
    /// The owning client's entry.
    var entry: EntrySerial
    var layer: LayerID
    var key: String?
    /// The client connected to the entry when the animation was added (nil for a session
    /// restored without one), so its start and stop are reported with the same client even
    /// when the client has gone by the stop (a kept session, like `laminactl apply`'s).
    var client: ClientID?
    /// The client's tag (0: the client wants no events).
    var tag: UInt32
    /// The completion groups the animation belongs to.
    var groups: [UInt32]
}

/// A completion group of one client (entry).
struct GroupKey: Hashable {
    var entry: EntrySerial
    var group: UInt32
}

// MARK: - Turning commits into animations

extension Compositor {
    /// Attaches the animations a successful commit asks for: implicit ones for changed
    /// properties (the action search of semantics.md, "Actions"), explicit ones, and the
    /// onOrderIn/onOrderOut actions; removes what it removes. Runs after the model changed.
    func animate(_ result: CommitResult, entry i: Int) {
        let time = now
        let changes = result.changes
        let serial = model.entries[i].serial
        // Layers created in this commit show their first values at once: no animation.
        var created: Set<LayerID> = []
        for case .created(let id) in changes { created.insert(id) }
        // A layer's presentation before this commit: its animations applied to the model the
        // commit replaced (`CommitResult.replaced`; the new model where the commit created it
        // or left its values alone).
        var previousPresentation: [LayerID: LayerProperties] = [:]
        func previous(_ id: LayerID) -> LayerProperties? {
            if let p = previousPresentation[id] { return p }
            let old = created.contains(id) ? nil : result.replaced[id]
            guard let model = old?.properties ?? model.entries[i].tree[id]?.properties else { return nil }
            let p = presentation(of: id, entry: i, at: time, model: model)
            previousPresentation[id] = p
            return p
        }

        var settings = TransactionSettings.default
        var groups: Set<UInt32> = []
        for change in changes {
            switch change {
            case .settings(let s):
                settings = s
                groups.formUnion(s.completionGroups)
            case .created:
                break
            case let .set(id, key, _):
                // A layer created in this commit shows its first values at once.
                guard key.isAnimatable, !settings.disableActions, !created.contains(id),
                      let layer = model.entries[i].tree[id], let animation = action(for: key.name, in: layer, settings: settings)
                else { continue }
                attach(animation, key: key.name, tag: 0, to: id, entry: i, previous: previous(id), settings: settings, at: time)
            case let .inserted(id, _):
                if animationStates[serial]?.departing.isEmpty == false { animationStates[serial]!.departing[id] = nil }
                guard !settings.disableActions, hasEntry("onOrderIn", layer: id, entry: i), let layer = model.entries[i].tree[id],
                      let animation = action(for: "onOrderIn", in: layer, settings: settings) else { continue }
                attach(animation.withDefaultKeyPath("opacity"), key: "onOrderIn", tag: 0, to: id, entry: i,
                       previous: previous(id), settings: settings, at: time)
            case let .removed(id, parent, index):
                guard !settings.disableActions, hasEntry("onOrderOut", layer: id, entry: i), let layer = model.entries[i].tree[id],
                      let animation = action(for: "onOrderOut", in: layer, settings: settings),
                      let aid = attach(animation.withDefaultKeyPath("opacity"), key: "onOrderOut", tag: 0, to: id, entry: i,
                                       previous: previous(id), settings: settings, at: time)
                else { continue }
                // The layer stays drawn where it was until the animation ends.
                animationStates[serial, default: AnimationState()].departing[id] = Departure(superlayer: parent, index: index, ghost: nil, animationID: aid)
            case let .destroyed(id, last):
                if animationStates[serial]?.departing[id] != nil {
                    animationStates[serial]!.departing[id]!.ghost = last
                } else if var a = animationStates[serial]?.animated.removeValue(forKey: id) {
                    transitionSnapshots[entry: serial, layer: id] = nil
                    var events: [AnimationEvent] = []
                    a.animations.removeAll(events: &events)
                    deliver(events)
                }
            case .animation(let op):
                switch op {
                case let .addAnimation(id, key, tag, animation):
                    attach(animation, key: key.isEmpty ? nil : key, tag: tag, to: id, entry: i,
                           previous: previous(id), settings: settings, at: time)
                case let .removeAnimation(id, key):
                    var events: [AnimationEvent] = []
                    animationStates[serial]?.animated[id]?.animations.remove(forKey: key, events: &events)
                    deliver(events)
                case .removeAllAnimations(let id):
                    var events: [AnimationEvent] = []
                    animationStates[serial]?.animated[id]?.animations.removeAll(events: &events)
                    deliver(events)
                default:
                    break
                }
            }
        }
        rebuildRenderTree(entry: i)
        // A completion group with no animations completes at once (after `applied`).
        for g in groups.sorted() where (groupCounts[GroupKey(entry: serial, group: g)] ?? 0) == 0 {
            completed(GroupKey(entry: serial, group: g))
        }
    }

    /// Whether the layer's `actions` or `style["actions"]` has an entry for `key` (the special
    /// keys have no default action, so without one there is nothing to look up). Read in
    /// place: a layer is over 1 KB, and a big commit inserts many.
    func hasEntry(_ key: String, layer id: LayerID, entry i: Int) -> Bool {
        guard let k = model.entries[i].tree.layers.index(forKey: id) else { return false }
        let layers = model.entries[i].tree.layers
        return layers.values[k].actions[key] != nil || layers.values[k].styleActions[key] != nil
    }

    /// The action search for `key` (semantics.md, "Actions"): the layer's `actions`, then its
    /// `style["actions"]`, then the default. A null entry ends the search with no animation.
    /// The default for an animatable property is a basic animation from the old presentation
    /// value to the new model value, with the transaction's timing function or the `default`
    /// curve; the special keys have no default.
    func action(for key: String, in layer: ServerLayer, settings: TransactionSettings) -> Animation? {
        switch layer.actions[key] ?? layer.styleActions[key] {
        case .noAnimation?: return nil
        case .animation(let a)?: return a.withDefaultKeyPath(key)
        case .inherit?, nil:
            guard let property = PropertyKey(name: key), property.isAnimatable else { return nil }
            return .basic(BasicAnimation(keyPath: key, timingFunction: settings.timingFunction ?? .default))
        }
    }

    /// Adds an animation to a layer's render-tree animations. Returns its id, or nil when the
    /// engine refused it (the commit was validated, so this only happens for an action whose
    /// animation does not fit the key it ran for; it is then skipped, as Core Animation would
    /// skip an action that fails).
    @discardableResult
    func attach(_ animation: Animation, key: String?, tag: UInt32, to id: LayerID, entry i: Int,
                previous: LayerProperties?, settings: TransactionSettings, at time: Double) -> UInt64? {
        guard let model = model.entries[i].tree[id]?.properties else { return nil }
        let serial = self.model.entries[i].serial
        var layer = animationStates[serial]?.animated[id] ?? AnimatedLayer(presentation: model)
        var events: [AnimationEvent] = []
        let aid = nextAnimationID
        do {
            try layer.animations.add(animation, forKey: key, layerTime: localTime(of: id, entry: i, at: time),
                                     transactionDuration: settings.duration, previous: previous, id: aid, events: &events)
        } catch {
            logger.debug("layer \(id): animation for '\(key ?? "")' skipped: \(error)")
            return nil
        }
        nextAnimationID += 1
        animationStates[serial, default: AnimationState()].animated[id] = layer
        animationRecords[aid] = AnimationRecord(entry: serial, layer: id, key: key, client: self.model.entries[i].client, tag: tag, groups: settings.completionGroups)
        for g in settings.completionGroups { groupCounts[GroupKey(entry: serial, group: g), default: 0] += 1 }
        deliver(events)
        requestFrame(.sceneChanged)
        return aid
    }

    /// The layer's local time at display time `t`, down the layer-time hierarchy.
    func localTime(of id: LayerID, entry i: Int, at t: Double) -> Double {
        localTime(of: id, entry: i, departing: animationStates[model.entries[i].serial]?.departing ?? [:], at: t)
    }

    /// The same, with the entry's layers on their way out given (the tick holds its state).
    func localTime(of id: LayerID, entry i: Int, departing: [LayerID: Departure], at t: Double) -> Double {
        let tree = model.entries[i].tree
        guard let layer = tree[id] ?? departing[id]?.ghost else { return t }
        let parentTime = layer.superlayer.map { localTime(of: $0, entry: i, departing: departing, at: t) }
            ?? departing[id].map { localTime(of: $0.superlayer, entry: i, departing: departing, at: t) } ?? t
        return layer.properties.localTime(fromParent: parentTime)
    }

    // MARK: Frames

    /// Evaluates every animated layer at display time `t`: presentation values for the frame
    /// and finished animations dropped. Returns the animations' events, which the frame step
    /// delivers once the frame that shows them is presented (nothing is sent mid-tick).
    func tickAnimations(at t: Double) -> [AnimationEvent] {
        var ticked: [AnimationEvent] = []
        for i in model.entries.indices {
            let serial = model.entries[i].serial
            // Ticked out of the dictionary (and put back after): every change below is made in
            // place, in a state nothing else holds. (Nothing the tick calls reads it meanwhile.)
            guard animationStates[serial]?.animated.isEmpty == false, var state = animationStates.removeValue(forKey: serial) else {
                continue
            }
            var departed = false
            for id in Array(state.animated.keys) {
                guard let model = model.entries[i].tree[id]?.properties ?? state.departing[id]?.ghost?.properties else {
                    state.animated[id] = nil
                    continue
                }
                let local = localTime(of: id, entry: i, departing: state.departing, at: t)
                frameEvents.removeAll(keepingCapacity: true)
                // Evaluated in place in the dictionary: copying the layer's state out would copy
                // its animation list on every frame.
                let shown = state.animated[id]!.animations.evaluate(model: model, time: local, events: &frameEvents)
                if state.animated[id]!.animations.isEmpty {
                    state.animated[id] = nil
                } else {
                    state.animated[id]!.presentation = shown.properties
                    state.animated[id]!.transition = shown.transition
                }
                guard !frameEvents.isEmpty else { continue }
                for e in frameEvents {
                    if case .didStop = e.kind, state.departing[id]?.animationID == e.id {
                        state.departing[id] = nil
                        departed = true
                    }
                }
                ticked += frameEvents
            }
            if departed { state.rebuildRenderTree(from: model.entries[i].tree) }
            animationStates[serial] = state
        }
        return ticked
    }

    /// Whether layer `layer` of entry `serial` still shows a transition, or has one waiting to
    /// start: while it does, the render side keeps its old rendering.
    func transitionInProgress(entry serial: EntrySerial, layer: LayerID) -> Bool {
        guard let animated = animationStates[serial]?.animated[layer] else { return false }
        return animated.transition != nil || animated.animations.hasTransition
    }

    /// Whether any animation is still moving (a finished one that only fills forwards is not).
    public var isAnimating: Bool {
        animationStates.values.contains { state in
            state.animated.values.contains { $0.animations.entries.contains { !$0.hasFinished } }
        }
    }

    /// The presentation values of a layer at display time `t`, without side effects: its
    /// animations applied to `model` (by default its model values now).
    func presentation(of id: LayerID, entry i: Int, at t: Double, model: LayerProperties? = nil) -> LayerProperties? {
        guard let model = model ?? self.model.entries[i].tree[id]?.properties else { return nil }
        guard var a = animationStates[self.model.entries[i].serial]?.animated[id]?.animations else { return model }
        var ignored: [AnimationEvent] = []
        return a.evaluate(model: model, time: localTime(of: id, entry: i, at: t), events: &ignored).properties
    }

    // MARK: Transitions

    /// The layers of `ops` that a transition will be added to: those given one explicitly, and
    /// the superlayer of a sublayer replaced in this commit (a remove and an insert at the same
    /// place) when its `actions` or `style` has a `transition` entry — Core Animation's
    /// `transition` action for `replaceSublayer:with:`. Looked up before the commit is applied,
    /// so their old rendering can be kept.
    func transitionTargets(_ ops: [Operation], entry i: Int) -> Set<LayerID> {
        var scan = TransitionScan()
        scan.scan(ops, in: model.entries[i].tree)
        return scan.targets
    }

    /// What a commit about to be applied replaces on each layer in `ids`, as values: entry
    /// `i`'s tree and animation state now, and each layer's presentation values and local time
    /// now. No walk: the frame step draws the old renderings from it.
    func replacedRendering(of ids: Set<LayerID>, entry i: Int) -> ReplacedRendering {
        let t = now
        var layers: [LayerID: ReplacedRendering.Layer] = [:]
        for id in ids {
            guard let p = presentation(of: id, entry: i, at: t) else { continue }
            layers[id] = ReplacedRendering.Layer(properties: p, localTime: localTime(of: id, entry: i, at: t))
        }
        let serial = model.entries[i].serial
        return ReplacedRendering(entry: serial, tree: model.entries[i].tree,
                                 state: animationStates[serial] ?? AnimationState(), layers: layers)
    }

    /// Runs the `transition` action of layers whose sublayer was replaced, and keeps what the
    /// commit replaced on every layer that now has a transition attached, for the frame step to
    /// draw (`replacedRenderings`).
    func attachTransitions(_ old: ReplacedRendering?, _ changes: [TreeChange], entry i: Int) {
        var settings = TransactionSettings.default
        var replaced: Set<LayerID> = []
        var removedFrom: Set<LayerID> = []
        for change in changes {
            switch change {
            case .settings(let s): settings = s
            case let .removed(_, parent, _): removedFrom.insert(parent)
            case let .inserted(_, parent):
                guard removedFrom.contains(parent), !replaced.contains(parent), !settings.disableActions,
                      let layer = model.entries[i].tree[parent],
                      case .animation(let a)? = layer.actions["transition"] ?? layer.styleActions["transition"]
                else { continue }
                replaced.insert(parent)
                attach(a, key: "transition", tag: 0, to: parent, entry: i, previous: nil, settings: settings, at: now)
            default:
                break
            }
        }
        guard var old else { return }
        let serial = model.entries[i].serial
        old.layers = old.layers.filter { animationStates[serial]?.animated[$0.key]?.animations.hasTransition == true }
        if !old.layers.isEmpty { keepReplaced(old) }
    }

    /// Puts departing layers back where they were, for drawing (`AnimationState.renderTree`).
    func rebuildRenderTree(entry i: Int) {
        let serial = model.entries[i].serial
        guard animationStates[serial] != nil else { return }
        animationStates[serial]!.rebuildRenderTree(from: model.entries[i].tree)
    }

    /// The entry with `serial` is gone: its animation state and transitions' old renderings go
    /// with it. Returns whether layers on their way out left the screen.
    @discardableResult
    func forgetAnimations(ofEntry serial: EntrySerial) -> Bool {
        transitionSnapshots.removeAll(entry: serial)
        replacedRenderings.removeAll { $0.entry == serial }
        guard let state = animationStates.removeValue(forKey: serial) else { return false }
        return !state.departing.isEmpty
    }

    /// The animation state of entry `i` (nil: nothing of it was ever animated).
    public func animationState(entry i: Int) -> AnimationState? {
        animationStates[model.entries[i].serial]
    }

    // MARK: Events

    /// Reports animation events: to the owning client for tagged animations, to completion
    /// groups, and to watchers.
    func deliver(_ events: [AnimationEvent]) {
        for e in events {
            guard let record = animationRecords[e.id] else { continue }
            let entry = model.entries.first { $0.serial == record.entry }
            // Tagged events go to the entry's client now (a reconnected one has the layers);
            // watchers hear the client that added the animation, and its session.
            let client = entry?.client
            let started: Bool, finished: Bool
            switch e.kind {
            case .didStart: (started, finished) = (true, false)
            case .didStop(let f): (started, finished) = (false, f)
            }
            if record.tag != 0, let client {
                reply(client, .animationEvent(AnimationNotice(layer: record.layer, tag: record.tag, started: started, finished: finished)))
            }
            watch("""
                {"event":"\(started ? "didStart" : "didStop")","client":\(record.client?.rawValue ?? 0),\
                "session":\(JSONWriter.quoted(entry?.session ?? "")),"layer":\(record.layer.rawValue),\
                "key":\(JSONWriter.quoted(record.key ?? "")),\(started ? "" : "\"finished\":\(finished),")"time":\(JSONWriter.format(now))}
                """)
            if !started {
                animationRecords[e.id] = nil
                for g in record.groups {
                    let key = GroupKey(entry: record.entry, group: g)
                    groupCounts[key, default: 1] -= 1
                    if groupCounts[key] == 0 { completed(key) }
                }
            }
        }
    }

    func completed(_ key: GroupKey) {
        groupCounts[key] = nil
        guard let client = model.entries.first(where: { $0.serial == key.entry })?.client else { return }
        reply(client, .transactionCompleted(group: key.group))
        watch(#"{"event":"transactionCompleted","client":\#(client.rawValue),"group":\#(key.group),"time":\#(JSONWriter.format(now))}"#)
    }

    func watch(_ line: String) {
        for w in watchers { reply(w, .watch(line)) }
    }
}

/// `transitionTargets`, over a commit's operations in pieces (a big commit decoded in steps),
/// against the tree as it was before the commit.
struct TransitionScan {
    private(set) var targets: Set<LayerID> = []
    private var removedFrom: Set<LayerID> = []

    mutating func scan(_ ops: [Operation], in tree: ClientTree) {
        for op in ops {
            switch op {
            case let .addAnimation(id, _, _, animation) where animation.containsTransition:
                if tree[id] != nil { targets.insert(id) }
            case .remove(let id):
                if let parent = tree[id]?.superlayer { removedFrom.insert(parent) }
            case let .insert(parent, _, _):
                if removedFrom.contains(parent), let layer = tree[parent],
                   case .animation? = layer.actions["transition"] ?? layer.styleActions["transition"] {
                    targets.insert(parent)
                }
            default:
                break
            }
        }
    }
}
