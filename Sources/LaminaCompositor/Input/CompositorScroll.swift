import LaminaCore
import LaminaProtocol

/// Scrolling by touch and wheel in laminad (`scrollsOnTouch`), with no client round trip.
///
/// The router (CompositorInput.swift) tells the scrolls what the fingers and wheels do; the
/// frame step (`stepScrolls`, before the animation tick) moves each scroll to the frame's time
/// and writes its origin into the model tree, as a commit would, so the animation tick, the
/// render walk, hit testing, snapshots and the journal all see it; the owning client hears of
/// it in `scroll` events after the frame (`deliverScrollEvents`). A commit that sets the origin
/// itself ends the scroll (`scrollsCommitted`).
extension Compositor {
    // MARK: Fingers

    /// A touch went down on `hit`. Returns true when it caught a scroll in motion above the
    /// layer hit (a finger stops a fling, as on UIScrollView): the touch is the scroll's, and
    /// the layer hit hears nothing of it. Otherwise, where scroll layers lie above the layer,
    /// the touch may become a scroll once it passes the threshold (`scrollTakesOver`).
    func scrollTouchDown(_ id: Int32, at p: Point, hit: InputState.Target) -> Bool {
        let candidates = scrollCandidates(above: hit)
        guard !candidates.isEmpty else { return false }
        for c in candidates {
            guard var s = input.scroll.active[c], s.isMoving(at: now), let q = scrollSpacePoint(p, in: c) else { continue }
            s.drive = .finger(touch: id, anchor: q, anchorOffset: s.raw, at: q, tracker: Self.tracker(q, at: now))
            s.source = .touch
            input.scroll.active[c] = s
            input.scroll.owned[id] = c
            requestFrame(.sceneChanged)
            return true
        }
        input.scroll.pending[id] = PendingScroll(candidates: candidates, down: p)
        return false
    }

    /// A touch moved to `p`. Returns true when a scroll owns it (no layer hears the move).
    func scrollTouchMoved(_ id: Int32, to p: Point) -> Bool {
        guard let c = input.scroll.owned[id] else { return false }
        guard var s = input.scroll.active[c], case let .finger(touch, anchor, offset, _, tracker) = s.drive,
              let q = scrollSpacePoint(p, in: c) else { return true }
        var t = tracker
        t.add(q, at: now)
        s.drive = .finger(touch: touch, anchor: anchor, anchorOffset: offset, at: q, tracker: t)
        input.scroll.active[c] = s
        requestFrame(.sceneChanged)
        return true
    }

    /// After a move of a touch that may become a scroll: once it is `panThreshold` points from
    /// where it went down, the innermost scroll layer above it that scrolls along the move's
    /// main axis takes it (UIScrollView's arbitration). Returns true when one did: the caller
    /// cancels the touch on the layer it hit, whose taps and long presses it no longer makes.
    func scrollTakesOver(_ id: Int32, at p: Point) -> Bool {
        guard let pending = input.scroll.pending[id] else { return false }
        let dx = p.x - pending.down.x, dy = p.y - pending.down.y
        guard dx * dx + dy * dy >= ScrollState.panThreshold * ScrollState.panThreshold else { return false }
        input.scroll.pending[id] = nil
        for c in pending.candidates {
            guard let layer = layer(c), let q = scrollSpacePoint(p, in: c), let q0 = scrollSpacePoint(pending.down, in: c) else { continue }
            let mode = layer.properties.scrollMode
            let horizontal = abs(q.x - q0.x) > abs(q.y - q0.y)
            guard horizontal ? mode.scrollsHorizontally : mode.scrollsVertically else { continue }
            if let s = input.scroll.active[c], s.touch != nil { continue }
            guard var s = input.scroll.active[c] ?? newScroll(c, source: .touch) else { return false }
            // The drag follows the finger from where it crossed the threshold: no jump.
            s.drive = .finger(touch: id, anchor: q, anchorOffset: s.raw, at: q, tracker: Self.tracker(q, at: now))
            s.source = .touch
            input.scroll.active[c] = s
            input.scroll.owned[id] = c
            requestFrame(.sceneChanged)
            return true
        }
        return false
    }

    /// A touch ended (`cancelled`: taken away, no momentum). Returns true when a scroll owned it:
    /// the scroll goes on by itself (momentum, the spring, paging).
    func scrollTouchEnded(_ id: Int32, cancelled: Bool) -> Bool {
        input.scroll.pending[id] = nil
        guard let c = input.scroll.owned.removeValue(forKey: id) else { return false }
        guard var s = input.scroll.active[c] else { return true }
        let p = layer(c)?.properties ?? LayerProperties(kind: .scroll)
        s.release(at: now, cancelled: cancelled, mode: p.scrollMode, paging: p.pagingEnabled)
        input.scroll.active[c] = s
        requestFrame(.sceneChanged)
        return true
    }

    /// The wheel turned by `delta` points (positive: the content moves up and left) over
    /// `target`. Returns true when a scroll layer above it took it: the innermost with
    /// `scrollsOnTouch` that scrolls along an axis the wheel moved. It is not sent to the
    /// client as an input event then.
    func scrollWheel(_ delta: Point, over target: InputState.Target) -> Bool {
        for c in scrollCandidates(above: target) {
            guard let mode = layer(c)?.properties.scrollMode,
                  (delta.x != 0 && mode.scrollsHorizontally) || (delta.y != 0 && mode.scrollsVertically) else { continue }
            if let s = input.scroll.active[c], s.touch != nil { return true }
            guard var s = input.scroll.active[c] ?? newScroll(c, source: .wheel) else { return false }
            var pending = Point.zero
            if case let .wheel(p, _) = s.drive { pending = p }
            s.drive = .wheel(pending: pending + delta, last: now)
            s.source = .wheel
            input.scroll.active[c] = s
            requestFrame(.sceneChanged)
            return true
        }
        return false
    }

    /// A new scroll of `target` from where its origin is shown, or nil at the bound on scrolls.
    /// A running animation of its bounds (an animated `scroll(to:)`) stops where it is, as
    /// UIScrollView's does when touched.
    private func newScroll(_ target: InputState.Target, source: ScrollEvent.Source) -> ActiveScroll? {
        guard input.scroll.active.count < ScrollState.maximumActive else {
            logger.debug("input: scroll of layer \(target.layer) not started: \(ScrollState.maximumActive) scrolls are in progress")
            return nil
        }
        guard let i = model.entries.firstIndex(where: { $0.serial == target.serial }),
              var origin = model.entries[i].tree[target.layer]?.properties.bounds.origin else { return nil }
        if var animated = animationStates[target.serial]?.animated[target.layer], animated.animations.entries.contains(where: { $0.key == "bounds" }) {
            origin = animated.presentation.bounds.origin
            var events: [AnimationEvent] = []
            animated.animations.remove(forKey: "bounds", events: &events)
            animationStates[target.serial]!.animated[target.layer] = animated.animations.isEmpty ? nil : animated
            model.entries[i].tree.layers[target.layer]!.properties.bounds.origin = origin
            deliver(events)
        }
        var s = ActiveScroll(target: target, source: source, drive: .wheel(pending: .zero, last: now), raw: origin, shown: origin)
        if let axes = scrollAxes(target, entry: i) {
            s.axes = axes
            s.axesVersion = model.entries[i].changeCount
            s.raw = Point(x: axes.x.raw(shown: origin.x), y: axes.y.raw(shown: origin.y))
        }
        return s
    }

    private static func tracker(_ q: Point, at t: Double) -> VelocityTracker {
        var tracker = VelocityTracker()
        tracker.add(q, at: t)
        return tracker
    }

    // MARK: Frames

    /// Whether a scroll moves by itself (momentum, a spring, a wheel waiting to end): the real
    /// clock keeps drawing frames. One a finger holds asks for a frame when the finger moves.
    public var isScrolling: Bool { input.scroll.active.values.contains { $0.touch == nil } }

    /// Moves every scroll to display time `t` and writes its origin into the model tree; the
    /// events wait for the frame (`deliverScrollEvents`). Runs before the animation tick.
    func stepScrolls(at t: Double) {
        guard !input.scroll.active.isEmpty else { return }
        for target in input.scroll.active.keys.sorted(by: { ($0.serial, $0.layer) < ($1.serial, $1.layer) }) {
            var s = input.scroll.active[target]!
            guard let i = model.entries.firstIndex(where: { $0.serial == target.serial }) else {
                endScroll(target, .interrupted, offset: s.shown, entry: nil)
                continue
            }
            // A layer destroyed, detached or no longer scrolling on touch stops where it is.
            guard let p = model.entries[i].tree[target.layer]?.properties, p.kind == .scroll, p.scrollsOnTouch,
                  isInTree(target.layer, entry: i) else {
                endScroll(target, .interrupted, offset: s.shown, entry: i)
                continue
            }
            if s.axes == nil || s.axesVersion != model.entries[i].changeCount { s.axes = scrollAxes(target, entry: i) }
            guard let axes = s.axes else { continue }
            let step = s.step(at: t, axes: axes, mode: p.scrollMode)
            if step.shown != p.bounds.origin {
                model.entries[i].tree.layers[target.layer]!.properties.bounds.origin = step.shown
                requestFrame(.sceneChanged)
            }
            s.axesVersion = model.entries[i].changeCount
            let moved = step.shown != p.bounds.origin
            if !s.began {
                s.began = true
                queueScrollEvent(s, .began, entry: i, time: t)
            } else if moved {
                queueScrollEvent(s, .moved, entry: i, time: t)
            }
            if step.ended {
                s.velocity = .zero
                queueScrollEvent(s, .ended, entry: i, time: t)
                input.scroll.active[target] = nil
                if let touch = s.touch { input.scroll.owned[touch] = nil }
                if model.entries[i].isKept { sessionsChanged() }
            } else {
                input.scroll.active[target] = s
            }
        }
    }

    /// A commit stood: a scroll whose layer's origin the client set ends, interrupted, at the
    /// client's origin (a set that keeps the origin, changing only the size, leaves it going).
    func scrollsCommitted(_ result: CommitResult, entry i: Int) {
        guard !input.scroll.active.isEmpty else { return }
        let serial = model.entries[i].serial
        for case let .set(id, .bounds, .rect(old)) in result.changes {
            let target = InputState.Target(serial: serial, layer: id)
            guard input.scroll.active[target] != nil, let bounds = model.entries[i].tree[id]?.properties.bounds,
                  bounds.origin != old.origin else { continue }
            endScroll(target, .interrupted, offset: bounds.origin, entry: i)
            deliverScrollEvents()
        }
    }

    /// Ends a scroll before it came to rest: its finger (if any) goes to no layer for the rest
    /// of its touch.
    private func endScroll(_ target: InputState.Target, _ phase: ScrollEvent.Phase, offset: Point, entry i: Int?) {
        guard var s = input.scroll.active.removeValue(forKey: target) else { return }
        if let touch = s.touch { input.scroll.owned[touch] = nil }
        s.shown = offset
        s.velocity = .zero
        if let i, s.began { queueScrollEvent(s, phase, entry: i, time: now) }
    }

    private func queueScrollEvent(_ s: ActiveScroll, _ phase: ScrollEvent.Phase, entry i: Int, time: Double) {
        input.scrollEvents.append((model.entries[i].serial,
                                   ScrollEvent(layer: s.target.layer, phase: phase, source: s.source, offset: s.shown, velocity: s.velocity, time: time)))
    }

    /// Sends the queued scroll events: to the owning client (protocol 1.7 or later), its
    /// session's listeners and watchers. The frame step calls it once the frame is presented.
    func deliverScrollEvents() {
        guard !input.scrollEvents.isEmpty else { return }
        let events = input.scrollEvents
        input.scrollEvents.removeAll(keepingCapacity: true)
        for (serial, e) in events {
            guard let entry = model.entries.first(where: { $0.serial == serial }) else { continue }
            if let client = entry.client, (sessionMinor(client) ?? 0) >= 7 { reply(client, .scroll(e)) }
            let listening = input.state.listeners.filter { $0.value == serial }.map(\.key)
            guard !listening.isEmpty || !watchers.isEmpty else { continue }
            let name = entry.tree[e.layer]?.properties.name ?? ""
            var j = JSONWriter()
            j.beginObject()
            j.field("type", e.phase.description)
            j.field("session", entry.session)
            j.key("layer")
            if name.isEmpty { j.null() } else { j.value(.string(name)) }
            j.field("layerID", Double(e.layer.rawValue))
            j.field("source", e.source.description)
            j.key("offset"); j.value(.point(e.offset))
            j.key("velocity"); j.value(.point(e.velocity))
            j.field("time", e.time)
            j.endObject()
            for l in listening.sorted(by: { $0.rawValue < $1.rawValue }) { reply(l, .watch(j.text)) }
            if !watchers.isEmpty { watch(#"{"event":"scroll","scroll":"# + j.text + "}") }
        }
    }

    // MARK: The tree

    /// Scroll layers with `scrollsOnTouch` at or above `target`'s layer, innermost first (at
    /// most `ScrollState.maximumNesting`).
    private func scrollCandidates(above target: InputState.Target) -> [InputState.Target] {
        guard let i = model.entries.firstIndex(where: { $0.serial == target.serial }) else { return [] }
        let tree = model.entries[i].tree
        var found: [InputState.Target] = []
        var at: LayerID? = target.layer
        var steps = 0
        while let id = at, steps < HitTester<PresentedTree>.maximumDepth, found.count < ScrollState.maximumNesting {
            guard let layer = tree[id] else { break }
            if layer.properties.kind == .scroll, layer.properties.scrollsOnTouch {
                found.append(InputState.Target(serial: target.serial, layer: id))
            }
            at = layer.superlayer
            steps += 1
        }
        return found
    }

    private func layer(_ target: InputState.Target) -> ServerLayer? {
        model.entries.first { $0.serial == target.serial }?.tree[target.layer]
    }

    /// Whether layer `id` hangs from its client's root.
    private func isInTree(_ id: LayerID, entry i: Int) -> Bool {
        let tree = model.entries[i].tree
        var at = id
        for _ in 0..<HitTester<PresentedTree>.maximumDepth {
            if at == .root { return true }
            guard let up = tree[at]?.superlayer else { return false }
            at = up
        }
        return false
    }

    /// Display point `p` in scroll layer `target`'s offset-free space (its bounds coordinates
    /// less its origin, as drawn), where a finger's travel is measured; nil where the layer
    /// cannot place it.
    private func scrollSpacePoint(_ p: Point, in target: InputState.Target) -> Point? {
        guard let i = model.entries.firstIndex(where: { $0.serial == target.serial }),
              let q = model.locate(p, in: target.layer, serial: target.serial, at: lastFrameTime, animated: shownGeometry) else { return nil }
        let origin = shownGeometry(i, target.layer)?.bounds.origin ?? model.entries[i].tree[target.layer]?.properties.bounds.origin ?? .zero
        return q - origin
    }

    /// The extent of scroll layer `target` along each axis (`LayerProperties.scrollContent`),
    /// from its model and its sublayers' (hidden ones left out).
    func scrollAxes(_ target: InputState.Target, entry i: Int) -> (x: ScrollAxis, y: ScrollAxis)? {
        let tree = model.entries[i].tree
        guard let layer = tree[target.layer] else { return nil }
        let p = layer.properties
        let frames = layer.sublayers.lazy.compactMap { tree[$0]?.properties }.filter { !$0.isHidden }.map(\.transformedFrame)
        let content = p.scrollContent(sublayerFrames: frames)
        return (ScrollAxis(minimum: content.minX, maximum: content.maxX - p.bounds.width, dimension: p.bounds.width),
                ScrollAxis(minimum: content.minY, maximum: content.maxY - p.bounds.height, dimension: p.bounds.height))
    }
}
