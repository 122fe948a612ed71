import Testing
import LaminaCore
import LaminaCompositor
import LaminaTestSupport
@testable import LaminaDaemon

/// When the displays are lit (`DisplayPowerPolicy`), decided over fake outputs that record
/// their power and a loop whose time the test advances (no KMS, no daemon, no waiting).
@Suite("Display power policy")
struct DisplayPowerPolicyTests {
    let backend = FakeBackend.flipping(["A", "B"])
    let h: CompositorHarness
    let loop = VirtualPolicyLoop()

    init() {
        h = CompositorHarness(presenter: backend.makePresenter())
    }

    func policy(idleBlank seconds: Double? = 60) throws -> DisplayPowerPolicy {
        try DisplayPowerPolicy(compositor: h.compositor, idleBlankSeconds: seconds, loop: loop, logger: .init(label: "test"))
    }

    /// Each output's power, by name: "A on".
    var power: [String] { backend.fakes.map { "\($0.name) \($0.isOn ? "on" : "off")" } }

    /// Whether a frame was asked for to light the outputs again.
    var relightRequested: Bool { h.compositor.repaint.pending.contains(.outputRelit) }

    let touch = Point(x: 10, y: 10)

    @Test("idle_blank seconds without activity blank every output, as blanked for idleness")
    func blanksAfterTheIdleTimeout() throws {
        let p = try policy(idleBlank: 60)
        loop.advance(by: 59.5)
        #expect(power == ["A on", "B on"] && !p.blankedByIdle)
        loop.advance(by: 0.5)
        #expect(power == ["A off", "B off"])
        #expect(p.blankedByIdle)
        #expect(h.compositor.repaint.planner.outputs.isEmpty, "the repaint loop paces no blanked output")
    }

    @Test("input and wanted frames are activity: each starts the idle timeout again")
    func activityRestartsTheTimeout() throws {
        let p = try policy(idleBlank: 60)
        loop.advance(by: 50)
        #expect(p.admits(.pointerMotion(to: touch)))
        loop.advance(by: 50)
        #expect(power == ["A on", "B on"], "100 s after the start, 50 s after the motion")
        p.frameWanted()
        loop.endEvent()
        loop.advance(by: 59.5)
        #expect(power == ["A on", "B on"])
        loop.advance(by: 0.5)
        #expect(power == ["A off", "B off"] && p.blankedByIdle)
    }

    @Test("the touch that wakes an idle-blanked display lights it and is not delivered: down, moves and up")
    func aWakingTouchIsSwallowed() throws {
        let p = try policy()
        loop.advance(by: 60)
        #expect(p.blankedByIdle && !relightRequested)
        #expect(!p.admits(.touchDown(id: 3, at: touch)))
        #expect(power == ["A on", "B on"] && !p.blankedByIdle)
        #expect(relightRequested, "a frame is asked for the outputs lit again")
        #expect(!p.admits(.touchMotion(id: 3, to: touch)))
        #expect(p.admits(.touchDown(id: 4, at: touch)), "another touch on the lit display is delivered")
        #expect(!p.admits(.touchUp(id: 3)))
        #expect(p.admits(.touchMotion(id: 3, to: touch)), "the waking touch is over: id 3 is delivered again")
        #expect(p.admits(.touchUp(id: 4)))
    }

    @Test("a waking button or key press is swallowed with its release; other releases are delivered")
    func wakingPressesAreSwallowed() throws {
        let p = try policy()
        loop.advance(by: 60)
        #expect(!p.admits(.pointerButton(code: 0x110, pressed: true)))
        #expect(power == ["A on", "B on"])
        #expect(p.admits(.pointerButton(code: 0x111, pressed: false)))
        #expect(!p.admits(.pointerButton(code: 0x110, pressed: false)))
        #expect(p.admits(.pointerButton(code: 0x110, pressed: true)), "the display is lit: the next press is delivered")
        loop.advance(by: 60)
        #expect(power == ["A off", "B off"])
        #expect(!p.admits(.key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a")))
        #expect(power == ["A on", "B on"])
        #expect(!p.admits(.key(code: 30, pressed: false, keysym: 0x61, name: "a", text: "")))
        #expect(p.admits(.key(code: 30, pressed: false, keysym: 0x61, name: "a", text: "")), "only one release was swallowed")
    }

    @Test("pointer motion, a scroll or a release on an idle-blanked display is delivered and does not wake it")
    func motionDoesNotWake() throws {
        let p = try policy()
        loop.advance(by: 60)
        #expect(p.admits(.pointerMotion(to: touch)))
        #expect(p.admits(.pointerAxis(horizontal: 0, vertical: 1)))
        #expect(p.admits(.pointerButton(code: 0x110, pressed: false)))
        #expect(power == ["A off", "B off"] && p.blankedByIdle)
    }

    @Test("cancelAll forgets the presses being swallowed")
    func cancelAllForgetsSwallowedPresses() throws {
        let p = try policy()
        loop.advance(by: 60)
        #expect(!p.admits(.touchDown(id: 1, at: touch)))
        #expect(p.admits(.cancelAll))
        #expect(p.admits(.touchUp(id: 1)))
    }

    @Test("a wanted frame lights idle-blanked displays once the current event is handled")
    func aWantedFrameLightsAfterTheEvent() throws {
        let p = try policy()
        loop.advance(by: 60)
        p.frameWanted()
        #expect(power == ["A off", "B off"], "not while the compositor is scheduling")
        #expect(!p.blankedByIdle)
        loop.endEvent()
        #expect(power == ["A on", "B on"])
        #expect(relightRequested)
        #expect(Set(h.compositor.repaint.planner.outputs.keys) == ["A", "B"], "the repaint loop paces both again")
    }

    @Test("display off|on for one output: every output's state comes back; activity does not light a requested blank")
    func perOutputRequests() throws {
        let p = try policy()
        let off = try p.setPower(false, output: "B")
        #expect(off.map { "\($0.name) \($0.isOn ? "on" : "off")" } == ["A on", "B off"])
        #expect(power == ["A on", "B off"] && !p.blankedByIdle)
        #expect(Set(h.compositor.repaint.planner.outputs.keys) == ["A"])
        #expect(!relightRequested, "blanking asks for no frame")
        #expect(p.admits(.touchDown(id: 1, at: touch)), "not blanked for idleness: the touch is delivered")
        p.frameWanted()
        loop.endEvent()
        #expect(power == ["A on", "B off"])
        let on = try p.setPower(true, output: "B")
        #expect(on.map(\.isOn) == [true, true])
        #expect(relightRequested)
        #expect(throws: UnknownOutput.self) { try p.setPower(false, output: "C") }
        #expect(power == ["A on", "B on"])
    }

    @Test("a requested blank of every display is not lit by a touch, and the idle timer's blank is")
    func requestedBlankStaysBlank() throws {
        let p = try policy()
        try p.setPower(false)
        #expect(power == ["A off", "B off"] && !p.blankedByIdle)
        #expect(p.admits(.touchDown(id: 1, at: touch)))
        #expect(power == ["A off", "B off"])
        try p.setPower(true)
        loop.advance(by: 60)
        #expect(p.blankedByIdle)
        #expect(!p.admits(.touchDown(id: 2, at: touch)))
        #expect(power == ["A on", "B on"])
    }

    @Test("idle_blank nil or 0 never blanks")
    func noIdleBlank() throws {
        for seconds in [nil, 0.0] {
            let p = try policy(idleBlank: seconds)
            loop.advance(by: 3600)
            #expect(power == ["A on", "B on"] && !p.blankedByIdle)
        }
        #expect(loop.timers.isEmpty)
    }

    @Test("a backend that cannot blank (headless) has no idle timer, and display off is refused")
    func aBackendThatCannotBlank() throws {
        let headless = FakeBackend()
        headless.fakes = [FakeOutput("H", Rect(x: 0, y: 0, width: 64, height: 48), journal: headless.journal)]
        let hh = CompositorHarness(presenter: headless.makePresenter())
        let p = try DisplayPowerPolicy(compositor: hh.compositor, idleBlankSeconds: 60, loop: loop, logger: .init(label: "test"))
        #expect(loop.timers.isEmpty)
        loop.advance(by: 3600)
        #expect(headless.fakes[0].isOn && !p.blankedByIdle)
        #expect(throws: BackendUnavailable.self) { try p.setPower(false) }
        #expect(headless.fakes[0].isOn)
    }
}
