/// Why a frame is wanted. The repaint loop keeps one set of them; a frame clears it.
public enum RepaintReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A commit, an animation or a video changed what the desktop shows.
    case sceneChanged
    /// An output was lit again (`display on`, the session came back): it shows nothing until drawn.
    case outputRelit
    /// The cursor moved where the renderer draws it.
    case cursorMoved
    /// A request waits for a frame (a screenshot, the virtual clock, stats).
    case request
    /// A display was plugged in, unplugged or changed mode.
    case hotplug
    /// A display link runs and its client answered its last frame message: the loop ticks
    /// at the refresh so the next one goes out (`DisplayLinks`).
    case displayLink
    /// An animated image (GIF, WebP) reaches its next frame: with a real clock the loop wakes
    /// at that time (`request(_:at:)`) instead of drawing every refresh meanwhile.
    case imageFrame

    public static func < (a: RepaintReason, b: RepaintReason) -> Bool { a.rawValue < b.rawValue }
}

/// The platform's timers, as the repaint loop uses them: laminad arms its event loop's timer,
/// and calls `Compositor.frameDue()` when it fires. Arming again replaces the earlier arming.
public protocol FrameTimer: AnyObject {
    /// Fire at `time`, in seconds of CLOCK_MONOTONIC (at once when it has passed).
    func arm(at time: Double)
    /// Fire once the current event has been handled, so everything read in this wake-up
    /// lands in one frame (the virtual clock, which nothing paces).
    func armAfterCurrentEvent()
}

/// A timer that only remembers it was armed: for compositors driven by hand (tests,
/// benchmarks, the fuzzer), which draw with `Compositor.flushFrame()`.
public final class ManualFrameTimer: FrameTimer {
    public private(set) var armedAt: Double?
    public private(set) var armedAfterCurrentEvent = false
    public init() {}
    public func arm(at time: Double) { armedAt = time }
    public func armAfterCurrentEvent() { armedAfterCurrentEvent = true }
    /// Forgets the arming (the caller drew the frame).
    public func reset() {
        armedAt = nil
        armedAfterCurrentEvent = false
    }
}

/// When the frames go out (weston's output repaint loop, as a value): the pending reasons, the
/// per-output `RepaintPlanner`, and whether the timer is armed. Each step takes the time and
/// returns what to do; nothing here draws or calls out. The compositor drives it: a reason
/// arrives (`request`), the timer is armed (`schedule`), it fires (`frameDue`, which says which
/// outputs draw and for when), the frame is handed over (`submitted`), the flips come back
/// (`presented`).
///
/// Without paced outputs (headless; KMS with every display off or none connected) frames follow
/// the clock: with a virtual clock right after the current event, with a real one on the next
/// boundary of its refresh rate.
public struct RepaintLoop: Sendable {
    /// When a frame's timer should fire.
    public enum Wake: Sendable, Equatable {
        /// At this CLOCK_MONOTONIC time.
        case at(Double)
        /// Once the current event is handled.
        case afterCurrentEvent
    }

    /// A frame to draw now.
    public struct Frame: Sendable, Equatable {
        /// The outputs that draw it; nil: every output (nothing paces them).
        public var outputs: [String]?
        /// The time it will be shown at (the refresh it is aimed at); nil: now.
        public var target: Double?
        /// Why it is drawn.
        public var reasons: Set<RepaintReason>

        public init(outputs: [String]?, target: Double?, reasons: Set<RepaintReason>) {
            self.outputs = outputs
            self.target = target
            self.reasons = reasons
        }
    }

    /// How frames are paced where no output paces them.
    public enum Pacing: Sendable, Equatable {
        case virtualClock
        case refreshRate(Double)
    }

    public private(set) var planner: RepaintPlanner
    public let pacing: Pacing
    /// Reasons for a frame that no frame has answered yet.
    public private(set) var pending: Set<RepaintReason> = []
    /// The timer is armed for a frame.
    public private(set) var isArmed = false
    /// The earliest time a frame is wanted at, and why (`request(_:at:)`): it becomes a pending
    /// reason when the clock reaches it.
    public private(set) var timed: (time: Double, reason: RepaintReason)?
    /// When the oldest frame still waiting for its page flip was committed (the watchdog:
    /// a flip that never completes); nil while none waits.
    public private(set) var flipPendingSince: Double?

    public init(pacing: Pacing, repaintWindow: Double) {
        self.pacing = pacing
        planner = RepaintPlanner(repaintWindow: repaintWindow)
    }

    /// Whether the outputs are paced by their refreshes (page flips).
    public var isPaced: Bool { !planner.outputs.isEmpty }

    /// Whether a frame is wanted: a reason is pending, or an output owes one.
    public var wantsFrame: Bool { !pending.isEmpty || !planner.ready(sceneChanged: false).isEmpty }

    /// Whether a frame drawn now reaches every output: none is still waiting for a flip.
    public var canDrawEverywhere: Bool { !planner.anyAwaiting }

    public mutating func request(_ reason: RepaintReason) { pending.insert(reason) }

    /// A frame is wanted at `time` (CLOCK_MONOTONIC seconds) and not before: the loop sleeps
    /// until then unless something else wants a frame sooner. The earliest such time is kept.
    public mutating func request(_ reason: RepaintReason, at time: Double) {
        guard time.isFinite else { return }
        if let t = timed, t.time <= time { return }
        timed = (time, reason)
        // A timer armed for a later time is armed again for this one.
        if isArmed, pending.isEmpty, !isPaced { isArmed = false }
    }

    /// A timed request whose time has come becomes a pending reason.
    private mutating func takeTimed(now: Double) {
        guard let t = timed, t.time <= now else { return }
        pending.insert(t.reason)
        timed = nil
    }

    /// The outputs that page-flip and their refresh periods (at start, after hotplug or a power
    /// change); new ones owe a frame.
    public mutating func setOutputs(_ paced: [(name: String, refreshInterval: Double)]) {
        planner.setOutputs(paced)
        if !planner.anyAwaiting { flipPendingSince = nil }
    }

    /// Whether to arm the timer now, and for when: nil when it is armed already or no frame
    /// is wanted (or every output that would draw awaits its flip: the flip schedules again).
    public mutating func schedule(now: Double) -> Wake? {
        guard !isArmed else { return nil }
        takeTimed(now: now)
        // Nothing else wants a frame: sleep until the timed request (a real clock only; the
        // virtual clock moves when told, and its advances ask for frames themselves).
        if pending.isEmpty, pacing != .virtualClock, let t = timed, planner.ready(sceneChanged: false).isEmpty {
            isArmed = true
            return .at(t.time)
        }
        let wake: Wake
        if isPaced {
            guard let at = planner.nextFrameTime(now: now, sceneChanged: !pending.isEmpty) else { return nil }
            wake = pacing == .virtualClock ? .afterCurrentEvent : .at(at)
        } else {
            guard !pending.isEmpty else { return nil }
            switch pacing {
            case .virtualClock:
                wake = .afterCurrentEvent
            case .refreshRate(let hz):
                // The next refresh boundary of the monotonic clock.
                let period = 1 / hz
                wake = .at((now / period).rounded(.down) * period + period)
            }
        }
        isArmed = true
        return wake
    }

    /// The timer fired at `now`: the frame to draw, or nil when there is nothing to draw (or
    /// nowhere to draw it yet).
    public mutating func frameDue(now: Double) -> Frame? {
        isArmed = false
        takeTimed(now: now)
        return start(now: now, everywhere: false)
    }

    /// A request needs the current state drawn now: the frame, on every output, or nil where
    /// some output still waits for its flip (the request then waits for the next frame).
    public mutating func flush(now: Double) -> Frame? {
        guard canDrawEverywhere else { return nil }
        return start(now: now, everywhere: true)
    }

    private mutating func start(now: Double, everywhere: Bool) -> Frame? {
        let reasons = pending
        guard isPaced else {
            guard everywhere || !reasons.isEmpty else { return nil }
            pending.removeAll(keepingCapacity: true)
            return Frame(outputs: nil, target: nil, reasons: reasons)
        }
        let changed = everywhere || !reasons.isEmpty
        let ready = planner.ready(sceneChanged: changed)
        guard !ready.isEmpty else { return nil }
        let target = planner.frameStarted(at: now, on: ready, sceneChanged: changed)
        pending.removeAll(keepingCapacity: true)
        return Frame(outputs: ready, target: target, reasons: reasons)
    }

    /// The frame was handed to the backend at `now`: `flipping` wait for their page flips,
    /// the other outputs it was drawn on showed it at once (or not at all).
    public mutating func submitted(_ frame: Frame, flipping: Set<String>, now: Double) {
        guard let outputs = frame.outputs else { return }
        planner.frameSubmitted(outputs, flipping: flipping, now: now)
        if !flipping.isEmpty, flipPendingSince == nil { flipPendingSince = now }
    }

    /// Frames reached the screen (the backend's page-flip events).
    public mutating func presented(_ presentations: [BackendEvents.Presentation]) {
        for p in presentations { planner.presented(p.output, at: p.time) }
        if !planner.anyAwaiting { flipPendingSince = nil }
    }
}
