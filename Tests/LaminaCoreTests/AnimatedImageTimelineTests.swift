import LaminaCore
import Testing

/// `AnimatedImageTimeline`: which frame of a GIF or WebP shows when, where it changes next,
/// exact at boundaries, after the last loop, at huge times and with degenerate delays.
@Suite("Animated image timeline")
struct AnimatedImageTimelineTests {
    static let threeFrames = [0.1, 0.2, 0.3]

    @Test func framesFollowTheDelaysAndABoundaryShowsTheNewFrame() {
        let timeline = AnimatedImageTimeline(delays: Self.threeFrames, loopCount: 0)
        let expected: [(Double, Int)] = [(0, 0), (0.05, 0), (0.0999, 0), (0.1, 1), (0.2999, 1), (0.3, 2), (0.5999, 2),
                                         (0.6, 0), (0.7, 1), (0.9, 2), (600.0, 0), (600.1, 1)]
        for (time, frame) in expected { #expect(timeline.frame(at: time) == frame, "at \(time)") }
        #expect(timeline.frameCount == 3)
        #expect(timeline.cycleDuration == 0.6)
        #expect(timeline.duration == nil)
    }

    @Test func nextChangeIsTheNextBoundaryAcrossCycles() {
        let timeline = AnimatedImageTimeline(delays: Self.threeFrames, loopCount: 0)
        let expected: [(Double, Double)] = [(0, 0.1), (0.05, 0.1), (0.1, 0.3), (0.3, 0.6), (0.45, 0.6), (0.6, 0.7), (1.2, 1.3)]
        for (after, next) in expected { #expect(timeline.nextChange(after: after) == next, "after \(after)") }
    }

    /// Walking from change to change gives each frame in turn, each exactly at its boundary
    /// (the new frame at the time returned, the old one a microsecond before), for GIF-style
    /// 70 ms delays that do not add up exactly in binary.
    @Test func walkingChangeToChangeIsExact() throws {
        let timeline = AnimatedImageTimeline(delays: Array(repeating: 0.07, count: 10), loopCount: 3)
        var time = 0.0, shown = timeline.frame(at: 0), changes = 0
        #expect(shown == 0)
        while let next = timeline.nextChange(after: time) {
            #expect(next > time)
            #expect(timeline.frame(at: next - 1e-6) == shown, "just before \(next)")
            let now = timeline.frame(at: next)
            #expect(now == (shown + 1) % 10, "at \(next)")
            #expect(abs(next - Double(changes + 1) * 0.07) < 1e-9)
            shown = now
            time = next
            changes += 1
            try #require(changes < 100)
        }
        // Three plays of ten frames: 29 changes, then the last frame stays.
        #expect(changes == 29)
        #expect(shown == 9)
        #expect(abs(time - 2.03) < 1e-9)
        #expect(timeline.duration == 2.1)
        #expect(timeline.frame(at: 2.1) == 9 && timeline.frame(at: 1e6) == 9)
    }

    /// After the last loop the last frame stays and nothing changes.
    @Test func afterTheLastLoopTheLastFrameStays() {
        let timeline = AnimatedImageTimeline(delays: Self.threeFrames, loopCount: 2)
        #expect(timeline.duration == 1.2)
        #expect(timeline.frame(at: 0.6) == 0)
        #expect(timeline.frame(at: 0.7) == 1)
        #expect(timeline.frame(at: 1.19) == 2)
        #expect(timeline.frame(at: 1.2) == 2)
        #expect(timeline.frame(at: 99) == 2)
        #expect(timeline.nextChange(after: 0.7) == 0.9)
        // From 0.9 the last frame shows until the end, and stays: no further change.
        #expect(timeline.nextChange(after: 0.9) == nil)
        #expect(timeline.nextChange(after: 1.2) == nil)
        let once = AnimatedImageTimeline(delays: Self.threeFrames, loopCount: 1)
        #expect(once.frame(at: 0.6) == 2)
        #expect(once.nextChange(after: 0.3) == nil)
    }

    /// A last frame with no delay shows only once the animation has ended.
    @Test func aLastFrameWithoutDelayShowsAtTheEnd() {
        let timeline = AnimatedImageTimeline(delays: [0.1, 0.1, 0], loopCount: 1)
        #expect(timeline.frame(at: 0.15) == 1)
        #expect(timeline.nextChange(after: 0.15) == 0.2)
        #expect(timeline.frame(at: 0.2) == 2)
        #expect(timeline.nextChange(after: 0.2) == nil)
    }

    /// A frame with a delay of 0 is passed over; when only one frame has a delay, the image
    /// never changes while it loops.
    @Test func zeroDelayFramesNeverShow() {
        let skipping = AnimatedImageTimeline(delays: [0.1, 0, 0.1], loopCount: 0)
        #expect(skipping.frame(at: 0.1) == 2)
        #expect(skipping.nextChange(after: 0) == 0.1)
        #expect(skipping.nextChange(after: 0.1) == 0.2)
        #expect(skipping.frame(at: 0.2) == 0)
        let still = AnimatedImageTimeline(delays: [0, 0.1, 0], loopCount: 0)
        #expect(still.frame(at: 0) == 1 && still.frame(at: 12.34) == 1)
        #expect(still.nextChange(after: 0) == nil)
    }

    /// All delays zero: the last frame at every time, never a change (no division by zero).
    /// One frame, or none: nothing changes.
    @Test func degenerateTimelines() {
        for loops in [0, 1, 5] {
            let zero = AnimatedImageTimeline(delays: [0, 0, 0], loopCount: loops)
            #expect(zero.frame(at: 0) == 2 && zero.frame(at: 1e300) == 2)
            #expect(zero.nextChange(after: 0) == nil)
        }
        let one = AnimatedImageTimeline(delays: [0.5], loopCount: 0)
        #expect(one.frame(at: 7) == 0 && one.nextChange(after: 0) == nil)
        let none = AnimatedImageTimeline(delays: [], loopCount: 0)
        #expect(none.frame(at: 1) == 0 && none.nextChange(after: 0) == nil)
        // Negative and NaN delays count as 0; a negative loop count as forever.
        let odd = AnimatedImageTimeline(delays: [-1, .nan, 0.1, 0.1], loopCount: -3)
        #expect(odd.loopCount == 0)
        #expect(odd.frame(at: 0) == 2 && odd.frame(at: 0.1) == 3 && odd.frame(at: 0.2) == 2)
    }

    /// Before the start (and at NaN) the first frame shows, and the first change is the first
    /// boundary after 0.
    @Test func beforeTheStart() {
        let timeline = AnimatedImageTimeline(delays: Self.threeFrames, loopCount: 0)
        #expect(timeline.frame(at: -5) == 0)
        #expect(timeline.frame(at: .nan) == 0)
        #expect(timeline.nextChange(after: -5) == 0.1)
    }

    /// Huge times cost the same as small ones (modulo, no walk over past cycles) and stay
    /// right where a Double can say the time exactly: a 1 s cycle at 10^15 s.
    @Test func hugeTimes() {
        let timeline = AnimatedImageTimeline(delays: [0.25, 0.5, 0.25], loopCount: 0)
        #expect(timeline.frame(at: 1e15) == 0)
        #expect(timeline.frame(at: 1e15 + 0.375) == 1)
        #expect(timeline.frame(at: 1e15 + 0.75) == 2)
        #expect(timeline.nextChange(after: 1e15 + 0.375) == 1e15 + 0.75)
        #expect(timeline.nextChange(after: 1e15 + 0.75) == 1e15 + 1)
        #expect(timeline.frame(at: 1e300) == 0)
        #expect(timeline.frame(at: .infinity) == 0)
        _ = timeline.nextChange(after: 1e300)
        _ = timeline.nextChange(after: .infinity)
        // Just under the exact range's limit, still exact.
        #expect(timeline.frame(at: 999_999_999.25) == 1)
        #expect(timeline.nextChange(after: 999_999_999.25) == 999_999_999.75)
        // GIF's longest: 65535 repeats after the first play of a 655.35 s frame, then the end.
        let longest = AnimatedImageTimeline(delays: [655.35, 655.35], loopCount: 65536)
        #expect(abs(longest.duration! - 85_898_035.2) < 1e-6)
        #expect(longest.frame(at: 1_310_701) == 0)
        #expect(abs(longest.nextChange(after: 1_310_701)! - 1_311_355.35) < 1e-6)
        #expect(longest.frame(at: 85_898_035) == 1 && longest.frame(at: 85_897_335) == 0)
        #expect(longest.frame(at: 1e8) == 1 && longest.frame(at: 1e12) == 1)
        #expect(longest.nextChange(after: 1e8) == nil && longest.nextChange(after: 1e12) == nil)
    }
}
