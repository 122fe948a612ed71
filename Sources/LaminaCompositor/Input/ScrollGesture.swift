import LaminaCore
import LaminaProtocol

/// One scroll layer that laminad is scrolling (`scrollsOnTouch`): who drives it and where its
/// origin is. The router changes what drives it (a finger, its release, a wheel); the frame
/// step turns that into the origin at the frame's time (`step`). A value: nothing here reads a
/// clock or the tree.
struct ActiveScroll {
    /// What moves the origin.
    enum Drive {
        /// A finger holds it: the touch, where the finger was (in the layer's offset-free space:
        /// its bounds coordinates less its origin) when the drag took hold, the raw offset then,
        /// and where the finger is now.
        case finger(touch: Int32, anchor: Point, anchorOffset: Point, at: Point, tracker: VelocityTracker)
        /// Released: each axis on its own curve (nil for an axis that does not scroll).
        case released(x: AxisMotion?, y: AxisMotion?)
        /// A wheel turned: the distance not yet applied, and when it last turned.
        case wheel(pending: Point, last: Double)
    }

    var target: InputState.Target
    var source: ScrollEvent.Source
    var drive: Drive
    /// The raw offset (ScrollPhysics.swift) as of the last step.
    var raw: Point
    /// The offset the last step wrote to the layer's `bounds.origin`.
    var shown: Point
    var velocity = Point.zero
    /// Whether `began` was reported.
    var began = false
    /// The extent along each axis, and the entry's change count it was computed at (a commit
    /// moves the count; the step's own writes to the origin are counted in).
    var axes: (x: ScrollAxis, y: ScrollAxis)?
    var axesVersion: UInt64 = 0

    /// Seconds after the last turn of a wheel before its scroll ends.
    static let wheelIdle = 0.15

    /// The step's outcome for one frame.
    struct Step {
        /// The origin to show.
        var shown: Point
        /// The scroll came to rest.
        var ended: Bool
    }

    /// Moves the scroll to time `t` on `axes`, scrolling only the axes `mode` allows and paging
    /// where `paging` says.
    mutating func step(at t: Double, axes: (x: ScrollAxis, y: ScrollAxis), mode: ScrollMode) -> Step {
        let sx = mode.scrollsHorizontally, sy = mode.scrollsVertically
        var ended = false
        switch drive {
        case let .finger(_, anchor, anchorOffset, at, tracker):
            if sx { raw.x = anchorOffset.x - (at.x - anchor.x) }
            if sy { raw.y = anchorOffset.y - (at.y - anchor.y) }
            let v = tracker.velocity(at: t)
            velocity = Point(x: sx ? -v.x : 0, y: sy ? -v.y : 0)
        case let .released(mx, my):
            let a = sx ? mx?.sample(at: t, on: axes.x) : nil
            let b = sy ? my?.sample(at: t, on: axes.y) : nil
            if let a { raw.x = a.offset }
            if let b { raw.y = b.offset }
            velocity = Point(x: a?.velocity ?? 0, y: b?.velocity ?? 0)
            ended = (a?.isResting ?? true) && (b?.isResting ?? true)
        case let .wheel(pending, last):
            // A wheel moves within the extent: no rubber band without a finger to pull it.
            if sx { raw.x = axes.x.clamped(raw.x + pending.x) }
            if sy { raw.y = axes.y.clamped(raw.y + pending.y) }
            drive = .wheel(pending: .zero, last: last)
            velocity = .zero
            ended = t >= last + Self.wheelIdle
        }
        shown = Point(x: sx ? axes.x.shown(raw.x) : shown.x, y: sy ? axes.y.shown(raw.y) : shown.y)
        return Step(shown: shown, ended: ended)
    }

    /// The finger lifted at time `t` (`cancelled`: it was taken away; no momentum): each axis
    /// `mode` scrolls starts its curve from the raw offset and the finger's velocity.
    mutating func release(at t: Double, cancelled: Bool, mode: ScrollMode, paging: Bool) {
        guard case let .finger(_, anchor, anchorOffset, at, tracker) = drive, let axes else {
            drive = .released(x: nil, y: nil)
            return
        }
        let raw = Point(x: anchorOffset.x - (at.x - anchor.x), y: anchorOffset.y - (at.y - anchor.y))
        let v = cancelled ? .zero : tracker.velocity(at: t)
        drive = .released(
            x: mode.scrollsHorizontally ? AxisMotion.release(at: t, from: raw.x, velocity: -v.x, on: axes.x, paging: paging) : nil,
            y: mode.scrollsVertically ? AxisMotion.release(at: t, from: raw.y, velocity: -v.y, on: axes.y, paging: paging) : nil)
    }

    /// Whether it moves by itself at time `t`: momentum, a spring or a page still settling, or
    /// a wheel still turning. A finger touching it then catches it.
    func isMoving(at t: Double) -> Bool {
        switch drive {
        case .finger: return false
        case .wheel: return true
        case let .released(x, y):
            guard let axes else { return false }
            return !(x?.sample(at: t, on: axes.x).isResting ?? true) || !(y?.sample(at: t, on: axes.y).isResting ?? true)
        }
    }

    /// The touch driving it, if a finger holds it.
    var touch: Int32? {
        if case let .finger(touch, _, _, _, _) = drive { touch } else { nil }
    }
}

/// The router's scrolls: the scroll layers laminad is driving, and the touches that may yet
/// become a scroll.
struct ScrollState {
    /// By layer. At most `maximumActive` at once.
    var active: [InputState.Target: ActiveScroll] = [:]
    /// Touches whose down landed in scroll layers with `scrollsOnTouch` and that have not yet
    /// passed the threshold: the scroll layers above the layer hit, innermost first, and where
    /// the touch went down.
    var pending: [Int32: PendingScroll] = [:]
    /// Touches a scroll owns: their events go to no layer.
    var owned: [Int32: InputState.Target] = [:]

    /// The most scroll layers laminad drives at once (over all clients): the frame's work is
    /// bounded whatever the clients make; a scroll past it does not start (the touch stays with
    /// the layer it hit, the wheel goes to the client as an input event).
    static let maximumActive = 16
    /// How far (display points) a touch moves before a drag becomes a scroll (UIScrollView's
    /// pan threshold): until then taps and long presses on the layer hit are its own.
    static let panThreshold = 10.0
    /// How many scroll layers above the layer hit a touch considers (nested scroll layers).
    static let maximumNesting = 8
}

/// A touch that may become a scroll once it passes the pan threshold.
struct PendingScroll {
    /// Scroll layers with `scrollsOnTouch` above (or at) the layer hit, innermost first.
    var candidates: [InputState.Target]
    /// Where the touch went down, in display points.
    var down: Point
}
