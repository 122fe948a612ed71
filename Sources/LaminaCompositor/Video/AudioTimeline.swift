/// Which samples of a video's sound go out for a span of the compositor's clock: the output
/// is one stream of 48 kHz samples laid on the clock from the moment the video was made, and
/// each span of clock is filled with the media's samples for the media time that passed in it
/// (silence for clock time in which the media did not move: paused, at its end, or at a rate
/// other than 1). So the compositor's clock, real or virtual, drives the sound as it drives
/// the picture: on the virtual clock a span is exactly the clock's step, sample for sample.
public struct AudioTimeline: Sendable, Equatable {
    /// Samples a second, on the output and in `AudioSpan`'s media positions.
    public static let sampleRate = 48_000

    /// Clock time of output sample 0.
    public let origin: Double
    /// Output samples given so far (the next span starts here).
    public private(set) var position: Int64 = 0
    /// The media sample that follows the last one given, while the media plays on from it.
    public private(set) var mediaCursor: Int64?

    /// Samples by which the media's position may differ from the clock's advance and still
    /// count as following on: the two are rounded to samples apart, so they differ by one.
    static let jitter: Int64 = 2
    /// The most samples one span holds: ten seconds.
    public static let maximumSpan = 10 * sampleRate

    public init(origin: Double) { self.origin = origin }

    /// Takes back the last `n` samples of the span just given (a real clock's output that had
    /// not all of them decoded yet: the next span starts with them).
    public mutating func giveBack(_ n: Int) {
        guard n > 0 else { return }
        position -= Int64(n)
        if let c = mediaCursor { mediaCursor = c - Int64(n) }
    }

    /// The output sample at clock time `t`.
    public func sample(at t: Double) -> Int64 {
        guard t.isFinite, t > origin else { return 0 }
        return Int64(((t - origin) * Double(Self.sampleRate)).rounded())
    }

    /// The span from where the output stands up to clock time `end`, where media time will be
    /// `mediaEnd`; `audible`: the media plays at rate 1 (otherwise the span is silence).
    /// `earliest`: clock time before which nothing is given any more (a real clock's now: the
    /// output skips what it is too late for). Nil when there is nothing new to give.
    public mutating func span(to end: Double, mediaEnd: Double, audible: Bool, earliest: Double? = nil) -> AudioSpan? {
        var discontinuous = false
        if let earliest {
            let now = sample(at: earliest)
            if position < now {
                position = now
                discontinuous = true
            }
        }
        let target = sample(at: end)
        // One span is ten seconds at most (a virtual clock advanced by an hour gives its last
        // ten seconds, after a gap): what one frame allocates and pushes stays bounded.
        if target - position > Int64(Self.maximumSpan) {
            position = target - Int64(Self.maximumSpan)
            discontinuous = true
        }
        let count = target - position
        guard count > 0 else { return nil }
        let start = position
        position = target
        let rate = Double(Self.sampleRate)
        let mediaSample = mediaEnd.isFinite && mediaEnd > 0 ? Int64((mediaEnd * rate).rounded()) : 0
        let cursorBefore = mediaCursor
        mediaCursor = audible ? mediaSample : nil
        guard audible else {
            return AudioSpan(position: start, silence: Int(count), mediaStart: mediaSample, mediaCount: 0,
                             discontinuous: discontinuous || cursorBefore != nil)
        }
        if let cursor = cursorBefore, !discontinuous, mediaSample > cursor, abs(mediaSample - (cursor + count)) <= Self.jitter {
            // The media went on with the clock (the two times round apart by a sample or so).
            mediaCursor = cursor + count
            return AudioSpan(position: start, silence: 0, mediaStart: cursor, mediaCount: Int(count), discontinuous: false)
        }
        if let cursor = cursorBefore, !discontinuous, mediaSample >= cursor, mediaSample - cursor <= count {
            // The media went on from where the last span stopped, then stood still (its end).
            let played = mediaSample - cursor
            return AudioSpan(position: start, silence: 0, mediaStart: cursor, mediaCount: Int(played),
                             silenceAfter: Int(count - played), discontinuous: false)
        }
        // A seek, a loop's wrap, a start: the span ends at the media time, as much before it as there is.
        let played = min(count, mediaSample)
        return AudioSpan(position: start, silence: Int(count - played), mediaStart: mediaSample - played, mediaCount: Int(played),
                         discontinuous: true)
    }
}

/// Samples of a video's sound for the output (`AudioTimeline.span`): `silence` samples of
/// silence, then the media's samples `mediaStart ..< mediaStart + mediaCount` (positions at
/// `AudioTimeline.sampleRate` from the media's start), then `silenceAfter` of silence, the
/// first at output sample `position`.
public struct AudioSpan: Sendable, Equatable {
    public var position: Int64
    public var silence: Int
    public var mediaStart: Int64
    public var mediaCount: Int
    public var silenceAfter: Int
    /// The span does not follow on from the last one (a seek, a skip).
    public var discontinuous: Bool
    public var count: Int { silence + mediaCount + silenceAfter }

    public init(position: Int64, silence: Int, mediaStart: Int64, mediaCount: Int, silenceAfter: Int = 0, discontinuous: Bool) {
        self.position = position
        self.silence = silence
        self.mediaStart = mediaStart
        self.mediaCount = mediaCount
        self.silenceAfter = silenceAfter
        self.discontinuous = discontinuous
    }
}

/// What a video's sound is doing, for `stats` and logs.
public enum VideoAudioState: Sendable, Equatable {
    /// No sound (yet): the media has no audio stream, or none was decoded so far.
    case noSound
    /// Its samples go to the sound output.
    case playing
    /// The media has sound, but it plays silent; why, in words and as a short name for `stats`.
    case silent(reason: String, key: String)
}
