/// `CAFrameRateRange`: the rates a display link would like its callbacks at, in frames per
/// second. All zero (`.default`) is the rate of the output it follows.
public struct FrameRateRange: Hashable, Sendable, CustomStringConvertible {
    public var minimum: Double
    public var maximum: Double
    public var preferred: Double

    public init(minimum: Double, maximum: Double, preferred: Double) {
        self.minimum = minimum
        self.maximum = maximum
        self.preferred = preferred
    }

    /// The output's own rate.
    public static let `default` = FrameRateRange(minimum: 0, maximum: 0, preferred: 0)

    /// The highest rate any range may name (frames per second).
    public static let maximumRate = 1000.0

    public var description: String { "(minimum \(minimum), maximum \(maximum), preferred \(preferred))" }

    /// Why the range is not one laminad takes, or nil: every number finite, 0 to
    /// `maximumRate`; with a maximum, minimum ≤ maximum and a preferred rate (when not 0)
    /// between them.
    public var problem: String? {
        for (name, v) in [("minimum", minimum), ("maximum", maximum), ("preferred", preferred)] {
            guard v.isFinite, v >= 0, v <= Self.maximumRate else {
                return "the frame rate range's \(name) must be a finite number of frames per second from 0 to \(Int(Self.maximumRate)), got \(v)"
            }
        }
        if maximum > 0 {
            guard minimum <= maximum else { return "the frame rate range's minimum \(minimum) is above its maximum \(maximum)" }
            guard preferred == 0 || (minimum...maximum).contains(preferred) else {
                return "the frame rate range's preferred rate \(preferred) is outside its minimum \(minimum) and maximum \(maximum)"
            }
        } else if preferred > 0, preferred < minimum {
            return "the frame rate range's preferred rate \(preferred) is below its minimum \(minimum)"
        }
        return nil
    }

    /// Every how many refreshes of an output at `refresh` Hz a link with this range fires
    /// (`CADisplayLink` on a 60 Hz display: 30 Hz preferred fires every other refresh): the
    /// divisor whose rate is nearest the preferred one (else the maximum, else the output's),
    /// kept within the minimum and maximum where a divisor can be.
    public func divisor(refresh: Double) -> Int {
        guard refresh.isFinite, refresh > 0, self != .default else { return 1 }
        let target = preferred > 0 ? preferred : (maximum > 0 ? maximum : refresh)
        var n = Swift.max(1.0, (refresh / Swift.max(target, 1e-3)).rounded())
        if maximum > 0 { n = Swift.max(n, (refresh / maximum - 1e-9).rounded(.up)) }
        if minimum > 0 { n = Swift.min(n, Swift.max(1, (refresh / minimum + 1e-9).rounded(.down))) }
        return Int(Swift.min(n, 1000))
    }
}

/// What a `display-link` request (kind 15, protocol 1.7) does to one of the client's links.
public enum DisplayLinkChange: Hashable, Sendable {
    /// The link stops and is forgotten (`invalidate()`).
    case remove
    /// Creates the link, or updates it: paused or running, the rates it would like, and the
    /// output it follows (by name; empty: the fastest output).
    case set(isPaused: Bool, range: FrameRateRange, output: String)

    public var opcode: UInt8 {
        switch self {
        case .remove: 0
        case .set: 1
        }
    }
}

/// A `frame` message (0x8D, protocol 1.7): a frame is being prepared; the client's display
/// links named run their callbacks. Times are laminad's media time (its clock's).
public struct DisplayLinkFrame: Hashable, Sendable {
    /// The links that fire (the client's own numbers).
    public var links: [UInt32]
    /// The presentation time of the last frame.
    public var timestamp: Double
    /// The presentation time of the frame being prepared: a commit made now is shown then.
    public var targetTimestamp: Double
    /// The output's refresh interval (seconds between refreshes).
    public var duration: Double

    public init(links: [UInt32], timestamp: Double, targetTimestamp: Double, duration: Double) {
        self.links = links
        self.timestamp = timestamp
        self.targetTimestamp = targetTimestamp
        self.duration = duration
    }

    /// At most this many links in one message (the per-client budget is smaller).
    public static let maximumLinks = 1024
}

extension ByteWriter {
    mutating func displayLinkRequest(link: UInt32, _ change: DisplayLinkChange) {
        u32(link)
        u8(change.opcode)
        if case let .set(paused, range, output) = change {
            bool(paused)
            f64(range.minimum); f64(range.maximum); f64(range.preferred)
            string(output)
        }
    }

    mutating func displayLinkFrame(_ f: DisplayLinkFrame) {
        f64(f.timestamp); f64(f.targetTimestamp); f64(f.duration)
        u32(UInt32(f.links.count))
        for l in f.links { u32(l) }
    }
}

extension ByteReader {
    mutating func displayLinkRequest() throws(DecodeError) -> Request {
        let link = try u32("display-link link")
        let op = try u8("display-link change")
        switch op {
        case 0: return .displayLink(link: link, .remove)
        case 1:
            let paused = try bool("display-link paused")
            let range = FrameRateRange(minimum: try f64("display-link minimum rate"), maximum: try f64("display-link maximum rate"),
                                       preferred: try f64("display-link preferred rate"))
            return .displayLink(link: link, .set(isPaused: paused, range: range, output: try string("display-link output", limit: 256)))
        default: throw DecodeError.invalid(field: "display-link change", reason: "unknown change \(op) (0 remove, 1 set)")
        }
    }

    mutating func displayLinkFrame() throws(DecodeError) -> DisplayLinkFrame {
        let t = try f64("frame timestamp"), target = try f64("frame target timestamp"), d = try f64("frame duration")
        let n = Int(try u32("frame link count"))
        guard n <= DisplayLinkFrame.maximumLinks, n <= remaining / 4 else {
            throw DecodeError.invalid(field: "frame link count", reason: "\(n) links cannot fit (at most \(DisplayLinkFrame.maximumLinks))")
        }
        var links: [UInt32] = []
        links.reserveCapacity(n)
        for _ in 0..<n { links.append(try u32("frame link")) }
        return DisplayLinkFrame(links: links, timestamp: t, targetTimestamp: target, duration: d)
    }
}
