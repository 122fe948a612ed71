import Testing
import LaminaCore
import LaminaCompositor
import LaminaTestSupport
@testable import LaminaDaemon

/// Backlights that remember what was written, for the dimming policy.
final class FakeBacklights: DimmableBacklights {
    var level: [String: Int]
    /// Every write, in order: "A 150".
    var writes: [String] = []

    init(_ level: [String: Int]) { self.level = level }

    func levels() -> [String: Int] { level }
    func setLevel(_ value: Int, output: String) throws {
        level[output] = value
        writes.append("\(output) \(value)")
    }
}

/// Idle dimming before blanking (`[power] dim_after`, `dim_to`, `blank_after`) in
/// `DisplayPowerPolicy`, over fake outputs and backlights on a loop whose time the test moves.
@Suite("Idle dimming")
struct IdleDimmingTests {
    let backend = FakeBackend.flipping(["A", "B"])
    let h: CompositorHarness
    let loop = VirtualPolicyLoop()
    let lights = FakeBacklights(["A": 500, "B": 80])
    let touch = Point(x: 10, y: 10)

    init() {
        h = CompositorHarness(presenter: backend.makePresenter())
    }

    func policy(dimAfter: Double = 30, dimTo: Double = 30, blankAfter: Double? = 60) throws -> DisplayPowerPolicy {
        try DisplayPowerPolicy(compositor: h.compositor, idleBlankSeconds: blankAfter, dimming: IdleDimming(afterSeconds: dimAfter, toPercent: dimTo),
                               backlights: lights, loop: loop, logger: .init(label: "test"))
    }

    var power: [String] { backend.fakes.map { "\($0.name) \($0.isOn ? "on" : "off")" } }

    @Test("dims at dim_after to dim_to % of each level, blanks at blank_after, and a wanted frame restores the levels")
    func dimsThenBlanksThenRestores() throws {
        let p = try policy()
        loop.advance(by: 29.5)
        #expect(lights.level == ["A": 500, "B": 80] && !p.isDimmed)
        loop.advance(by: 0.5)
        #expect(lights.level == ["A": 150, "B": 24] && p.isDimmed)
        #expect(power == ["A on", "B on"])
        loop.advance(by: 30)
        #expect(power == ["A off", "B off"] && p.blankedByIdle)
        #expect(lights.level == ["A": 150, "B": 24], "blanking leaves the dimmed level")
        p.frameWanted()
        #expect(lights.level == ["A": 500, "B": 80], "activity restores the level set before dimming")
        loop.endEvent()
        #expect(power == ["A on", "B on"] && !p.isDimmed)
        loop.advance(by: 29.9)
        #expect(lights.level == ["A": 500, "B": 80], "the count starts again")
        loop.advance(by: 0.1)
        #expect(p.isDimmed)
    }

    @Test("a touch on a dimmed (not blanked) display restores the brightness and is delivered")
    func aTouchOnADimmedDisplayIsDelivered() throws {
        let p = try policy()
        loop.advance(by: 30)
        #expect(p.isDimmed)
        #expect(p.admits(.touchDown(id: 1, at: touch)), "the picture shows: the touch operates it")
        #expect(lights.level == ["A": 500, "B": 80] && !p.isDimmed)
        #expect(p.admits(.touchUp(id: 1)))
        #expect(lights.writes == ["A 150", "B 24", "A 500", "B 80"])
    }

    @Test("the touch that wakes a dimmed, then blanked display is swallowed and restores the brightness too")
    func aTouchOnABlankedDisplayIsSwallowed() throws {
        let p = try policy()
        loop.advance(by: 60)
        #expect(p.blankedByIdle && p.isDimmed)
        #expect(!p.admits(.touchDown(id: 2, at: touch)))
        #expect(power == ["A on", "B on"] && lights.level == ["A": 500, "B": 80])
        #expect(!p.admits(.touchUp(id: 2)))
    }

    @Test("input before dim_after keeps the brightness: the count starts again")
    func activityPostponesDimming() throws {
        let p = try policy()
        loop.advance(by: 25)
        #expect(p.admits(.pointerMotion(to: touch)))
        loop.advance(by: 25)
        #expect(!p.isDimmed && lights.writes.isEmpty)
        loop.advance(by: 5)
        #expect(p.isDimmed)
    }

    @Test("dim_after 0 never dims; blank_after still blanks")
    func noDimWhenZero() throws {
        let p = try policy(dimAfter: 0)
        loop.advance(by: 59)
        #expect(!p.isDimmed && lights.writes.isEmpty)
        loop.advance(by: 1)
        #expect(power == ["A off", "B off"] && lights.writes.isEmpty)
    }

    @Test("dimming without blanking (blank_after 0); dim_to 0 is the dimmest lit level, never off")
    func dimWithoutBlank() throws {
        let p = try policy(dimAfter: 10, dimTo: 0, blankAfter: nil)
        loop.advance(by: 3600)
        #expect(lights.level == ["A": 1, "B": 1] && p.isDimmed && power == ["A on", "B on"])
        #expect(lights.writes.count == 2, "dimmed once")
        p.activity()
        #expect(lights.level == ["A": 500, "B": 80])
    }

    @Test("a brightness set while dimmed starts from the restored level; no backlights, no dimming")
    func withoutBacklightsNothingDims() throws {
        let p = try policy()
        loop.advance(by: 30)
        p.activity()
        #expect(!p.isDimmed && lights.level == ["A": 500, "B": 80])
        lights.level = [:]
        loop.advance(by: 30)
        #expect(!p.isDimmed, "nothing to dim")
    }
}
