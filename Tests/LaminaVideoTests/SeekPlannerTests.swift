import Testing
@testable import LaminaVideo

/// When a decoder seeks, on an injected clock: no GStreamer, no real time.
@Suite("Seek planner")
struct SeekPlannerTests {
    @Test func closeAheadDecodesThroughAndBehindOrFarAheadSeeks() {
        let planner = SeekPlanner()
        #expect(planner.decide(mediaTime: 1.5, shown: 1, decodedAhead: nil) == .decodeThrough)
        #expect(planner.decide(mediaTime: 3, shown: 1, decodedAhead: nil) == .decodeThrough, "2 s ahead is within reach")
        #expect(planner.decide(mediaTime: 3.5, shown: 1, decodedAhead: nil) == .seek(to: 3.5))
        // A loop's wrap: behind the picture shown.
        #expect(planner.decide(mediaTime: 0.25, shown: 4.5, decodedAhead: nil) == .seek(to: 0.25))
        // A picture decoded ahead near the media time: decoding through is still worth it.
        #expect(planner.decide(mediaTime: 10, shown: 1, decodedAhead: 9) == .decodeThrough)
        // Nothing shown or decoded yet: the first picture is awaited, whatever the time.
        #expect(planner.decide(mediaTime: 60, shown: nil, decodedAhead: nil) == .decodeThrough)
        #expect(planner.decide(mediaTime: 60, shown: nil, decodedAhead: 0) == .seek(to: 60))
    }

    /// The failure this planner exists for: a seek slower than the reach used to be replaced at
    /// every frame by a new flushing one, so no picture ever arrived. Now, however long it
    /// takes, no second seek goes out until the first lands.
    @Test func aSlowSeekIsNeverReplacedBeforeItLands() {
        var planner = SeekPlanner()
        guard case .seek(let target) = planner.decide(mediaTime: 60, shown: 0, decodedAhead: nil) else {
            Issue.record("far ahead must seek")
            return
        }
        planner.started(target, at: 100)
        var now = 100.0
        while now < 130 {
            now += 1.0 / 60
            // The media time runs on, far past the target, and wraps back before it too.
            for media in [60 + (now - 100), 1.0] {
                #expect(planner.decide(mediaTime: media, shown: 0, decodedAhead: nil) == .awaitSeek, "at \(now)")
            }
        }
        planner.landed(at: 130)
        #expect(!planner.isSeeking)
        #expect(planner.lastLatency == 30)
    }

    /// After a seek that took `L` seconds, the reach is `2L`: the picture it gave, `L` behind
    /// the media time when it lands, is caught up by decoding through, not by a seek that would
    /// land `L` late again.
    @Test func theReachGrowsWithTheSeeksCost() {
        var planner = SeekPlanner()
        #expect(planner.reach == SeekPlanner.minimumReach)
        planner.started(10, at: 0)
        planner.landed(at: 3)
        #expect(planner.reach == 6)
        #expect(planner.decide(mediaTime: 13, shown: 10, decodedAhead: nil) == .decodeThrough)
        #expect(planner.decide(mediaTime: 16.5, shown: 10, decodedAhead: nil) == .seek(to: 16.5))
        // A fast seek brings it back down, never below the least reach.
        planner.started(16.5, at: 10)
        planner.landed(at: 10.25)
        #expect(planner.reach == SeekPlanner.minimumReach)
    }

    @Test func aSeekThatEndsWithoutAPictureLetsTheNextGoOut() {
        var planner = SeekPlanner()
        planner.started(4.999, at: 0)
        #expect(planner.decide(mediaTime: 0.5, shown: 4.9, decodedAhead: nil) == .awaitSeek)
        planner.abandoned()
        #expect(planner.decide(mediaTime: 0.5, shown: 4.9, decodedAhead: nil) == .seek(to: 0.5))
        #expect(planner.lastLatency == 0, "an abandoned seek says nothing of the cost")
        // Negative media times seek to the start.
        #expect(planner.decide(mediaTime: -1, shown: 4.9, decodedAhead: nil) == .seek(to: 0))
    }
}
