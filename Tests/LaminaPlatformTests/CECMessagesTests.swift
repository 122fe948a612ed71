import Testing
import LaminaPlatform

/// The HDMI-CEC messages laminad sends and reads, byte for byte as HDMI 1.4b's CEC supplement
/// lays them out: header (initiator << 4 | destination), opcode, operands.
@Suite("CEC messages")
struct CECMessagesTests {
    let playback = CECLogicalAddress.playbackDevice1

    @Test("<Standby> 0x36: directed to the TV (40 36), or broadcast (4F 36)")
    func standby() {
        #expect(CECMessage.standby(from: playback).bytes == [0x40, 0x36])
        #expect(CECMessage.standby(from: playback, to: .broadcast).bytes == [0x4F, 0x36])
        #expect(CECMessage.standby(from: playback).knownOpcode == .standby)
    }

    @Test("<Image View On> 0x04 goes to the TV: 40 04")
    func imageViewOn() {
        #expect(CECMessage.imageViewOn(from: playback).bytes == [0x40, 0x04])
    }

    @Test("<Active Source> 0x82 is broadcast with the physical address, high byte first: 4F 82 10 00")
    func activeSource() throws {
        let m = CECMessage.activeSource(from: playback, physicalAddress: try #require(CECPhysicalAddress("1.0.0.0")))
        #expect(m.bytes == [0x4F, 0x82, 0x10, 0x00])
        #expect(m.isBroadcast)
        #expect(CECMessage.activeSource(from: .broadcast, physicalAddress: CECPhysicalAddress(rawValue: 0x2130)).bytes == [0xFF, 0x82, 0x21, 0x30])
        #expect(CECMessage(bytes: [0x8F, 0x82, 0x21, 0x30])?.activeSourceAddress?.description == "2.1.3.0")
    }

    @Test("<Give Device Power Status> 0x8F (40 8F) and <Report Power Status> 0x90 [status] (04 90 01)")
    func powerStatus() {
        #expect(CECMessage.giveDevicePowerStatus(from: playback).bytes == [0x40, 0x8F])
        #expect(CECMessage.reportPowerStatus(from: .tv, to: playback, .standby).bytes == [0x04, 0x90, 0x01])
        let statuses: [(UInt8, CECPowerStatus)] = [(0, .on), (1, .standby), (2, .goingOn), (3, .goingToStandby)]
        for (byte, status) in statuses {
            #expect(CECMessage(bytes: [0x04, 0x90, byte])?.reportedPowerStatus == status)
        }
        #expect(CECMessage(bytes: [0x04, 0x90, 4])?.reportedPowerStatus == nil, "4 is reserved in CEC 1.4")
        #expect(CECMessage(bytes: [0x04, 0x90])?.reportedPowerStatus == nil, "no operand")
        #expect(CECMessage(bytes: [0x04, 0x36, 0x00])?.reportedPowerStatus == nil, "another opcode")
    }

    @Test("parsing: header nibbles, a poll (header alone), unknown opcodes kept, 1 to 16 bytes")
    func parsing() throws {
        let m = try #require(CECMessage(bytes: [0x4F, 0x82, 0x10, 0x00]))
        #expect(m.initiator == playback && m.destination == .broadcast && m.opcode == 0x82 && m.operands == [0x10, 0x00])
        let poll = try #require(CECMessage(bytes: [0x40]))
        #expect(poll.opcode == nil && poll.bytes == [0x40] && poll.description == "Poll 4→0")
        let vendor = try #require(CECMessage(bytes: [0x40, 0xA0, 1, 2]))
        #expect(vendor.knownOpcode == nil && vendor.bytes == [0x40, 0xA0, 1, 2])
        #expect(CECMessage(bytes: [0x4F, 0x84, 0x10, 0x00, 0x04])?.description == "Report Physical Address 4→15 [10 00 04]",
                "what the kernel broadcasts for a playback device at 1.0.0.0 once it has its address")
        #expect(CECMessage(bytes: []) == nil)
        #expect(CECMessage(bytes: [UInt8](repeating: 0x40, count: 17)) == nil)
        #expect(CECMessage(bytes: [UInt8](repeating: 0x40, count: 16)) != nil)
        #expect(CECMessage.activeSource(from: playback, physicalAddress: CECPhysicalAddress(rawValue: 0x1000)).description == "Active Source 4→15 [10 00]")
    }

    @Test("physical addresses: a.b.c.d in hexadecimal digits, f.f.f.f invalid")
    func physicalAddresses() {
        #expect(CECPhysicalAddress("1.0.0.0")?.rawValue == 0x1000)
        #expect(CECPhysicalAddress("a.b.c.d")?.rawValue == 0xABCD)
        #expect(CECPhysicalAddress(rawValue: 0x3200).description == "3.2.0.0")
        #expect(CECPhysicalAddress.invalid.description == "f.f.f.f" && !CECPhysicalAddress.invalid.isValid)
        for bad in ["1.0.0", "10.0.0.0", "1.0.0.0.0", "g.0.0.0", "", "1..0.0"] {
            #expect(CECPhysicalAddress(bad) == nil, "\(bad)")
        }
        #expect(CECLogicalAddress(rawValue: 16) == nil && CECLogicalAddress(rawValue: 15) == .broadcast)
    }
}
