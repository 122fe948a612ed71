/// Whether and when each output draws (weston's per-output repaint loop): one state machine per
/// output that page-flips, each paced by its own refresh (`RepaintScheduler`), so a slow or
/// busy output never holds a fast one back.
///
/// An output is *idle* (it can take a frame) or *awaiting* the presentation of the frame it was
/// given. A frame starts when the soonest idle output's repaint time comes; it is drawn on every
/// idle output that needs it, aimed at the soonest of their next refreshes. An output that was
/// busy when the scene changed *owes* a frame: once its flip completes it draws, even when
/// nothing else changed. (Outputs drawn in the same frame go to the kernel in one atomic commit.)
public struct RepaintPlanner: Sendable {
    public struct Output: Sendable, Equatable {
        public var scheduler: RepaintScheduler
        /// A frame was given and has not reached the screen yet.
        public var isAwaiting = false
        /// The scene changed while the output was busy: it draws once it is free.
        public var owesFrame = false
    }

    public private(set) var outputs: [String: Output] = [:]
    /// How long before its refresh an output starts drawing.
    public let repaintWindow: Double

    public init(repaintWindow: Double) { self.repaintWindow = repaintWindow }

    /// The lit outputs and their refresh periods (at start and after a hotplug): new ones are
    /// idle and owe a frame, gone ones are forgotten, and a changed period is taken.
    public mutating func setOutputs(_ lit: [(name: String, refreshInterval: Double)]) {
        var next: [String: Output] = [:]
        for (name, interval) in lit {
            var o = outputs[name] ?? Output(scheduler: RepaintScheduler(refreshInterval: interval, repaintWindow: repaintWindow), owesFrame: true)
            if interval > 0, interval.isFinite { o.scheduler.refreshInterval = interval }
            next[name] = o
        }
        outputs = next
    }

    /// The outputs that can take a frame now and need one (the scene changed: `sceneChanged`,
    /// or they owe one).
    public func ready(sceneChanged: Bool) -> [String] {
        outputs.filter { !$0.value.isAwaiting && (sceneChanged || $0.value.owesFrame) }.map(\.key).sorted()
    }

    /// When to start the next frame, given that the scene changed (or not) at `now`: the soonest
    /// repaint time of an output that is ready for it; nil when none is (they are all awaiting
    /// their flips, or have nothing to draw).
    public func nextFrameTime(now: Double, sceneChanged: Bool) -> Double? {
        ready(sceneChanged: sceneChanged).compactMap { outputs[$0]?.scheduler.repaintTime(now: now) }.min()
    }

    /// A frame starts at `now` on `names`: each aims at its next refresh; the frame is drawn for
    /// the soonest of them (returned). Where it shows a changed scene, busy outputs owe it.
    public mutating func frameStarted(at now: Double, on names: [String], sceneChanged: Bool) -> Double {
        var target = Double.infinity
        for name in names {
            guard var o = outputs[name] else { continue }
            target = Swift.min(target, o.scheduler.frameStarted(at: now))
            o.owesFrame = false
            outputs[name] = o
        }
        if sceneChanged {
            for (name, o) in outputs where !names.contains(name) && o.isAwaiting { outputs[name]?.owesFrame = true }
        }
        return target.isFinite ? target : now
    }

    /// The frame was handed over: `flipping` await their page flips; the others showed it at
    /// once (a modeset) or not at all, and are idle again, shown at `now`.
    public mutating func frameSubmitted(_ names: [String], flipping: Set<String>, now: Double) {
        for name in names {
            guard var o = outputs[name] else { continue }
            if flipping.contains(name) {
                o.isAwaiting = true
            } else {
                o.isAwaiting = false
                o.scheduler.presented(at: now)
            }
            outputs[name] = o
        }
    }

    /// `name`'s frame reached the screen at `time`. Returns whether it owes a frame now.
    @discardableResult
    public mutating func presented(_ name: String, at time: Double) -> Bool {
        guard var o = outputs[name] else { return false }
        o.isAwaiting = false
        o.scheduler.presented(at: time)
        outputs[name] = o
        return o.owesFrame
    }

    /// Whether any output awaits its flip (for the watchdog: a flip that never completes).
    public var anyAwaiting: Bool { outputs.values.contains { $0.isAwaiting } }
}
