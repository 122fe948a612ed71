import LaminaCompositor

/// A video's sound on laminad's side: its decoded samples (`DecodedAudio`), the output they
/// go to (`AudioOutput`, opened with the first span that has sound to give), its volume and
/// mute (applied to the samples as they go out), and, when it plays silent, why. An output that cannot open or fails leaves the video
/// silent (its pictures play on); the reason shows in `stats` and is logged once by laminad.
struct VideoSound {
    /// The `[audio] sink` description; nil for `"none"`.
    let sink: String?
    let counts: AudioCounts
    var decoded = DecodedAudio()
    private var output: AudioOutput?
    private var volume = 1.0
    private var muted = false
    private(set) var state = VideoAudioState.noSound {
        didSet {
            guard state != oldValue else { return }
            counts.leave(oldValue)
            counts.enter(state)
        }
    }

    init(sink: String?, counts: AudioCounts) {
        self.sink = sink
        self.counts = counts
    }

    mutating func set(volume: Double, muted: Bool) {
        self.volume = volume
        self.muted = muted
    }

    /// The media has sound, but laminad decodes none (`[audio] sink = "none"`).
    mutating func noBranch() {
        if state == .noSound { state = .silent(reason: "[audio] sink = \"none\": laminad plays no sound", key: "noSink") }
    }

    /// Pushes the span's samples (silence, then the media's) to the output, opening it first.
    mutating func play(_ span: AudioSpan, presentAt: Double?) {
        guard let sink else { return noBranch() }
        if case .silent = state { return }
        if output == nil {
            do {
                output = try AudioOutput(sink: sink, presentAt: presentAt)
                state = .playing
            } catch {
                state = .silent(reason: error.message, key: "sinkFailed")
                return
            }
        }
        var samples: [Int16] = []
        samples.reserveCapacity(span.count * DecodedAudio.channels)
        samples.append(contentsOf: repeatElement(0, count: span.silence * DecodedAudio.channels))
        decoded.copy(from: span.mediaStart, count: span.mediaCount, into: &samples)
        samples.append(contentsOf: repeatElement(0, count: span.silenceAfter * DecodedAudio.channels))
        // The gain goes on here, span by span, rather than in a volume element of the output,
        // whose streaming thread would apply a change to whatever it holds then (up to the
        // output's lead): this way a control changes the sound from its own clock time on.
        let gain = muted ? 0 : volume
        if gain != 1 {
            for i in samples.indices { samples[i] = Int16((Double(samples[i]) * gain).rounded()) }
        }
        do {
            try output?.push(samples, at: span.position, discontinuous: span.discontinuous)
        } catch {
            output?.close(drain: false)
            output = nil
            state = .silent(reason: "the sound output '\(sink)' failed: \(error.message)", key: "sinkFailed")
        }
    }

    /// Ends the output's stream (a file sink's file is complete) and stops it.
    mutating func close() {
        output?.close(drain: true)
        output = nil
        state = .noSound
    }
}

/// Sound outputs open now over every decoder, for `stats` (loop thread only).
final class AudioCounts {
    var playing = 0
    func enter(_ state: VideoAudioState) { if state == .playing { playing += 1 } }
    func leave(_ state: VideoAudioState) { if state == .playing { playing -= 1 } }
}
