import Testing
@testable import LaminaVideo

/// The stall watch's rules on an injected clock: no GStreamer, no real time. Times are
/// multiples of 1/8 s so the arithmetic is exact.
@Suite("Stall watch")
struct StallWatchTests {
    /// Asks `watch` at real times `start`, `start + step`, … up to `end` (included), the media
    /// time moving with real time from `media` unless `paused`; `request` shapes each ask
    /// (mediaTime set here). The first real time it stalled at, or nil.
    static func firstStall(_ watch: inout StallWatch, from start: Double = 0, to end: Double, step: Double = 0.125,
                           media: Double = 0, paused: Bool = false,
                           _ request: (inout StallWatch.Request) -> Void = { _ in }) -> Double? {
        var now = start
        while now <= end {
            var r = StallWatch.Request(mediaTime: paused ? media : media + (now - start), shown: media)
            request(&r)
            if watch.hasStalled(r, at: now) { return now }
            now += step
        }
        return nil
    }

    @Test func aPlayingStreamWithNoNewPictureStallsAtTheTimeout() {
        var watch = StallWatch(timeout: 1, camera: false)
        // The first ask past the picture shown starts the count (at 0.125 s; at 0 the media
        // time is the picture's own); a full second later it has stalled.
        let stall = Self.firstStall(&watch, to: 5)
        #expect(stall == 1.125)
    }

    @Test func aStreamThatKeepsGivingPicturesNeverStalls() {
        var watch = StallWatch(timeout: 1, camera: false)
        var now = 0.0
        while now < 10 {
            watch.pictureArrived()
            let stalled = watch.hasStalled(StallWatch.Request(mediaTime: now, shown: now), at: now)
            #expect(!stalled, "at \(now)")
            now += 0.125
        }
    }

    @Test func aDecoderSlowerThanItsMediaIsNoStall() {
        // Always behind the media time with nothing decoded ahead, but a new picture every
        // 0.75 s (under the timeout): each one starts the count again.
        var watch = StallWatch(timeout: 1, camera: false)
        var now = 0.0
        while now < 10 {
            if now.truncatingRemainder(dividingBy: 0.75) == 0 { watch.pictureArrived() }
            let stalled = watch.hasStalled(StallWatch.Request(mediaTime: now + 0.5, shown: now / 2), at: now)
            #expect(!stalled, "at \(now)")
            now += 0.125
        }
        // Pictures 1.25 s apart leave more than the timeout between them: a stall.
        var slower = StallWatch(timeout: 1, camera: false)
        now = 0
        var stalled = false
        while now < 10, !stalled {
            if now.truncatingRemainder(dividingBy: 1.25) == 0 { slower.pictureArrived() }
            stalled = slower.hasStalled(StallWatch.Request(mediaTime: now + 0.5, shown: now / 2), at: now)
            now += 0.125
        }
        #expect(stalled)
    }

    @Test func aPausedStreamNeverStalls() {
        // The same media time asked again and again, ahead of the picture shown (paused in a
        // gap where no picture came) as well as on it.
        for media in [0.0, 4.5] {
            var watch = StallWatch(timeout: 1, camera: false)
            let stall = Self.firstStall(&watch, to: 10, media: media, paused: true) { $0.shown = 0 }
            #expect(stall == nil, "paused at \(media)")
        }
    }

    @Test func aPictureDecodedAheadOrAStreamNotStreamingNeverStalls() {
        var slideshow = StallWatch(timeout: 1, camera: false)
        let slideshowStall = Self.firstStall(&slideshow, to: 10) { $0.decodedAhead = true }
        #expect(slideshowStall == nil, "a slideshow's next picture is decoded")
        var ended = StallWatch(timeout: 1, camera: false)
        let endedStall = Self.firstStall(&ended, to: 10) { $0.streaming = false }
        #expect(endedStall == nil, "at its end, failed or not ready")
    }

    @Test func camerasAndATimeoutOfZeroNeverStall() {
        var camera = StallWatch(timeout: 1, camera: true)
        let cameraStall = Self.firstStall(&camera, to: 10)
        #expect(cameraStall == nil)
        var unwatched = StallWatch(timeout: 0, camera: false)
        let unwatchedStall = Self.firstStall(&unwatched, to: 10)
        #expect(unwatchedStall == nil)
    }

    @Test func callsFarApartStartTheCountAgain() {
        // Asked every 0.75 s with a timeout of 1 s: more than half the timeout between asks
        // (frames not drawn for a while) restarts the count each time.
        var sparse = StallWatch(timeout: 1, camera: false)
        let sparseStall = Self.firstStall(&sparse, to: 20, step: 0.75)
        #expect(sparseStall == nil)
        // With a long timeout the bound is 1 s: asks 1.5 s apart never stall.
        var long = StallWatch(timeout: 10, camera: false)
        let longStall = Self.firstStall(&long, to: 100, step: 1.5)
        #expect(longStall == nil)
        // A break in the asks mid-way, the picture shown still the one at 0: the count starts
        // again from the first ask after it (without that rule it would stall at once, at 3 s).
        var resumed = StallWatch(timeout: 1, camera: false)
        let before = Self.firstStall(&resumed, to: 0.75)
        #expect(before == nil)
        let after = Self.firstStall(&resumed, from: 3, to: 10, media: 3) { $0.shown = 0 }
        #expect(after == 4)
    }

    @Test func aSeekStartsTheCountAgainAndItsFirstPictureIsAwaited() {
        var unanswered = StallWatch(timeout: 1, camera: false)
        let before = Self.firstStall(&unanswered, to: 0.75)
        #expect(before == nil)
        // A seek at 0.75 s restarts the count: starving from the next ask on.
        unanswered.seekStarted()
        // While the seek is in flight the picture shown is from before it, so even one at the
        // media time does not end the starving: a seek whose picture never comes stalls.
        let seeking = Self.firstStall(&unanswered, from: 0.875, to: 5, media: 0.875) {
            $0.seeking = true
            $0.shown = $0.mediaTime
        }
        #expect(seeking == 1.875)
        // A seek whose first picture comes in time: no stall.
        var answered = StallWatch(timeout: 1, camera: false)
        let inFlight = Self.firstStall(&answered, to: 0.75) { $0.seeking = true }
        #expect(inFlight == nil)
        answered.pictureArrived()
        let landed = Self.firstStall(&answered, from: 0.875, to: 5, media: 0.875) { $0.shown = $0.mediaTime }
        #expect(landed == nil)
    }
}
