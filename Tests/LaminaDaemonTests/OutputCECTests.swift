import Testing
import LaminaCore
import LaminaCompositor
import LaminaPlatform
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaDaemon

/// A CEC adapter that records what laminad queues on it, for `OutputCEC`.
final class FakeCECDevice: CECDevice {
    let path: String
    var physical: CECPhysicalAddress
    var logical: [CECLogicalAddress]
    /// Every message queued, in order, as its description ("Standby 4→0").
    var sent: [String] = []
    var sentMessages: [CECMessage] = []
    var failing: SystemError?
    private var sequence: UInt32 = 0

    init(_ path: String, physical: CECPhysicalAddress = CECPhysicalAddress(rawValue: 0x1000), logical: [CECLogicalAddress] = [.playbackDevice1]) {
        self.path = path
        self.physical = physical
        self.logical = logical
    }

    func physicalAddress() throws -> CECPhysicalAddress { physical }
    func logicalAddresses() throws -> [CECLogicalAddress] { logical }
    func send(_ message: CECMessage, reply: CECOpcode?) throws -> UInt32 {
        if let failing { throw failing }
        sent.append(message.description + (reply.map { " (reply \($0.name))" } ?? ""))
        sentMessages.append(message)
        sequence += 1
        return sequence
    }
}

/// HDMI-CEC with the display power policy (`OutputCEC` in `DisplayPowerPolicy`): which
/// messages each output's TV gets when its display blanks and lights, by request, by the idle
/// timer and by a wake, over fake outputs and fake adapters.
@Suite("Display power over HDMI-CEC")
struct OutputCECTests {
    let backend = FakeBackend.flipping(["A", "B"])
    let h: CompositorHarness
    let loop = VirtualPolicyLoop()
    let tvA = FakeCECDevice("/dev/cec0")
    let tvB = FakeCECDevice("/dev/cec1", physical: CECPhysicalAddress(rawValue: 0x2000))
    let cec: OutputCEC
    let touch = Point(x: 10, y: 10)

    static let wake = ["Image View On 4→0", "Active Source 4→15 [10 00]", "Give Device Power Status 4→0 (reply Report Power Status)"]
    static let standby = ["Standby 4→0", "Give Device Power Status 4→0 (reply Report Power Status)"]

    init() {
        h = CompositorHarness(presenter: backend.makePresenter())
        cec = OutputCEC(links: [.init(setting: CECOutputSetting(output: "A", device: "/dev/cec0"), device: tvA),
                                .init(setting: CECOutputSetting(output: "B", device: "/dev/cec1"), device: tvB)],
                        logger: .init(label: "test"))
    }

    func policy(idleBlank: Double? = 60) throws -> DisplayPowerPolicy {
        try DisplayPowerPolicy(compositor: h.compositor, idleBlankSeconds: idleBlank, cec: cec, loop: loop, logger: .init(label: "test"))
    }

    @Test("display off sends the TV <Standby>; display on <Image View On> then <Active Source> with the physical address")
    func offAndOn() throws {
        let p = try policy(idleBlank: nil)
        try p.setPower(false)
        #expect(tvA.sent == Self.standby && tvB.sent == Self.standby)
        #expect(tvA.sentMessages.first?.bytes == [0x40, 0x36])
        tvA.sent = []
        tvB.sent = []
        try p.setPower(true)
        #expect(tvA.sent == Self.wake)
        #expect(tvB.sent == ["Image View On 4→0", "Active Source 4→15 [20 00]", "Give Device Power Status 4→0 (reply Report Power Status)"],
                "each TV is told its own input")
        #expect(tvA.sentMessages.map(\.bytes) == [[0x40, 0x36], [0x40, 0x8F], [0x40, 0x04], [0x4F, 0x82, 0x10, 0x00], [0x40, 0x8F]])
    }

    @Test("display off|on OUTPUT switches that output's TV only; an unknown output sends nothing")
    func perOutput() throws {
        let p = try policy(idleBlank: nil)
        try p.setPower(false, output: "B")
        #expect(tvA.sent.isEmpty && tvB.sent == Self.standby)
        #expect(throws: UnknownOutput.self) { try p.setPower(false, output: "C") }
        #expect(tvA.sent.isEmpty && tvB.sent.count == 2)
        try p.setPower(true, output: "B")
        #expect(tvA.sent.isEmpty && Array(tvB.sent.suffix(3)) == ["Image View On 4→0", "Active Source 4→15 [20 00]", "Give Device Power Status 4→0 (reply Report Power Status)"])
    }

    @Test("the idle blank puts the TVs in standby; the waking touch and a wanted frame wake them")
    func idleBlankAndWake() throws {
        let p = try policy(idleBlank: 60)
        loop.advance(by: 59.9)
        #expect(tvA.sent.isEmpty)
        loop.advance(by: 0.1)
        #expect(tvA.sent == Self.standby && p.blankedByIdle)
        #expect(!p.admits(.touchDown(id: 1, at: touch)))
        #expect(tvA.sent == Self.standby + Self.wake)
        loop.advance(by: 60)
        #expect(tvA.sent == Self.standby + Self.wake + Self.standby)
        p.frameWanted()
        #expect(tvA.sent.count == 7, "not while the compositor is scheduling")
        loop.endEvent()
        #expect(tvA.sent == Self.standby + Self.wake + Self.standby + Self.wake)
        #expect(cec.links[0].lastAction == .wake)
    }

    @Test("standby = false: blanking leaves that TV alone, lighting still wakes it")
    func standbyOff() throws {
        var setting = CECOutputSetting(output: "A", device: "/dev/cec0")
        setting.standby = false
        let only = OutputCEC(links: [.init(setting: setting, device: tvA)], logger: .init(label: "test"))
        let p = try DisplayPowerPolicy(compositor: h.compositor, idleBlankSeconds: nil, cec: only, loop: loop, logger: .init(label: "test"))
        try p.setPower(false)
        #expect(tvA.sent.isEmpty)
        try p.setPower(true)
        #expect(tvA.sent == Self.wake)
    }

    @Test("no logical address (no TV connected) or no physical address: nothing, or no <Active Source>, and never an error for the request")
    func unconfiguredAdapters() throws {
        let p = try policy(idleBlank: nil)
        tvA.logical = []
        tvB.physical = .invalid
        try p.setPower(false)
        try p.setPower(true)
        #expect(tvA.sent.isEmpty)
        #expect(cec.links[0].failed == 2, "each action that could not be sent counts")
        #expect(tvB.sent == Self.standby + ["Image View On 4→0", "Give Device Power Status 4→0 (reply Report Power Status)"])
        tvA.logical = [.playbackDevice1]
        tvA.failing = SystemError("CEC_TRANSMIT /dev/cec0", errno: 64)
        try p.setPower(false)
        #expect(cec.links[0].failed == 4, "a refused transmit counts, and the display still blanked")
        #expect(power == ["A off", "B off"])
    }

    var power: [String] { backend.fakes.map { "\($0.name) \($0.isOn ? "on" : "off")" } }

    @Test("outcomes: the TV's <Report Power Status> reply sets tvPower; acknowledged and failed transmits are counted in stats")
    func outcomesAndStatistics() throws {
        let p = try policy(idleBlank: nil)
        try p.setPower(false, output: "A")
        let link = cec.links[0]
        cec.handle(.transmitted(sequence: 1, sent: true, status: "ok", reply: nil), on: link)
        cec.handle(.transmitted(sequence: 2, sent: true, status: "ok", reply: .reportPowerStatus(from: .tv, to: .playbackDevice1, .standby)), on: link)
        #expect(link.tvPower == .standby && link.pending.isEmpty)
        try p.setPower(true, output: "A")
        cec.handle(.transmitted(sequence: 3, sent: false, status: "not acknowledged", reply: nil), on: link)
        cec.handle(.message(.reportPowerStatus(from: .tv, to: .playbackDevice1, .goingOn)), on: link)
        let stats = Dictionary(uniqueKeysWithValues: cec.statistics.map { ($0.name, $0.value) })
        #expect(stats["cec.A.lastAction"] == 2 && stats["cec.A.tvPower"] == 2)
        #expect(stats["cec.A.acknowledged"] == 2 && stats["cec.A.failed"] == 1)
        #expect(stats["cec.B.lastAction"] == 0 && stats["cec.B.tvPower"] == -1, "B was never switched")
    }
}
