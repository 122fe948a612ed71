import Testing
import LaminaCore

@Suite("Media timing and the layer time hierarchy")
struct TimingTests {
    let root = MediaTiming()
    let mid = MediaTiming(beginTime: 2, speed: 3, timeOffset: 0.25)
    let leaf = MediaTiming(beginTime: 1, speed: 2, timeOffset: 0.5)

    // semantics.md, "Apple-verified conversions" (all four numbers of the first example).
    @Test func appleVerifiedMidLeafConversions() {
        // leaf.convertTime(10, from: mid) = 18.5 = (10 − 1)·2 + 0.5
        #expect(LayerTime.convert(10, from: [root, mid], to: [root, mid, leaf], sharedAncestors: 2) == 18.5)
        // from the root: 47 = ((10 − 2)·3 + 0.25 − 1)·2 + 0.5
        #expect(LayerTime.convert(10, from: [root], to: [root, mid, leaf], sharedAncestors: 1) == 47)
        // leaf time 10 to mid: 5.75 = (10 − 0.5)/2 + 1
        #expect(LayerTime.convert(10, from: [root, mid, leaf], to: [root, mid], sharedAncestors: 2) == 5.75)
        // to the root: 23/6 = (5.75 − 0.25)/3 + 2
        expectNear(LayerTime.convert(10, from: [root, mid, leaf], to: [root], sharedAncestors: 1), 23.0 / 6, 1e-12)
    }

    // semantics.md, second example: the root's own timing cancels when converting from the root.
    @Test func appleVerifiedRootChildConversion() {
        let r = MediaTiming(speed: 2, timeOffset: 3)
        let child = MediaTiming(speed: 4, timeOffset: 5)
        // child.convertTime(10, from: root) = (10 − 0)·4 + 5 = 45
        #expect(LayerTime.convert(10, from: [r], to: [r, child], sharedAncestors: 1) == 45)
        // And back (hand derivation: (45 − 5)/4 = 10).
        #expect(LayerTime.convert(45, from: [r, child], to: [r], sharedAncestors: 1) == 10)
        // From media time (fromLayer: nil) the root's timing applies too: ((10·2 + 3)·4 + 5 = 97.
        #expect(LayerTime.convert(10, from: [], to: [r, child], sharedAncestors: 0) == 97)
        #expect(LayerTime.localTime(fromMedia: 10, chain: [r, child]) == 97)
        #expect(LayerTime.mediaTime(fromLocal: 97, chain: [r, child]) == 10)
    }

    @Test func sharedPrefixOfAncestorPaths() {
        #expect(LayerTime.sharedPrefixCount([1, 2, 3], [1, 2]) == 2)
        #expect(LayerTime.sharedPrefixCount([1, 4], [1, 2, 3]) == 1)
        #expect(LayerTime.sharedPrefixCount([Int](), [1]) == 0)
    }

    @Test func siblingConversionGoesThroughTheCommonParent() {
        // Hand derivation: sibling a (speed 2) time 8 → parent 4 → sibling b (beginTime 1,
        // speed 0.5) (4 − 1)·0.5 = 1.5.
        let a = MediaTiming(speed: 2), b = MediaTiming(beginTime: 1, speed: 0.5)
        #expect(LayerTime.convert(8, from: [root, a], to: [root, b], sharedAncestors: 1) == 1.5)
    }

    @Test func pausedLayerHasNoInverseButStaysFinite() {
        let paused = MediaTiming(beginTime: 4, speed: 0, timeOffset: 7)
        #expect(paused.localTime(fromParent: 123) == 7)
        #expect(paused.parentTime(fromLocal: 7) == 4)
    }

    // MARK: Active span

    @Test func durationFoldsAndRepeats() {
        // semantics.md: duration folds; repeatCount counts cycles.
        let t = MediaTiming(beginTime: 10, duration: 2, repeatCount: 3)
        #expect(t.activeDuration == 6)
        let s = t.state(atParentTime: 13)   // 3 s in: second cycle, half way
        #expect(s.phase == .active)
        #expect(s.iteration == 1)
        expectNear(s.fraction, 0.5)
        #expect(t.state(atParentTime: 16).phase == .after)
        #expect(t.state(atParentTime: 9.99).phase == .before)
    }

    @Test func repeatCountTwoAndAHalfWithAutoreverse() {
        // semantics.md: one repeat is both legs; fractional counts allowed.
        // Hand derivation: d = 1, cycle 2, active span 5 s; t ↦ fraction:
        let t = MediaTiming(duration: 1, repeatCount: 2.5, autoreverses: true, fillMode: .forwards)
        #expect(t.activeDuration == 5)
        let samples: [(Double, Double, Int)] = [
            (0.5, 0.5, 0), (1.5, 0.5, 0), (2.25, 0.25, 1), (3.0, 1.0, 1), (3.75, 0.25, 1), (4.5, 0.5, 2),
            (5.0, 1.0, 2),   // the end: half a cycle into the third, i.e. the forward leg's end
            (9.0, 1.0, 2),   // filling forwards holds it
        ]
        for (time, fraction, iteration) in samples {
            let s = t.state(atParentTime: time)
            expectNear(s.fraction, fraction, 1e-12, "at \(time)")
            #expect(s.iteration == iteration, "at \(time)")
        }
    }

    @Test func anEndOnACycleBoundaryHoldsTheLastValue() {
        // Hand derivation: repeatCount 2, d = 1: at the end (t = 2) the second cycle has
        // finished (fraction 1, iteration 1), not started a third (fraction 0).
        let t = MediaTiming(duration: 1, repeatCount: 2, fillMode: .forwards)
        let s = t.state(atParentTime: 2)
        #expect(s.phase == .after && s.fraction == 1 && s.iteration == 1)
        // With autoreverse the end of a cycle is the start value.
        let r = MediaTiming(duration: 1, repeatCount: 1, autoreverses: true, fillMode: .forwards)
        #expect(r.state(atParentTime: 2).fraction == 0)
    }

    @Test func repeatDurationEndsTheSpan() {
        // semantics.md: "or after repeatDuration seconds". Hand derivation: d = 1, repeatDuration
        // 2.5 → ends at 2.5, half way through the third cycle.
        let t = MediaTiming(duration: 1, repeatDuration: 2.5, fillMode: .forwards)
        #expect(t.activeDuration == 2.5)
        let s = t.state(atParentTime: 3)
        #expect(s.phase == .after && s.iteration == 2)
        expectNear(s.fraction, 0.5)
    }

    @Test func infiniteRepeatNeverEnds() {
        let t = MediaTiming(duration: 1, repeatCount: .infinity)
        let s = t.state(atParentTime: 1e9 + 0.25)
        #expect(s.phase == .active)
        expectNear(s.fraction, 0.25, 1e-6)
    }

    @Test func speedScalesTheSpan() {
        // Hand derivation: speed 2, d = 1 → the span lasts 0.5 s of parent time.
        let t = MediaTiming(beginTime: 1, duration: 1, speed: 2)
        expectNear(t.state(atParentTime: 1.25).fraction, 0.5)
        #expect(t.state(atParentTime: 1.5).phase == .after)
    }

    @Test func timeOffsetWrapsAroundTheCycle() {
        // CAMediaTiming header: timeOffset is an "offset in active local time"; an animation with
        // duration 3 and timeOffset 1 plays 1→3, wraps and plays 0→1 over the same 3 s span.
        let t = MediaTiming(duration: 3, timeOffset: 1, fillMode: .both)
        expectNear(t.state(atParentTime: 0).fraction, 1.0 / 3)
        expectNear(t.state(atParentTime: 1.5).fraction, 2.5 / 3)
        expectNear(t.state(atParentTime: 2.5).fraction, 0.5 / 3)
        #expect(t.state(atParentTime: 3).phase == .after)
        expectNear(t.state(atParentTime: 3).fraction, 1.0 / 3)   // the last frame shown
        expectNear(t.state(atParentTime: -1).fraction, 1.0 / 3)  // backwards fill: the first frame
    }

    @Test func fillModesOutsideTheSpan() {
        // semantics.md "fillMode": removed (none), forwards (after), backwards (before), both.
        let expectations: [(FillMode, Bool, Bool)] = [
            (.removed, false, false), (.forwards, false, true), (.backwards, true, false), (.both, true, true),
        ]
        for (mode, before, after) in expectations {
            let t = MediaTiming(beginTime: 2, duration: 1, fillMode: mode)
            #expect(t.state(atParentTime: 1).isInEffect == before, "\(mode) before")
            #expect(t.state(atParentTime: 2.5).isInEffect, "\(mode) inside")
            #expect(t.state(atParentTime: 4).isInEffect == after, "\(mode) after")
            #expect(t.state(atParentTime: 1).fraction == 0)
        }
    }

    @Test func defaultsResolvedWhenAdded() {
        // semantics.md "Durations": duration 0 takes the transaction's 0.25 s; beginTime 0 is "now".
        let t = MediaTiming().resolvingDuration().resolvingBeginTime(addedAt: 12)
        #expect(t.duration == 0.25 && t.beginTime == 12)
        let explicit = MediaTiming(beginTime: 3, duration: 2).resolvingDuration(1).resolvingBeginTime(addedAt: 12)
        #expect(explicit.duration == 2 && explicit.beginTime == 3)
    }
}
