/// Which frame of an animated image (GIF, WebP) shows at a time since it started playing, and
/// when that next changes: the timing a player of `AnimatedImage` frames runs on laminad's
/// clock (virtual or real).
///
/// - Frame `i` shows from the sum of the delays before it until that plus its own delay; a
///   time exactly at a boundary shows the new frame. A frame with a delay of 0 never shows.
/// - `loopCount` plays the whole sequence that many times, then the last frame stays;
///   0 loops forever. After the end, `nextChange` is nil.
/// - Times are kept in whole nanoseconds (rounded), so a boundary `nextChange` returns is
///   exactly the boundary `frame(at:)` sees. A time of 10^9 s (31 years) or more is reduced
///   modulo the cycle in floating point, as precise as a Double allows there; nothing loops
///   over past cycles, so any time costs the same.
/// - Before 0 (and for NaN) the first frame shows. When all delays are 0 (or there is one
///   frame) the last frame shows at every time and nothing changes.
public struct AnimatedImageTimeline: Equatable, Sendable {
    /// The delays as given, in seconds.
    public let delays: [Double]
    /// How many times the sequence plays; 0 is forever (a negative count is taken as 0).
    public let loopCount: Int
    /// Where each frame starts in a cycle, in nanoseconds (nondecreasing, `starts[0] == 0`).
    private let starts: [Int64]
    /// One cycle, in nanoseconds.
    private let cycle: Int64
    /// The distinct boundaries in a cycle after 0, ending with `cycle`: where a change can be.
    private let boundaries: [Int64]

    public init(delays: [Double], loopCount: Int) {
        self.delays = delays
        self.loopCount = max(0, loopCount)
        var starts: [Int64] = [], total: Int64 = 0
        for delay in delays {
            starts.append(total)
            total = min(Self.timeCap, total + Self.nanoseconds(delay, cap: Self.delayCap))
        }
        self.starts = starts
        cycle = total
        var boundaries: [Int64] = []
        for s in starts.dropFirst() + [total] where s > 0 && s != boundaries.last { boundaries.append(s) }
        self.boundaries = boundaries
    }

    /// The frames' count.
    public var frameCount: Int { delays.count }

    /// One play of the sequence, in seconds (the delays' sum as the timeline keeps it).
    public var cycleDuration: Double { Double(cycle) / 1e9 }

    /// When the last loop ends and the last frame stays, in seconds; nil when it loops forever.
    public var duration: Double? {
        guard loopCount > 0 else { return nil }
        let (end, overflow) = cycle.multipliedReportingOverflow(by: Int64(loopCount))
        return overflow ? cycleDuration * Double(loopCount) : Double(end) / 1e9
    }

    /// The frame (0 ..< `frameCount`) showing `elapsed` seconds after the start; 0 when there
    /// are no frames.
    public func frame(at elapsed: Double) -> Int {
        guard frameCount > 0 else { return 0 }
        guard cycle > 0 else { return frameCount - 1 }
        let instant = Instant(elapsed, cycle: cycle)
        if hasEnded(instant, elapsed: elapsed) { return frameCount - 1 }
        return frame(inCycleAt: instant.phase)
    }

    /// The first time after `elapsed` (seconds) at which a different frame shows, or nil when
    /// none will (the last loop has ended, or the frames never change).
    public func nextChange(after elapsed: Double) -> Double? {
        guard frameCount > 1, cycle > 0 else { return nil }
        let from = elapsed > 0 ? elapsed : 0
        let instant = Instant(from, cycle: cycle)
        if hasEnded(instant, elapsed: from) { return nil }
        let current = frame(inCycleAt: instant.phase)
        // The boundaries after now in this cycle, then the next cycle's up to now: the sequence
        // repeats after that, so a frame that does not change by then never changes.
        let first = boundaries.firstIndex { $0 > instant.phase } ?? boundaries.count
        let ahead = Array(boundaries[first...]) + boundaries[..<first].map { $0 + cycle }
        let end = duration
        for offset in ahead {
            let time = instant.time(at: offset)
            if let end, time >= end { break }
            if frame(inCycleAt: offset % cycle) != current { return time }
        }
        if let end, frameCount - 1 != current { return end }
        return nil
    }

    // MARK: - Nanoseconds

    /// Times up to 10^9 s are kept as integer nanoseconds.
    private static let exactLimit = 1e9
    /// No delay counts for more than 10^6 s, and no cycle for more than 4·10^18 ns (Int64 room).
    private static let delayCap: Int64 = 1_000_000_000_000_000
    private static let timeCap: Int64 = 4_000_000_000_000_000_000

    private static func nanoseconds(_ seconds: Double, cap: Int64) -> Int64 {
        guard seconds > 0 else { return 0 }  // negative, zero and NaN
        let ns = (seconds * 1e9).rounded()
        return ns >= Double(cap) ? cap : Int64(ns)
    }

    /// A time as the start of its cycle and the nanoseconds into it.
    private struct Instant {
        /// The cycle's start in nanoseconds when the time is under `exactLimit`, else nil.
        var cycleStartNanoseconds: Int64?
        /// The cycle's start in seconds (for times past `exactLimit`).
        var cycleStart: Double
        var phase: Int64
        /// The time itself in nanoseconds (under `exactLimit`).
        var nanoseconds: Int64?

        init(_ elapsed: Double, cycle: Int64) {
            let seconds = elapsed > 0 ? elapsed : 0
            if seconds < AnimatedImageTimeline.exactLimit {
                let t = AnimatedImageTimeline.nanoseconds(seconds, cap: AnimatedImageTimeline.timeCap)
                phase = t % cycle
                cycleStartNanoseconds = t - phase
                cycleStart = Double(t - phase) / 1e9
                nanoseconds = t
            } else if seconds.isFinite {
                // fmod is exact; the phase is rounded to nanoseconds like any other time.
                let cycleSeconds = Double(cycle) / 1e9
                let remainder = seconds.truncatingRemainder(dividingBy: cycleSeconds)
                phase = min(cycle - 1, AnimatedImageTimeline.nanoseconds(remainder, cap: cycle))
                cycleStart = seconds - remainder
            } else {
                phase = 0
                cycleStart = .infinity
            }
        }

        /// The time `offset` nanoseconds after this cycle's start, in seconds.
        func time(at offset: Int64) -> Double {
            if let start = cycleStartNanoseconds { return Double(start + offset) / 1e9 }
            return cycleStart + Double(offset) / 1e9
        }
    }

    private func hasEnded(_ instant: Instant, elapsed: Double) -> Bool {
        guard loopCount > 0 else { return false }
        if let t = instant.nanoseconds {
            let (end, overflow) = cycle.multipliedReportingOverflow(by: Int64(loopCount))
            return !overflow && t >= end
        }
        return elapsed >= duration ?? .infinity
    }

    /// The last frame starting at or before `phase` (0 ≤ phase < cycle): a frame with no
    /// duration shares its start with the next and is passed over.
    private func frame(inCycleAt phase: Int64) -> Int {
        var low = 0, high = starts.count  // the first start after phase is in low ..< high
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= phase { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}
