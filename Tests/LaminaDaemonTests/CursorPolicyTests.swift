import Testing
import LaminaCore
import LaminaCompositor
import LaminaTestSupport
@testable import LaminaDaemon

/// When the cursor shows (`CursorPolicy`), decided over a fake backend that records where the
/// cursor was asked to be and a loop whose time the test advances (no KMS, no daemon, no
/// waiting).
@Suite("Cursor policy")
struct CursorPolicyTests {
    let backend = FakeBackend.flipping(["A"])
    let h: CompositorHarness
    let loop = VirtualPolicyLoop()
    let power: DisplayPowerPolicy

    init() throws {
        h = CompositorHarness(presenter: backend.makePresenter())
        power = try DisplayPowerPolicy(compositor: h.compositor, idleBlankSeconds: 60, loop: loop, logger: .init(label: "test"))
    }

    func policy(hideAfter seconds: Double = 3) throws -> CursorPolicy {
        try CursorPolicy(compositor: h.compositor, power: power, hideAfter: seconds, loop: loop, logger: .init(label: "test"))
    }

    /// Whether a frame was asked for to show the cursor's change.
    var cursorFrameRequested: Bool { h.compositor.repaint.pending.contains(.cursorMoved) }

    let p1 = Point(x: 10, y: 20), p2 = Point(x: 30, y: 5)

    @Test("pointer motion shows the cursor where the pointer is; hide_after seconds without motion hide it")
    func motionShowsAndIdleHides() throws {
        let c = try policy(hideAfter: 3)
        loop.advance(by: 10)
        #expect(c.isShown && backend.cursorRequests.isEmpty, "until the first motion the cursor stays where the backend put it")
        c.handle(.pointerMotion(to: p1))
        #expect(c.isShown && backend.cursorRequests == [p1])
        loop.advance(by: 2.5)
        #expect(c.isShown && backend.cursorRequests == [p1])
        loop.advance(by: 0.5)
        #expect(!c.isShown)
        #expect(backend.cursorRequests == [p1, nil])
        loop.advance(by: 60)
        #expect(backend.cursorRequests == [p1, nil], "hidden once")
    }

    @Test("each motion starts the hide timeout again")
    func motionRestartsTheTimeout() throws {
        let c = try policy(hideAfter: 3)
        c.handle(.pointerMotion(to: p1))
        loop.advance(by: 2)
        c.handle(.pointerMotion(to: p2))
        loop.advance(by: 2.5)
        #expect(c.isShown, "4.5 s after the first motion, 2.5 s after the last")
        loop.advance(by: 0.5)
        #expect(!c.isShown && backend.cursorRequests == [p1, p2, nil])
    }

    @Test("a touch hides the cursor at once; the next motion shows it again")
    func touchHides() throws {
        let c = try policy()
        c.handle(.pointerMotion(to: p1))
        c.handle(.touchDown(id: 1, at: p2))
        #expect(!c.isShown && backend.cursorRequests == [p1, nil])
        c.handle(.touchMotion(id: 1, to: p1))
        c.handle(.touchUp(id: 1))
        #expect(!c.isShown && backend.cursorRequests == [p1, nil], "the rest of the touch changes nothing")
        c.handle(.pointerMotion(to: p2))
        #expect(c.isShown && backend.cursorRequests == [p1, nil, p2])
    }

    @Test("a click or a scroll brings a hidden cursor back where the pointer last was; a release does not")
    func pressesBringItBack() throws {
        let c = try policy()
        c.handle(.touchDown(id: 1, at: p1))
        c.handle(.pointerButton(code: 0x110, pressed: true))
        #expect(!c.isShown && backend.cursorRequests == [nil], "no motion yet: nowhere to show it")
        c.handle(.pointerMotion(to: p2))
        c.handle(.touchDown(id: 2, at: p1))
        c.handle(.pointerButton(code: 0x110, pressed: false))
        #expect(!c.isShown)
        c.handle(.pointerButton(code: 0x110, pressed: true))
        #expect(c.isShown && backend.cursorRequests == [nil, p2, nil, p2])
        c.handle(.touchDown(id: 3, at: p1))
        c.handle(.pointerAxis(horizontal: 0, vertical: -1))
        #expect(c.isShown && backend.cursorRequests == [nil, p2, nil, p2, nil, p2])
        c.handle(.pointerButton(code: 0x110, pressed: true))
        #expect(backend.cursorRequests.count == 6, "a click on a shown cursor moves nothing")
    }

    @Test("motion to a point that is not finite is ignored")
    func nonFiniteMotionIsIgnored() throws {
        let c = try policy()
        c.handle(.pointerMotion(to: Point(x: .nan, y: 1)))
        c.handle(.pointerMotion(to: Point(x: 1, y: .infinity)))
        #expect(backend.cursorRequests.isEmpty)
        loop.advance(by: 3)
        #expect(c.isShown, "no motion was taken: the hide timeout has not started")
        c.handle(.touchDown(id: 1, at: p1))
        c.handle(.pointerButton(code: 0x110, pressed: true))
        #expect(!c.isShown && backend.cursorRequests == [nil], "no point was taken to show it at")
    }

    @Test("cursor_hide_after 0 (or not finite) never hides the cursor for idleness")
    func noHideTimeout() throws {
        for seconds in [0.0, .infinity, .nan] {
            let c = try policy(hideAfter: seconds)
            c.handle(.pointerMotion(to: p1))
            loop.advance(by: 3600)
            #expect(c.isShown)
        }
        #expect(loop.timers.count == 1, "only the display power policy's idle timer")
    }

    @Test("a cursor the renderer draws asks the compositor for a frame; one on a cursor plane does not")
    func aDrawnCursorAsksForAFrame() throws {
        let c = try policy()
        c.handle(.pointerMotion(to: p1))
        #expect(!cursorFrameRequested, "a cursor plane showed it at once")
        backend.cursorNeedsFrame = true
        c.handle(.pointerMotion(to: p2))
        #expect(cursorFrameRequested)
    }

    @Test("a hidden drawn cursor asks for a frame too")
    func hidingADrawnCursorAsksForAFrame() throws {
        backend.cursorNeedsFrame = true
        let c = try policy()
        c.handle(.touchDown(id: 1, at: p1))
        #expect(!c.isShown && backend.cursorRequests == [nil])
        #expect(cursorFrameRequested)
    }

    @Test("while the displays are blanked for idleness the cursor follows the pointer without asking for frames")
    func noFramesWhileBlankedForIdleness() throws {
        backend.cursorNeedsFrame = true
        let c = try policy(hideAfter: 0)
        loop.advance(by: 60)
        #expect(power.blankedByIdle)
        c.handle(.pointerMotion(to: p1))
        #expect(c.isShown && backend.cursorRequests == [p1])
        #expect(!cursorFrameRequested, "pointer motion does not wake the displays")
    }
}
