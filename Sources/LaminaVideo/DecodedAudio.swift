import LaminaCompositor

/// A video's decoded sound by media sample: 16-bit stereo at `AudioTimeline.sampleRate`, as
/// the pipeline's audio sink gave it, from `start` on. The decoder keeps what spans will still
/// want and lets the rest go; at most `limit` samples are kept (the oldest go first).
struct DecodedAudio {
    static let channels = 2
    /// Eight seconds.
    static let limit = 8 * AudioTimeline.sampleRate

    /// The media sample of the first one kept.
    private(set) var start: Int64 = 0
    /// Interleaved left, right; from `offset` on (the ones before are let go, and compacted away now and then).
    private var samples: [Int16] = []
    private var offset = 0

    /// Samples kept (each a left-right pair).
    var count: Int { (samples.count - offset) / Self.channels }
    /// The media sample after the last one kept.
    var end: Int64 { start + Int64(count) }

    /// Forgets everything (a seek flushed the pipeline).
    mutating func reset() {
        samples.removeAll(keepingCapacity: true)
        offset = 0
        start = 0
    }

    /// Adds decoded samples whose first is media sample `at`: after the last ones (a gap of
    /// up to two seconds is silence; a jump elsewhere starts afresh).
    mutating func append(at: Int64, _ data: UnsafeBufferPointer<Int16>) {
        let gap = at - end
        if count == 0 {
            reset()
            start = at
        } else if gap > 48 && gap <= Int64(2 * AudioTimeline.sampleRate) {
            samples.append(contentsOf: repeatElement(0, count: Int(gap) * Self.channels))
        } else if abs(gap) > 48 {
            reset()
            start = at
        }
        // Within a millisecond: the next samples (timestamps round).
        samples.append(contentsOf: data)
        if count > Self.limit { dropBefore(end - Int64(Self.limit)) }
    }

    /// Lets go of the samples before media sample `media`.
    mutating func dropBefore(_ media: Int64) {
        let n = Int(min(max(0, media - start), Int64(count)))
        guard n > 0 else { return }
        offset += n * Self.channels
        start += Int64(n)
        if offset > samples.count / 2 {
            samples.removeFirst(offset)
            offset = 0
        }
    }

    /// The samples `from ..< from + count`, silence for those not kept, appended to `out`.
    func copy(from: Int64, count n: Int, into out: inout [Int16]) {
        guard n > 0 else { return }
        let lo = max(from, start), hi = min(from + Int64(n), end)
        if lo >= hi {
            out.append(contentsOf: repeatElement(0, count: n * Self.channels))
            return
        }
        out.append(contentsOf: repeatElement(0, count: Int(lo - from) * Self.channels))
        let first = offset + Int(lo - start) * Self.channels
        out.append(contentsOf: samples[first..<(first + Int(hi - lo) * Self.channels)])
        out.append(contentsOf: repeatElement(0, count: Int(from + Int64(n) - hi) * Self.channels))
    }
}
