import LaminaCore

/// A scroll laminad drives on one of the client's scroll layers (`scrollsOnTouch`), reported to
/// the owning client (message 0x8B, protocol 1.7). laminad has already moved the layer's
/// `bounds.origin` to `offset` in its model tree; the client takes the value into its own model
/// without sending it back.
public struct ScrollEvent: Hashable, Sendable {
    public enum Phase: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        /// A drag passed the pan threshold, or a wheel turned: laminad owns the origin now.
        case began = 0
        /// The origin moved (one event per frame that moved it: drag, momentum, bounce, paging).
        case moved = 1
        /// The scroll came to rest (momentum ran out, the bounce or the page settled, the wheel
        /// stopped); `offset` is where it rests.
        case ended = 2
        /// The scroll stopped before coming to rest: the client set `bounds.origin`, the layer
        /// left the tree or stopped scrolling on touch, or its client's session ended.
        case interrupted = 3

        public var description: String {
            switch self {
            case .began: "scrollBegan"
            case .moved: "scrollMoved"
            case .ended: "scrollEnded"
            case .interrupted: "scrollInterrupted"
            }
        }
    }

    /// What drives the scroll.
    public enum Source: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        /// A touch dragged it (and its momentum after the release).
        case touch = 0
        /// A pointer wheel (or touchpad) turned over it.
        case wheel = 1

        public var description: String {
            switch self {
            case .touch: "touch"
            case .wheel: "wheel"
            }
        }
    }

    /// The scroll layer.
    public var layer: LayerID
    public var phase: Phase
    public var source: Source
    /// The layer's `bounds.origin` now.
    public var offset: Point
    /// How fast the origin moves, in points per second (0 at rest and while a finger holds it
    /// still).
    public var velocity: Point
    /// laminad's clock at the frame that showed the offset (the clock animations run on).
    public var time: Double

    public init(layer: LayerID, phase: Phase, source: Source = .touch, offset: Point, velocity: Point = .zero, time: Double = 0) {
        self.layer = layer
        self.phase = phase
        self.source = source
        self.offset = offset
        self.velocity = velocity
        self.time = time
    }
}

extension ByteWriter {
    mutating func scrollEvent(_ e: ScrollEvent) {
        u32(e.layer.rawValue)
        u8(e.phase.rawValue)
        u8(e.source.rawValue)
        f64(e.offset.x); f64(e.offset.y)
        f64(e.velocity.x); f64(e.velocity.y)
        f64(e.time)
    }
}

extension ByteReader {
    mutating func scrollEvent() throws(DecodeError) -> ScrollEvent {
        let layer = LayerID(try u32("scroll layer"))
        let rawPhase = try u8("scroll phase")
        guard let phase = ScrollEvent.Phase(rawValue: rawPhase) else {
            throw DecodeError.invalid(field: "scroll phase", reason: "unknown phase \(rawPhase) (0 began, 1 moved, 2 ended, 3 interrupted)")
        }
        let rawSource = try u8("scroll source")
        guard let source = ScrollEvent.Source(rawValue: rawSource) else {
            throw DecodeError.invalid(field: "scroll source", reason: "unknown source \(rawSource) (0 touch, 1 wheel)")
        }
        return ScrollEvent(layer: layer, phase: phase, source: source,
                           offset: Point(x: try f64("scroll offset x"), y: try f64("scroll offset y")),
                           velocity: Point(x: try f64("scroll velocity x"), y: try f64("scroll velocity y")),
                           time: try f64("scroll time"))
    }
}
