import Testing
import LaminaCompositor

/// The repaint loop as a value: reasons in, timer armings and frames out, time injected.
@Suite("Repaint loop")
struct RepaintLoopTests {
    @Test("without paced outputs a virtual clock's frame comes after the current event, once, for every output")
    func virtualClockFramesFollowTheEvent() {
        var loop = RepaintLoop(pacing: .virtualClock, repaintWindow: 0.007)
        #expect(loop.schedule(now: 0) == nil, "nothing wanted, nothing armed")
        loop.request(.sceneChanged)
        #expect(loop.schedule(now: 0) == .afterCurrentEvent)
        loop.request(.cursorMoved)
        #expect(loop.schedule(now: 0) == nil, "armed already")
        let frame = loop.frameDue(now: 0)
        #expect(frame == RepaintLoop.Frame(outputs: nil, target: nil, reasons: [.sceneChanged, .cursorMoved]))
        #expect(loop.schedule(now: 0) == nil && !loop.wantsFrame)
        #expect(loop.frameDue(now: 0) == nil, "a timer that fires with nothing pending draws nothing")
    }

    @Test("without paced outputs a real clock's frame starts on its next refresh boundary")
    func realClockFramesFollowTheRefreshRate() {
        var loop = RepaintLoop(pacing: .refreshRate(50), repaintWindow: 0.007)
        loop.request(.request)
        guard case .at(let t)? = loop.schedule(now: 1.005) else { Issue.record("not armed"); return }
        #expect(abs(t - 1.02) < 1e-9)
    }

    @Test("a timed request sleeps until its time on a real clock; the earliest is kept; other reasons come first")
    func timedRequestsWakeAtTheirTime() throws {
        var loop = RepaintLoop(pacing: .refreshRate(60), repaintWindow: 0.004)
        loop.request(.imageFrame, at: 10.5)
        loop.request(.imageFrame, at: 10.7)
        #expect(loop.schedule(now: 10) == .at(10.5), "the earliest time, not the next refresh")
        #expect(!loop.wantsFrame, "nothing wanted before the time")
        // An earlier one arms the timer again, for its time.
        loop.request(.imageFrame, at: 10.25)
        #expect(loop.schedule(now: 10.01) == .at(10.25))
        #expect(loop.frameDue(now: 10.2) == nil, "a timer that fires early draws nothing")
        #expect(loop.schedule(now: 10.2) == .at(10.25), "and sleeps again until the time")
        let due = loop.frameDue(now: 10.25)
        #expect(due?.reasons == [.imageFrame])
        #expect(loop.timed == nil && loop.schedule(now: 10.26) == nil, "answered: nothing more wanted")
        // Another reason draws on the next refresh; the timed request waits for its own time.
        loop.request(.imageFrame, at: 11)
        loop.request(.sceneChanged)
        guard case .at(let t)? = loop.schedule(now: 10.3) else { Issue.record("not armed"); return }
        #expect(abs(t - (10.3 * 60).rounded(.down) / 60 - 1.0 / 60) < 1e-9)
        #expect(loop.frameDue(now: t)?.reasons == [.sceneChanged])
        #expect(loop.timed?.time == 11 && loop.schedule(now: t) == .at(11))
    }

    @Test("a virtual clock ignores timed requests: its advances ask for frames")
    func virtualClockIgnoresTimedRequests() {
        var loop = RepaintLoop(pacing: .virtualClock, repaintWindow: 0.004)
        loop.request(.imageFrame, at: 1)
        #expect(loop.schedule(now: 0) == nil)
    }

    @Test("paced outputs draw when free; one still flipping owes the frame and draws once its flip is in")
    func pacedOutputsFollowTheirFlips() throws {
        var loop = RepaintLoop(pacing: .refreshRate(60), repaintWindow: 0.004)
        loop.setOutputs([("A", 1.0 / 60), ("B", 1.0 / 60)])
        #expect(loop.wantsFrame, "new outputs owe a frame (the background)")
        #expect(loop.schedule(now: 10) == .at(10))
        let firstFrame = loop.frameDue(now: 10)
        let first = try #require(firstFrame)
        #expect(first.outputs == ["A", "B"] && first.reasons.isEmpty)
        loop.submitted(first, flipping: ["A", "B"], now: 10.001)
        #expect(loop.flipPendingSince == 10.001)
        loop.request(.sceneChanged)
        #expect(loop.schedule(now: 10.002) == nil, "both await their flips: the flips schedule again")
        #expect(loop.flush(now: 10.002) == nil, "a request cannot draw everywhere now")
        loop.presented([BackendEvents.Presentation(output: "A", time: 10.0167)])
        #expect(loop.flipPendingSince == 10.001, "B's flip is still out")
        guard case .at(let t)? = loop.schedule(now: 10.017) else { Issue.record("not armed after A's flip"); return }
        let secondFrame = loop.frameDue(now: t)
        let second = try #require(secondFrame)
        #expect(second.outputs == ["A"] && second.reasons == [.sceneChanged])
        loop.submitted(second, flipping: ["A"], now: t)
        loop.presented([BackendEvents.Presentation(output: "B", time: 10.0167)])
        #expect(loop.wantsFrame, "B owes the changed frame")
        loop.presented([BackendEvents.Presentation(output: "A", time: 10.0334)])
        #expect(loop.flipPendingSince == nil, "no flip is out: the watchdog is fed")
        let thirdFrame = loop.flush(now: 10.034)
        let third = try #require(thirdFrame)
        #expect(third.outputs == ["A", "B"])
    }

    /// Issue 24's lost page flips, at the loop's level: B is blanked while A's flip is out; A's
    /// flip, reported afterwards, frees A, which goes on drawing.
    @Test("blanking one output while another's flip is out leaves the other drawing")
    func blankingOneOutputKeepsTheOtherGoing() throws {
        var loop = RepaintLoop(pacing: .refreshRate(60), repaintWindow: 0.004)
        loop.setOutputs([("A", 1.0 / 60), ("B", 1.0 / 60)])
        let firstFrame = loop.frameDue(now: 0)
        let first = try #require(firstFrame)
        loop.submitted(first, flipping: ["A", "B"], now: 0)
        loop.setOutputs([("A", 1.0 / 60)])
        #expect(loop.flipPendingSince == 0, "A's flip is still out")
        loop.presented([BackendEvents.Presentation(output: "A", time: 0.0167)])
        #expect(loop.flipPendingSince == nil)
        loop.request(.sceneChanged)
        #expect(loop.schedule(now: 0.017) != nil)
        #expect(loop.frameDue(now: 0.03)?.outputs == ["A"])
    }
}
