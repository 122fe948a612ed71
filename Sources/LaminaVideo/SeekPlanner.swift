/// When a decoder seeks rather than decoding through to the media time asked for.
///
/// Behind the picture shown (a loop's wrap, a seek back), or further ahead than decoding
/// through is worth, the decoder seeks. A flushing seek takes time before its first picture
/// arrives (the pipeline flushes and prerolls again: milliseconds on a machine, seconds under
/// an emulator on a busy host). Two rules keep seeks from starving playback:
/// - **One seek at a time.** While a seek is in flight no other goes out, whatever the media
///   time does: a new flushing seek would throw away the one about to land, and a seek
///   slower than the reach would then be replaced at every frame and never give a picture
///   (laminad once played two VP8 files as their first frames only, under a loaded QEMU
///   guest). Once it lands, the decoder looks again from the picture it gave.
/// - **The reach grows with the seek's cost.** How far ahead of the picture shown a media time
///   must be before a seek beats decoding through: at least `minimumReach`, and twice the last
///   seek's latency, so a decoder that lands late catches up by decoding rather than seeking
///   again to a time that is past when it lands.
///
/// A pure value: the time (monotonic seconds) comes in with each call, so these rules are
/// tested without GStreamer or a real clock.
struct SeekPlanner {
    /// The least reach, in seconds of media.
    static let minimumReach = 2.0

    /// What the decoder does for the media time asked.
    enum Decision: Equatable {
        /// Pull pictures up to the media time.
        case decodeThrough
        /// Seek (flushing) to this media time.
        case seek(to: Double)
        /// A seek is in flight: take the first picture it gives.
        case awaitSeek
    }

    /// The seek in flight: where it goes, and when (monotonic seconds) it went out.
    private(set) var inFlight: (target: Double, since: Double)?
    /// Seconds between the last seek and its first picture.
    private(set) var lastLatency = 0.0

    var isSeeking: Bool { inFlight != nil }

    /// How far ahead of the picture shown (or decoded ahead) a media time must be to seek.
    var reach: Double { max(Self.minimumReach, 2 * lastLatency) }

    /// What to do for `mediaTime`, with the picture `shown` (nil: none yet) and one decoded
    /// ahead at `decodedAhead` (nil: none). A seek's target is never negative; the decoder
    /// keeps it within the media's length.
    func decide(mediaTime: Double, shown: Double?, decodedAhead: Double?) -> Decision {
        if inFlight != nil { return .awaitSeek }
        guard let shown = shown ?? decodedAhead else { return .decodeThrough }
        let behind = mediaTime < shown - 1e-6
        let farAhead = mediaTime > shown + reach && (decodedAhead.map { $0 < mediaTime - reach } ?? true)
        guard behind || farAhead else { return .decodeThrough }
        return .seek(to: max(0, mediaTime))
    }

    /// A seek to `target` went out at `now`.
    mutating func started(_ target: Double, at now: Double) {
        inFlight = (target, now)
    }

    /// The seek's first picture arrived at `now`.
    mutating func landed(at now: Double) {
        guard let seek = inFlight else { return }
        lastLatency = max(0, now - seek.since)
        inFlight = nil
    }

    /// The seek ended without a picture (the stream ended first, or the pipeline went away):
    /// the next decision may seek again.
    mutating func abandoned() {
        inFlight = nil
    }
}
