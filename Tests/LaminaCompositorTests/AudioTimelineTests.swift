import Testing
import LaminaCompositor

/// Which samples of a video's sound go out for each span of the clock (`AudioTimeline`):
/// playing, the media's samples for the media time that passed; paused or at a rate other
/// than 1, silence; a seek or a loop's wrap starts afresh; a real clock skips what is late.
@Suite("audio timeline")
struct AudioTimelineTests {
    @Test("steps of a playing video give the media's samples, each following on from the last")
    func playing() {
        var t = AudioTimeline(origin: 10)
        #expect(t.span(to: 10.1, mediaEnd: 0.1, audible: true)
                == AudioSpan(position: 0, silence: 0, mediaStart: 0, mediaCount: 4800, discontinuous: true))
        #expect(t.span(to: 10.25, mediaEnd: 0.25, audible: true)
                == AudioSpan(position: 4800, silence: 0, mediaStart: 4800, mediaCount: 7200, discontinuous: false))
        #expect(t.span(to: 10.25, mediaEnd: 0.25, audible: true) == nil, "no clock time passed: nothing")
        #expect(t.position == 12000 && t.mediaCursor == 12000)
    }

    @Test("media time standing still is silence, and play goes on from where the media stood")
    func pausedThenPlaying() {
        var t = AudioTimeline(origin: 0)
        _ = t.span(to: 0.5, mediaEnd: 0.5, audible: true)
        // Standing at 0.5 (its end, say) for half a second: silence.
        #expect(t.span(to: 1, mediaEnd: 0.5, audible: true)
                == AudioSpan(position: 24000, silence: 0, mediaStart: 24000, mediaCount: 0, silenceAfter: 24000, discontinuous: false))
        #expect(t.span(to: 1.1, mediaEnd: 0.6, audible: true)
                == AudioSpan(position: 48000, silence: 0, mediaStart: 24000, mediaCount: 4800, discontinuous: false))
        // Not audible (a rate of 2, say): silence, and what follows starts afresh.
        #expect(t.span(to: 1.2, mediaEnd: 0.8, audible: false)?.silence == 4800)
        #expect(t.mediaCursor == nil)
        #expect(t.span(to: 1.3, mediaEnd: 0.9, audible: true)
                == AudioSpan(position: 57600, silence: 0, mediaStart: 38400, mediaCount: 4800, discontinuous: true))
    }

    @Test("the media reaching its end inside a span: its last samples, then silence")
    func endInsideASpan() {
        var t = AudioTimeline(origin: 0)
        _ = t.span(to: 1.9, mediaEnd: 1.9, audible: true)
        #expect(t.span(to: 2.1, mediaEnd: 2, audible: true)
                == AudioSpan(position: 91200, silence: 0, mediaStart: 91200, mediaCount: 4800, silenceAfter: 4800, discontinuous: false))
    }

    @Test("clock and media rounded a sample apart still follow on; given back, samples come first in the next span")
    func roundingAndGivingBack() {
        var t = AudioTimeline(origin: 0.0000104)
        _ = t.span(to: 0.1, mediaEnd: 0.1, audible: true)
        let next = t.span(to: 0.2, mediaEnd: 0.2, audible: true)
        #expect(next?.discontinuous == false && next?.silence == 0 && next?.silenceAfter == 0 && next?.mediaStart == t.mediaCursor.map { $0 - Int64(next!.mediaCount) })
        t.giveBack(1000)
        let again = t.span(to: 0.25, mediaEnd: 0.25, audible: true)
        #expect(again?.position == next.map { $0.position + Int64($0.count) - 1000 } && again?.discontinuous == false
                && again?.mediaStart == next.map { $0.mediaStart + Int64($0.mediaCount) - 1000 })
    }

    @Test("a virtual clock advanced by an hour: its last ten seconds, after a gap")
    func longStepsAreBounded() {
        var t = AudioTimeline(origin: 0)
        let span = t.span(to: 3600, mediaEnd: 3600, audible: false)
        #expect(span?.count == AudioTimeline.maximumSpan && span?.position == 3590 * 48000 && span?.discontinuous == true)
        #expect(t.position == 3600 * 48000)
    }

    @Test("a seek or a loop's wrap: the span ends at the new media time, silence where it reaches before 0")
    func seekAndWrap() {
        var t = AudioTimeline(origin: 0)
        _ = t.span(to: 0.1, mediaEnd: 0.1, audible: true)
        #expect(t.span(to: 0.2, mediaEnd: 1.5, audible: true)
                == AudioSpan(position: 4800, silence: 0, mediaStart: 67200, mediaCount: 4800, discontinuous: true))
        // Wrapped round to 0.05: 0.05 s of the media, the rest (before 0) silence.
        #expect(t.span(to: 0.3, mediaEnd: 0.05, audible: true)
                == AudioSpan(position: 9600, silence: 2400, mediaStart: 0, mediaCount: 2400, discontinuous: true))
    }

    @Test("a real clock's output is given ahead of the clock; what it is late for is skipped")
    func realClockSkipsWhatIsLate() {
        var t = AudioTimeline(origin: 0)
        // The first frame came 0.3 s after the video was made: [0, 0.3) is past.
        #expect(t.span(to: 0.45, mediaEnd: 0.45, audible: true, earliest: 0.3)
                == AudioSpan(position: 14400, silence: 0, mediaStart: 14400, mediaCount: 7200, discontinuous: true))
        // The next frame, 16 ms on: only what is new up to its lead.
        #expect(t.span(to: 0.466, mediaEnd: 0.466, audible: true, earliest: 0.316)
                == AudioSpan(position: 21600, silence: 0, mediaStart: 21600, mediaCount: 768, discontinuous: false))
    }
}
