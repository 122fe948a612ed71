import Testing
import LaminaCore

@Suite("Presentation evaluation, events and the time hierarchy")
struct AnimationPresentationTests {
    func fade(_ duration: Double = 1, beginTime: Double = 0) -> Animation {
        .basic(BasicAnimation(keyPath: "opacity", fromValue: .number(0), toValue: .number(1),
                              timing: MediaTiming(beginTime: beginTime, duration: duration)))
    }

    @Test func eventsStartThenStopFinishedAndTheAnimationIsRemoved() throws {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let id = try list.add(fade(1, beginTime: 2), forKey: "fade", layerTime: 0, events: &events)
        #expect(events.isEmpty)
        _ = list.evaluate(model: LayerProperties(), time: 1, events: &events)
        #expect(events.isEmpty)                                   // before beginTime
        _ = list.evaluate(model: LayerProperties(), time: 2, events: &events)
        #expect(events == [AnimationEvent(id: id, key: "fade", kind: .didStart)])
        events.removeAll()
        _ = list.evaluate(model: LayerProperties(), time: 2.5, events: &events)
        #expect(events.isEmpty)                                   // reported once
        let end = list.evaluate(model: LayerProperties(), time: 3, events: &events)
        #expect(events == [AnimationEvent(id: id, key: "fade", kind: .didStop(finished: true))])
        #expect(list.isEmpty)
        #expect(end.properties.opacity == 1)                      // the model again
    }

    @Test func aFrameThatSkipsTheWholeSpanReportsStartAndStop() throws {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        try list.add(fade(), forKey: "f", layerTime: 0, events: &events)
        _ = list.evaluate(model: LayerProperties(), time: 10, events: &events)
        #expect(events.map(\.kind) == [.didStart, .didStop(finished: true)])
    }

    @Test func notRemovedOnCompletionStopsOnceAndKeepsFilling() throws {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        var a = BasicAnimation(keyPath: "opacity", from: .number(0), to: .number(0.5), duration: 1)
        a.isRemovedOnCompletion = false
        a.fillMode = .forwards
        try list.add(.basic(a), forKey: "f", layerTime: 0, events: &events)
        _ = list.evaluate(model: LayerProperties(), time: 5, events: &events)
        let later = list.evaluate(model: LayerProperties(), time: 6, events: &events)
        #expect(events.map(\.kind) == [.didStart, .didStop(finished: true)])
        #expect(later.properties.opacity == 0.5)
        #expect(list.keys == ["f"])
        // Removing it now sends nothing more: it already finished.
        events.removeAll()
        list.remove(forKey: "f", events: &events)
        #expect(events.isEmpty && list.isEmpty)
    }

    @Test func removingEarlyReportsUnfinished() throws {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let a = try list.add(fade(), forKey: "a", layerTime: 0, events: &events)
        let b = try list.add(fade(), forKey: "b", layerTime: 0, events: &events)
        let c = try list.add(fade(), forKey: nil, layerTime: 0, events: &events)
        _ = list.evaluate(model: LayerProperties(), time: 0.5, events: &events)
        events.removeAll()
        list.remove(forKey: "a", events: &events)
        #expect(events == [AnimationEvent(id: a, key: "a", kind: .didStop(finished: false))])
        list.remove(forKey: "missing", events: &events)
        events.removeAll()
        list.removeAll(events: &events)
        #expect(events == [AnimationEvent(id: b, key: "b", kind: .didStop(finished: false)),
                           AnimationEvent(id: c, key: nil, kind: .didStop(finished: false))])
        #expect(list.isEmpty)
    }

    @Test func addingUnderAnExistingKeyReplacesIt() throws {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let first = try list.add(fade(), forKey: "k", layerTime: 0, events: &events)
        try list.add(fade(2), forKey: "other", layerTime: 0, events: &events)
        let second = try list.add(fade(4), forKey: "k", layerTime: 0, events: &events)
        #expect(events == [AnimationEvent(id: first, key: "k", kind: .didStop(finished: false))])
        #expect(list.keys == ["other", "k"])                      // the new one goes last
        #expect(list.entries.last?.id == second)
        #expect(list.animation(forKey: "k")?.timing.duration == 4)
    }

    @Test func beginTimeZeroMeansWhenAdded() throws {
        // semantics.md: an animation's beginTime 0 is the time it is added. Added at layer time
        // 100, a 1 s fade is half way at 100.5.
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        try list.add(fade(), forKey: "f", layerTime: 100, events: &events)
        #expect(list.animation(forKey: "f")?.timing.beginTime == 100)
        expectNear(list.evaluate(model: LayerProperties(), time: 100.5, events: &events).properties.opacity, 0.5)
    }

    @Test func durationZeroTakesTheTransactionDuration() throws {
        // semantics.md "Durations": 0 → the transaction's duration (0.25 s by default).
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        try list.add(fade(0), forKey: "default", layerTime: 0, events: &events)
        try list.add(fade(0), forKey: "custom", layerTime: 0, transactionDuration: 2, events: &events)
        #expect(list.animation(forKey: "default")?.timing.duration == 0.25)
        #expect(list.animation(forKey: "custom")?.timing.duration == 2)
    }

    @Test func invalidAnimationsAreRefusedWithATypedError() {
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        #expect(throws: AnimationError.keyPath(.unknownProperty(keyPath: "opacty", property: "opacty",
                                                                valid: AnimationKeyPath.animatablePropertyNames))) {
            try list.add(.basic(BasicAnimation(keyPath: "opacty", to: .number(1), duration: 1)), forKey: nil,
                         layerTime: 0, events: &events)
        }
        #expect(list.isEmpty)
    }

    // MARK: Groups

    @Test func groupClipsItsChildren() throws {
        // The group lasts 2 s; a 5 s child 0 → 100 is cut at 40, a child starting at 1.5 s in
        // the group runs in group time (hand derivation).
        let long = BasicAnimation(keyPath: "position.x", from: .number(0), to: .number(100), duration: 5)
        var late = BasicAnimation(keyPath: "position.y", from: .number(0), to: .number(10), duration: 1)
        late.beginTime = 1.5
        var group = AnimationGroup([.basic(long), .basic(late)], duration: 2)
        group.fillMode = .forwards
        group.isRemovedOnCompletion = false
        var at1 = try presentation(.group(group), at: 1)
        expectNear(at1.position.x, 20)
        #expect(at1.position.y == 0)                              // late child not started, no fill
        at1 = try presentation(.group(group), at: 1.75)
        expectNear(at1.position.x, 35)
        expectNear(at1.position.y, 2.5)
        let end = try presentation(.group(group), at: 10)              // group filling forwards
        expectNear(end.position.x, 40)
        expectNear(end.position.y, 5)
    }

    @Test func groupTimingWarpsChildTime() throws {
        // Group speed 2 and a child of the group's duration: 1 s of layer time is 2 s of group
        // time (hand derivation: half of a 4 s 0 → 100 is 50).
        var group = AnimationGroup([.basic(BasicAnimation(keyPath: "position.x", from: .number(0), to: .number(100), duration: 0))],
                                   duration: 4)
        group.speed = 2
        expectNear(try presentation(.group(group), at: 1).position.x, 50)
        // Autoreversing group: children play backwards on the second leg.
        group.speed = 1
        group.autoreverses = true
        expectNear(try presentation(.group(group), at: 7).position.x, 25)
    }

    @Test func childrenWithoutFillVanishAtTheirEndInsideTheGroup() throws {
        // A 1 s child in a 3 s group: after 1 s the child has no effect (fillMode removed).
        let child = BasicAnimation(keyPath: "position.x", from: .number(0), to: .number(100), duration: 1)
        let group = AnimationGroup([.basic(child)], duration: 3)
        #expect(try presentation(.group(group), at: 2).position.x == 0)
        var filling = child
        filling.fillMode = .forwards
        #expect(try presentation(.group(AnimationGroup([.basic(filling)], duration: 3)), at: 2).position.x == 100)
    }

    // MARK: Time hierarchy

    @Test func pauseAndResumeLikeListing5_4() throws {
        // Apple's Listing 5-4 (pauseLayer/resumeLayer), with media time driving one layer
        // under a default root. A 10 s move 0 → 100 added at media time 100.
        let root = MediaTiming()
        var layer = MediaTiming()
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        func x(atMedia t: Double) -> Double {
            let local = LayerTime.localTime(fromMedia: t, chain: [root, layer])
            return list.evaluate(model: LayerProperties(), time: local, events: &events).properties.position.x
        }
        try list.add(.basic(BasicAnimation(keyPath: "position.x", from: .number(0), to: .number(100), duration: 10)),
                     forKey: "move", layerTime: LayerTime.localTime(fromMedia: 100, chain: [root, layer]), events: &events)
        expectNear(x(atMedia: 103), 30)
        // pauseLayer at media 103: pausedTime = convertTime(now, from: nil); speed 0; timeOffset.
        let pausedTime = LayerTime.localTime(fromMedia: 103, chain: [root, layer])
        layer.speed = 0
        layer.timeOffset = pausedTime
        expectNear(x(atMedia: 110), 30)                          // frozen
        expectNear(x(atMedia: 119), 30)
        // resumeLayer at media 120.
        layer.speed = 1
        layer.timeOffset = 0
        layer.beginTime = 0
        let timeSincePause = LayerTime.localTime(fromMedia: 120, chain: [root, layer]) - pausedTime
        layer.beginTime = timeSincePause
        expectNear(x(atMedia: 120), 30)                          // continues where it stopped
        expectNear(x(atMedia: 121), 40)
        expectNear(x(atMedia: 126.5), 95)
    }

    @Test func aPausedParentPausesItsSubtree() throws {
        // semantics.md: a layer with speed 0 pauses its subtree. The child's local time is the
        // same at every media time once its parent is paused.
        let parent = MediaTiming(speed: 0, timeOffset: 5)
        let child = MediaTiming(beginTime: 1, speed: 2)
        let a = LayerTime.localTime(fromMedia: 10, chain: [parent, child])
        let b = LayerTime.localTime(fromMedia: 50, chain: [parent, child])
        #expect(a == b && a == 8)                                 // (5 − 1)·2
    }

    // MARK: Transitions

    @Test func transitionProgress() throws {
        // CATransition progress runs startProgress → endProgress through the timing function.
        var list = LayerAnimations()
        var events: [AnimationEvent] = []
        let t = Transition(type: .push, subtype: .fromRight, startProgress: 0.2, endProgress: 0.6,
                           timing: MediaTiming(duration: 2))
        try list.add(.transition(t), forKey: "transition", layerTime: 0, events: &events)
        let mid = list.evaluate(model: LayerProperties(), time: 1, events: &events)
        #expect(mid.transition?.type == .push && mid.transition?.subtype == .fromRight)
        expectNear(mid.transition?.progress ?? -1, 0.4)
        #expect(list.evaluate(model: LayerProperties(), time: 2, events: &events).transition == nil)
        // Default subtype is fromLeft.
        let fade = try { () throws -> PresentationState in
            var l = LayerAnimations()
            try l.add(.transition(Transition(timing: MediaTiming(duration: 1))), forKey: nil, layerTime: 0, events: &events)
            return l.evaluate(model: LayerProperties(), time: 0.25, events: &events)
        }()
        #expect(fade.transition == TransitionState(type: .fade, subtype: .fromLeft, progress: 0.25))
    }

    @Test func evaluatingIntoKeptStorageMatchesTheReturningForm() throws {
        var a = LayerAnimations(), b = LayerAnimations()
        var events: [AnimationEvent] = [], otherEvents: [AnimationEvent] = []
        try a.add(fade(), forKey: "f", layerTime: 0, events: &events)
        try b.add(fade(), forKey: "f", layerTime: 0, events: &otherEvents)
        try a.add(.transition(Transition(timing: MediaTiming(duration: 0.5))), forKey: "t", layerTime: 0, events: &events)
        try b.add(.transition(Transition(timing: MediaTiming(duration: 0.5))), forKey: "t", layerTime: 0, events: &otherEvents)
        var kept = PresentationState(properties: LayerProperties())
        for t in [0.1, 0.4, 0.7, 1.2] {
            a.evaluate(model: LayerProperties(), time: t, into: &kept, events: &events)
            #expect(kept == b.evaluate(model: LayerProperties(), time: t, events: &otherEvents), "at \(t)")
        }
        #expect(events == otherEvents)
    }

    @Test func evaluationCostsOnlyTheAnimatedKeys() throws {
        // Everything not animated is the model's value, untouched.
        var model = LayerProperties()
        model.name = "card"
        model.cornerRadius = 7
        model.backgroundColor = .red
        let p = try presentation(fade(), at: 0.5, model: model)
        var expected = model
        expected.opacity = 0.5
        #expect(p == expected)
    }
}
