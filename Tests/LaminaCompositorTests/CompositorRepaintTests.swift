import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// The compositor's repaint loop and the requests that wait on it, over outputs that page-flip
/// (fakes that record, no EGL): frames go out only when the loop's timer fires, and a request
/// asked while a flip is out is answered by the next frame.
@Suite("Compositor repaint loop")
struct CompositorRepaintTests {
    final class Clock: @unchecked Sendable { var now = 100.0 }

    /// A compositor over `backend`'s outputs, on the real clock at 60 Hz reading `clock` (the
    /// virtual clock where nil), its first frame (the background's) drawn.
    func firstFrameDrawn(_ backend: FakeBackend, clock: Clock?,
                         sourceLocation: SourceLocation = #_sourceLocation) -> CompositorHarness {
        let h = clock.map { clock in
            CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.real(refreshRate: 60)), realTime: { clock.now })
        } ?? CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        h.compositor.scheduleRepaint()
        #expect(h.fireFrameTimer(), "the background's first frame", sourceLocation: sourceLocation)
        return h
    }

    @Test("the host hears a frame was presented at the page flip's time on the real clock, at the frame's time shown at once, and at the virtual time on the virtual clock")
    func presentedFramesCarryTheirTime() throws {
        let backend = FakeBackend.flipping(["A"])
        let clock = Clock()
        let h = firstFrameDrawn(backend, clock: clock)
        #expect(h.presentedTimes.isEmpty, "the flip is still out")
        clock.now = 100.05
        h.compositor.handle(backend.completeFlips(["A"], at: 100.0167))
        #expect(h.presentedTimes == [100.0167], "the flip's own time, not when laminad read it")

        // Shown at once (no page flip): the time the frame was drawn for.
        let headless = FakeBackend.flipping(["H"])
        headless.fakes[0].flips = false
        let shown = firstFrameDrawn(headless, clock: clock)
        let time = try #require(shown.presentedTimes.last)
        #expect(time >= 100.05 && time < 100.05 + 1.0 / 30, "at the frame's target: \(time)")

        // The virtual clock: its time, whatever the flip's says.
        let flipping = FakeBackend.flipping(["V"])
        let virtual = firstFrameDrawn(flipping, clock: nil)
        virtual.compositor.handle(flipping.completeFlips(["V"], at: 555))
        let a = virtual.hello("a")
        virtual.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .blue))))
        virtual.feed(a, .request(id: 2, .advanceClock(seconds: 2.5)))
        #expect(flipping.fakes[0].isFramePending, "the advance drew the change at 2.5 s; its flip is out")
        virtual.compositor.handle(flipping.completeFlips(["V"], at: 777))
        #expect(virtual.presentedTimes == [0, 2.5], "the virtual clock's times: \(virtual.presentedTimes)")
    }

    @Test("a screenshot asked while the output awaits its flip waits for the next frame; the client's later commit waits with it")
    func screenshotWaitsForTheNextFrame() throws {
        let backend = FakeBackend.flipping(["A"])
        let clock = Clock()
        let h = firstFrameDrawn(backend, clock: clock)
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .red))))
        #expect(h.take(a) == [.applied(serial: 1)])
        #expect(backend.fakes[0].isFramePending, "the first frame's flip is out")
        #expect(!h.fireFrameTimer(), "nothing is drawn while the only output awaits its flip")
        h.feed(a, .request(id: 7, .screenshot))
        h.feed(a, .commit(Commit(serial: 2, operations: [.set(LayerID(1), .position, .point(Point(x: 40, y: 24)))])))
        #expect(h.take(a).isEmpty, "the screenshot waits, and the commit behind it")
        #expect(h.compositor.isWaitingForFrame(a) && !h.compositor.hasPendingFrame(a))
        let framesBefore = h.compositor.stats.framesRendered
        clock.now = 100.017
        h.compositor.handle(backend.completeFlips(["A"], at: 100.0167))
        #expect(h.fireFrameTimer())
        #expect(h.compositor.stats.framesRendered == framesBefore + 1)
        guard case .reply(7, .screenshot)? = h.take(a).first else { Issue.record("no screenshot after the frame"); return }
        let drawn = try #require(h.compositor.presenter.lastList)
        #expect(drawn.commands.contains { $0.color == .red }, "the frame answered shows the state the request was sent in")
        #expect(!h.compositor.isWaitingForFrame(a) && h.compositor.hasPendingFrame(a))
        h.compositor.handlePending(a, frameBudget: 8)
        #expect(h.take(a) == [.applied(serial: 2)], "the commit behind it is applied afterwards")
    }

    @Test("with no flip out a screenshot is drawn at once, through the loop")
    func screenshotWithNoFlipOutIsImmediate() throws {
        let backend = FakeBackend.flipping(["A"])
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        let a = h.hello("a")
        h.feed(a, .request(id: 3, .screenshot))
        guard case .reply(3, .screenshot)? = h.take(a).first else { Issue.record("no screenshot"); return }
        #expect(h.compositor.stats.framesRendered == 1)
    }

    /// Issue 24's lost page flips: B is blanked while A's flip is out; A's flip comes back as an
    /// event and A keeps drawing, and no flip is left pending for the watchdog.
    @Test("blanking one output while the other's flip is out leaves the other drawing")
    func blankingOneOutputKeepsTheOtherDrawing() throws {
        let backend = FakeBackend.flipping(["A", "B"])
        let clock = Clock()
        let h = firstFrameDrawn(backend, clock: clock)
        #expect(h.compositor.repaint.flipPendingSince != nil)
        try backend.setPower(false, output: "B")
        h.compositor.outputsChanged()
        clock.now = 100.017
        h.compositor.handle(backend.completeFlips(["A", "B"], at: 100.0167))
        #expect(h.compositor.repaint.flipPendingSince == nil, "the watchdog is fed")
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .green))))
        backend.journal.calls = []
        #expect(h.fireFrameTimer())
        #expect(backend.journal.calls == ["begin commit", "begin A", "draw 64x48", "commit A", "flush"])
    }

    @Test("advancing the virtual clock while a flip is out is answered after the frame that shows the new time")
    func advanceWaitsForTheFrame() throws {
        let backend = FakeBackend.flipping(["A"])
        let h = firstFrameDrawn(backend, clock: nil)
        let a = h.hello("a")
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .blue))))
        _ = h.take(a)
        h.feed(a, .request(id: 4, .advanceClock(seconds: 0.5)))
        #expect(h.take(a).isEmpty)
        h.compositor.handle(backend.completeFlips(["A"], at: 1))
        #expect(h.fireFrameTimer())
        #expect(h.take(a) == [.reply(id: 4, .advanced(time: 0.5, framesRendered: 2))])
    }
}
